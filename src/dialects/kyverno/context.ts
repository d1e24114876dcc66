/**
 * Context entries (`rule.context[]`, `foreach[].context[]`) as lazy `let` bindings, in order, so a later
 * entry sees the earlier ones and an entry is loaded (and can fail) only when a query reaches it, as Kyverno's
 * deferred loading does. A `variable` entry is an opaque `kyverno_context(...)` value evaluated with
 * pkg/engine/context/loaders/variable.go semantics; `configMap`, `apiCall`, `globalReference` and
 * `imageRegistry` need a cluster: offline their value comes from supplied data (the CLI's values file,
 * `policies[].rules[].values` or `globalValues`), and without data reading them is an error naming the entry.
 * An `imageRegistry` entry is also served by the runtime's image data (`--image-data`, a kyverno-test suite's
 * Context file), shaped as Kyverno's registry client returns it (image-data.ts registryClientData); an
 * `apiCall` GET or a `configMap` entry by a replayed cluster's API server (context-cluster.ts).
 */
import type { Diagnostic } from '../../diagnostics/diagnostic.js';
import { registryClientData, type ImageDataTable } from '../../cel/lib/image-data.js';
import { OFFLINE, OUTSIDE_DATA } from '../../cel/lib/kyverno-context.js';
import { hasOwn, isJsonObject, type JsonObject, type JsonValue } from '../../ir/json.js';
import type { LetOp } from '../../ir/nodes.js';
import type { YamlPath } from '../../io/source.js';
import { clusterEntry, type ApiGet } from './context-cluster.js';
import { opaqueExpression } from './opaque.js';
import type { Reader } from './reader.js';
import { substituteTree, treeHasVariables, type QueryOutcome, type Substituted, type SubstitutionEnv } from './variables.js';

const EXTERNAL_TYPES = ['configMap', 'apiCall', 'globalReference', 'imageRegistry'] as const;

/** What the error of an entry that reads the cluster, without a value supplied, says after its name and type. */
export const NEEDS_CLUSTER_DATA = 'needs a cluster or external data';

/** Offline data for context entries: the value of an entry by name, if supplied. */
export type ContextData = (name: string) => JsonValue | undefined;

export function contextLets(r: Reader, at: YamlPath, data: ContextData, diagnostics: Diagnostic[]): LetOp[] {
  const lets: LetOp[] = [];
  r.list(at).forEach((entry, i) => {
    const p = [...at, i];
    if (!isJsonObject(entry) || typeof entry.name !== 'string' || entry.name === '') {
      diagnostics.push(r.error('TM2005', 'a context entry needs a name', p));
      return;
    }
    const name = entry.name;
    const origin = r.origin(p);
    const supplied = data(name);
    if (supplied !== undefined) {
      lets.push({ kind: 'let', name, value: { kind: 'literal', json: supplied, origin }, origin });
      return;
    }
    if (isJsonObject(entry.variable)) {
      const v = entry.variable;
      // A plain literal value needs no evaluation (it cannot be nil, fail or depend on the request).
      if (v.value !== undefined && v.value !== null && v.jmesPath === undefined && v.default === undefined && !treeHasVariables(v.value)) {
        lets.push({ kind: 'let', name, value: { kind: 'literal', json: v.value, origin }, origin });
        return;
      }
      const json: JsonObject = { name, variable: v };
      lets.push({ kind: 'let', name, value: { kind: 'jmes', expr: { text: opaqueExpression('context', json), origin }, origin }, lazy: true, origin });
      return;
    }
    const type = EXTERNAL_TYPES.find((t) => entry[t] !== undefined);
    if (!type) {
      diagnostics.push(r.error('TM2002', `context entry "${name}" has none of variable, ${EXTERNAL_TYPES.join(', ')}`, p));
      return;
    }
    const message = `context entry "${name}" (${type}) ${NEEDS_CLUSTER_DATA}; supply its value offline (values file: policies[].rules[].values.${name})`;
    // `unresolved` stays set for an image entry: translations read it as "reads the cluster" (no CEL form).
    const json: JsonObject = { name, unresolved: message };
    if (type === 'imageRegistry' && isJsonObject(entry.imageRegistry)) json.imageRegistry = entry.imageRegistry;
    // A replayed cluster answers these (context-cluster.ts); a namespaced Policy's are left to supplied values.
    if ((type === 'apiCall' || type === 'configMap') && isJsonObject(entry[type])) {
      json[type] = entry[type]!;
      if (r.get(['kind']) === 'Policy') json.policyNamespace = r.string(['metadata', 'namespace']) ?? 'default';
    }
    lets.push({ kind: 'let', name, value: { kind: 'jmes', expr: { text: opaqueExpression('context', json), origin }, origin }, lazy: true, origin });
  });
  return lets;
}

