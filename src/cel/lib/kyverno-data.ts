/**
 * Kyverno's data libraries for CEL policies (pkg/cel/libs/{resource,globalcontext,http}) read through the
 * run's KyvernoDataProvider; the small pure helpers Kyverno's environment adds next to them (gzip, base64,
 * cel-go's ext regex `regex.replace/extract/extractAll`, json) are evaluated here.
 */
import { isJsonObject, type JsonObject, type JsonValue } from '../../ir/json.js';
import { global, type FunctionDef } from '../registry.js';
import { CelOptional, err, noOverload } from '../values.js';
import type { RuntimeServices } from '../compile.js';
import { CLUSTER_OBJECTS, OUTSIDE_DATA, unavailable, type KyvernoDataProvider } from './kyverno-context.js';
import { compileRegex } from './std.js';
import { fromBase64, toBase64 } from '../../util/bytes.js';
import { gunzip, gzip, HostUnavailable } from '../../util/host.js';

function strings(fn: string, args: unknown[]): string[] {
  if (!args.every((a) => typeof a === 'string')) return noOverload(fn, ...args);
  return args as string[];
}

function getResource(provider: KyvernoDataProvider | undefined, fn: string, ...args: unknown[]): JsonValue {
  const [apiVersion, resource, namespace, name] = strings(fn, args) as [string, string, string, string];
  if (!provider?.getResource) return unavailable(`resource (${fn})`, CLUSTER_OBJECTS);
  const found = provider.getResource(apiVersion, resource, namespace, name);
  // A missing object (the client's NotFound) is null: kyverno/sdk extensions/cel/libs/resource impl.go, since
  // sdk #68 (Kyverno 1.18); Kyverno 1.17's in-tree library returned the client's error.
  return found ?? null;
}

/**
 * `resource.List(apiVersion, resource, namespace[, labels])`: with labels, the objects carrying every one of
 * them (context.go ListResources: labels.SelectorFromSet, an empty map selects everything).
 */
function listResources(provider: KyvernoDataProvider | undefined, fn: string, ...args: unknown[]): JsonValue {
  const selector = args.length === 4 ? labelSet(fn, args) : undefined;
  const [apiVersion, resource, namespace] = strings(fn, args.slice(0, 3)) as [string, string, string];
  if (!provider?.listResources) return unavailable(`resource (${fn})`, CLUSTER_OBJECTS);
  const items = provider.listResources(apiVersion, resource, namespace);
  return { apiVersion: 'v1', kind: 'List', items: selector === undefined ? items : items.filter((o) => hasLabels(o, selector)) };
}

/** The label map of a four-argument `resource.List` (a map of strings to strings). */
function labelSet(fn: string, args: unknown[]): [string, string][] {
  // A map of string keys is a plain object (values.ts); a CelMap has keys of other types.
  const labels = args[3];
  const entries = isJsonObject(labels as JsonValue) ? Object.entries(labels as JsonObject) : undefined;
  if (entries === undefined || !entries.every(([, v]) => typeof v === 'string')) return noOverload(fn, ...args);
  return entries as [string, string][];
}

function hasLabels(o: JsonValue, selector: readonly [string, string][]): boolean {
  const labels = isJsonObject(o) && isJsonObject(o.metadata) && isJsonObject(o.metadata.labels) ? o.metadata.labels : {};
  return selector.every(([k, v]) => Object.prototype.hasOwnProperty.call(labels, k) && labels[k] === v);
}

function globalContext(provider: KyvernoDataProvider | undefined, fn: string, ...args: unknown[]): JsonValue {
  const [entry, projection] = strings(fn, args.length === 1 ? [args[0], ''] : args) as [string, string];
  const found = provider?.globalContext?.(entry, projection);
  // null is a value (kyverno test's provider answers an entry it does not hold with nil).
  return found !== undefined ? found : unavailable(`globalContext (${fn})`, `the GlobalContextEntry "${entry}"`);
}

function bytesOf(fn: string, v: unknown): Uint8Array {
  if (v instanceof Uint8Array) return v;
  if (typeof v === 'string') return new TextEncoder().encode(v);
  return noOverload(fn, v);
}

