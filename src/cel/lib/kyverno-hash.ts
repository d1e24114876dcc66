/**
 * Kyverno's `hash` CEL library (kyverno/sdk extensions/cel/libs/hash): `sha1`, `sha256` and `md5` of a string,
 * the hex digest of its UTF-8 bytes, as JMESPath's sha1()/sha256()/md5() give it; from Kyverno 1.18 also as
 * `hash.sha1` and so on.
 */
import { global, type FunctionDef } from '../registry.js';
import { err, noOverload } from '../values.js';
import { hexDigest, HostUnavailable } from '../../util/host.js';

function digest(algorithm: 'sha1' | 'sha256' | 'md5', name: string): (v: unknown) => string {
  return (v) => {
    if (typeof v !== 'string') return noOverload(name, v);
    try {
      return hexDigest(algorithm, v);
    } catch (e) {
      if (!(e instanceof HostUnavailable)) throw e;
      return err(`${name}: ${e.message}`);
    }
  };
}

export const kyvernoHashFunctions: FunctionDef[] = (['sha1', 'sha256', 'md5'] as const).flatMap((a) => [
  global('kyverno', a, 1, digest(a, a)),
  global('kyverno', `hash.${a}`, 1, digest(a, `hash.${a}`)),
]);