/**
 * loaders/variable.go loadVariable: `value` (substituted) optionally narrowed by `jmesPath`, or `jmesPath`
 * queried on the whole context; a failing query falls back to `default` (an error without one), and so does
 * a nil result of a whole-context query; a nil output is an error.
 */
export function loadContextEntry(
  entry: JsonValue,
  env: SubstitutionEnv,
  queryOn: (expression: string, data: unknown) => QueryOutcome,
  imageData?: ImageDataTable,
  apiGet?: ApiGet,
): Substituted<JsonValue> {
  if (!isJsonObject(entry)) return { ok: false, message: 'malformed context entry' };
  const name = typeof entry.name === 'string' ? entry.name : '';
  if (isJsonObject(entry.imageRegistry)) return loadImageEntry(name, entry.imageRegistry, env, queryOn, imageData);
  if (typeof entry.unresolved === 'string') return (apiGet && clusterEntry(entry, env, queryOn, apiGet)) ?? { ok: false, message: entry.unresolved };
  const v = isJsonObject(entry.variable) ? entry.variable : {};
  let path = '';
  if (typeof v.jmesPath === 'string' && v.jmesPath !== '') {
    const jp = substituteTree(v.jmesPath, env);
    if (!jp.ok) return { ok: false, message: `failed to substitute variables in context entry ${name} ${v.jmesPath}: ${jp.message}` };
    path = String(jp.value);
  }
  let defaultValue: JsonValue | null = null;
  if (hasOwn(v, 'default') && v.default !== null && v.default !== undefined) {
    const d = substituteTree(v.default, env);
    if (!d.ok) return { ok: false, message: `failed to substitute variables in context entry ${name} ${JSON.stringify(v.default)}: ${d.message}` };
    defaultValue = d.value;
  }
  let output: unknown = defaultValue;
  if (hasOwn(v, 'value') && v.value !== null && v.value !== undefined) {
    const value = substituteTree(v.value, env);
    if (!value.ok) return { ok: false, message: `failed to substitute variables in context entry ${name} ${JSON.stringify(v.value)}: ${value.message}` };
    if (path !== '') {
      const r = queryOn(path, value.value);
      if (r.ok) output = r.value;
      else if (defaultValue === null) return { ok: false, message: `failed to apply jmespath ${path} to variable ${JSON.stringify(value.value)}: ${r.message}` };
    } else output = value.value;
  } else if (path !== '') {
    const r = env.query(path);
    // loaders/variable.go: a query on the context that yields nil keeps `default` (only this branch; a nil
    // from narrowing `value` replaces it). Chainsaw mutate-using-default-context relies on it.
    if (r.ok) {
      if (r.value !== null && r.value !== undefined) output = r.value;
    } else if (defaultValue === null) return { ok: false, message: `failed to apply jmespath ${path} to variable ${r.message}` };
  }
  if (output === null || output === undefined) return { ok: false, message: `unable to add context entry for variable ${name} since it evaluated to nil` };
  return { ok: true, value: output as JsonValue };
}

/**
 * loaders/imagedata.go fetchImageData: the reference and the jmesPath substituted, the image's data as the
 * registry client returns it, narrowed by the jmesPath. Offline the data comes from the runtime's image data;
 * an image it does not hold is unsupported offline, naming the image.
 */
function loadImageEntry(
  name: string,
  registry: JsonObject,
  env: SubstitutionEnv,
  queryOn: (expression: string, data: unknown) => QueryOutcome,
  imageData: ImageDataTable | undefined,
): Substituted<JsonValue> {
  const ref = substituteTree(registry.reference ?? '', env);
  if (!ref.ok) return { ok: false, message: `failed to substitute variables in context entry ${name} ${String(registry.reference)}: ${ref.message}` };
  if (typeof ref.value !== 'string') return { ok: false, message: `invalid image reference ${JSON.stringify(ref.value)}, image reference must be a string` };
  let path = '';
  if (typeof registry.jmesPath === 'string' && registry.jmesPath !== '') {
    const jp = substituteTree(registry.jmesPath, env);
    if (!jp.ok) return { ok: false, message: `failed to substitute variables in context entry ${name} ${registry.jmesPath}: ${jp.message}` };
    path = String(jp.value);
  }
  const data = registryClientData(imageData, ref.value);
  if (data === undefined) {
    return {
      ok: false,
      message: `${OFFLINE}: context entry "${name}" (imageRegistry) needs the metadata of image "${ref.value}" ${OUTSIDE_DATA.registry} (--image-data, or values file: policies[].rules[].values.${name}), which this run does not supply`,
    };
  }
  if (path === '') return { ok: true, value: data };
  const r = queryOn(path, data);
  if (!r.ok) return { ok: false, message: `failed to apply JMESPath (${path}) results to context entry ${name}, error: ${r.message}` };
  return { ok: true, value: (r.value ?? null) as JsonValue };
}