function decodeBase64(v: unknown): Uint8Array {
  const s = typeof v === 'string' ? v : noOverload('base64.decode', v);
  // cel-go ext encoders: StdEncoding, falling back to the unpadded RawStdEncoding.
  if (!/^[A-Za-z0-9+/]*={0,2}$/.test(s) || (s.includes('=') && s.length % 4 !== 0)) return err('illegal base64 data');
  return fromBase64(s);
}

const jsRegexCache = new Map<string, RegExp>();

/** The RE2 pattern as a JS RegExp for replacement (validated by RE2 first, as k8s.ts does for find). */
function jsRegex(pattern: string): RegExp {
  let re = jsRegexCache.get(pattern);
  if (re) return re;
  compileRegex(pattern);
  try {
    re = new RegExp(pattern.replace(/\(\?P</g, '(?<'), 'gu');
  } catch (e) {
    return err(`regex ${pattern} is not supported: ${(e as Error).message}`);
  }
  jsRegexCache.set(pattern, re);
  return re;
}

/** cel-go ext regex.replace: `\1`..`\9` name groups, `\\` is a backslash; count < 0 replaces all. */
function regexReplace(target: unknown, pattern: unknown, replacement: unknown, count?: unknown): string {
  const [t, p, r] = strings('regex.replace', [target, pattern, replacement]) as [string, string, string];
  const limit = count === undefined ? -1 : Number(count);
  if (limit === 0) return t;
  const re = jsRegex(p);
  re.lastIndex = 0;
  let done = 0;
  return t.replace(re, (...m: unknown[]) => {
    if (limit > 0 && done >= limit) return m[0] as string;
    done++;
    return r.replace(/\\(\\|\d)/g, (_, g: string) => (g === '\\' ? '\\' : ((m[Number(g)] as string | undefined) ?? '')));
  });
}

function regexExtract(target: unknown, pattern: unknown): unknown {
  const [t, p] = strings('regex.extract', [target, pattern]) as [string, string];
  const re = jsRegex(p);
  re.lastIndex = 0;
  const m = re.exec(t);
  return m === null ? CelOptional.NONE : CelOptional.of(m[1] ?? m[0]);
}

/** The cluster data comes with each evaluation (EvalOptions.services.kyvernoData). */
const READS_CLUSTER = { pure: false, services: true } as const;

export const kyvernoDataFunctions: FunctionDef[] = [
  ...['resource.Get', 'resource.get'].map((n) => global('kyverno', n, 4, (s: RuntimeServices, ...a: unknown[]) => getResource(s.kyvernoData, n, ...a), READS_CLUSTER)),
  ...['resource.List', 'resource.list'].map((n) => global('kyverno', n, [3, 4], (s: RuntimeServices, ...a: unknown[]) => listResources(s.kyvernoData, n, ...a), READS_CLUSTER)),
  ...['globalContext.Get', 'globalContext.get'].map((n) => global('kyverno', n, [1, 2], (s: RuntimeServices, ...a: unknown[]) => globalContext(s.kyvernoData, n, ...a), READS_CLUSTER)),
  // resource.Post creates an object (a SubjectAccessReview): a write a run offline cannot make.
  ...['resource.Post', 'resource.post'].map((n) => global('kyverno', n, 3, () => unavailable(`resource (${n})`, 'a cluster to write to'), { pure: false })),
  ...['http.Get', 'http.get', 'http.Post', 'http.post'].map((n) =>
    global('kyverno', n, [1, 2, 3], () => unavailable(`http (${n})`, OUTSIDE_DATA.network), { pure: false }),
  ),
  global('kyverno', 'gzip.decompress', 1, (v: unknown) => {
    try {
      return new TextDecoder().decode(gunzip(bytesOf('gzip.decompress', v)));
    } catch (e) {
      return err(`gzip.decompress: ${(e as Error).message}`);
    }
  }),
  global('kyverno', 'gzip.compress', 1, (v: unknown) => {
    try {
      return gzip(bytesOf('gzip.compress', v));
    } catch (e) {
      if (!(e instanceof HostUnavailable)) throw e;
      return err(`gzip.compress: ${e.message}`);
    }
  }),
  global('kyverno', 'base64.decode', 1, decodeBase64),
  global('kyverno', 'base64.encode', 1, (v: unknown) => toBase64(bytesOf('base64.encode', v))),
  global('kyverno', 'regex.replace', [3, 4], regexReplace),
  global('kyverno', 'regex.extract', 2, regexExtract),
];
