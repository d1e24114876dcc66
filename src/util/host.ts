/**
 * Node's synchronous gzip and hashes, reached through the host instead of an import, so the core bundles for a
 * browser (issue 12). Kyverno's `gzip.*` CEL functions and JMESPath `sha256`/`sha1`/`md5` are synchronous
 * inside a synchronous evaluation, and the browser's own CompressionStream and SubtleCrypto are asynchronous:
 * in a host without Node's modules these functions fail with a message saying so, and everything else runs.
 */

interface NodeZlib {
  gzipSync(data: Uint8Array): Uint8Array;
  gunzipSync(data: Uint8Array): Uint8Array;
}

interface NodeCrypto {
  createHash(algorithm: string): { update(data: string, encoding: 'utf8'): { digest(encoding: 'hex'): string } };
}

type BuiltinLoader = (id: string) => unknown;

/** `process.getBuiltinModule` (Node 20.16 and later), read without naming `process` to a bundler. */
function builtin<T>(id: string): T | undefined {
  const host = (globalThis as { process?: { getBuiltinModule?: BuiltinLoader } }).process;
  return host?.getBuiltinModule?.(id) as T | undefined;
}

export class HostUnavailable extends Error {}

function required<T>(id: string, what: string): T {
  const mod = builtin<T>(id);
  if (!mod) throw new HostUnavailable(`${what} needs Node.js (node:${id}), which this host does not provide`);
  return mod;
}

export function gzip(data: Uint8Array): Uint8Array {
  return new Uint8Array(required<NodeZlib>('zlib', 'gzip').gzipSync(data));
}

export function gunzip(data: Uint8Array): Uint8Array {
  return new Uint8Array(required<NodeZlib>('zlib', 'gzip').gunzipSync(data));
}

/** The hex digest of the UTF-8 text (`createHash(algorithm).update(text, 'utf8').digest('hex')`). */
export function hexDigest(algorithm: 'sha256' | 'sha1' | 'md5', text: string): string {
  return required<NodeCrypto>('crypto', algorithm).createHash(algorithm).update(text, 'utf8').digest('hex');
}
