/**
 * A test's `globalContextEntries` as `kyverno test` mocks them (cmd/cli/kubectl-kyverno/store: gctx_load.go
 * ResolveGCEResourceFiles, gctx_resolve.go ResolveGlobalContextMockData) and serves them to the CEL
 * `globalContext` library (pkg/cel/libs/fake_context.go GetGlobalReference). An entry's value is its inline
 * `resources` (or the objects of its `resourceFiles`, relative to the test's folder) as a list, else its
 * `data`; then `fieldPath` selects within it and `projections` make a map of named JMESPath results.
 */
import { diagnostic, fail, ok, type Result } from '../../../diagnostics/diagnostic.js';
import { hasOwn, isJsonObject, type JsonObject, type JsonValue } from '../../../ir/json.js';
import { compileJmes } from '../../../jmespath/index.js';
import { CelError } from '../../../cel/values.js';
import type { KyvernoDataProvider } from '../../../cel/lib/kyverno-context.js';
import { readSuiteDocs, type SuiteFiles } from './files.js';

/** The entries by name, resolved. */
export type GlobalContextEntries = ReadonlyMap<string, JsonValue>;

export function readGlobalContextEntries(files: SuiteFiles, test: string, raw: JsonValue | undefined): Result<GlobalContextEntries> {
  const out = new Map<string, JsonValue>();
  const entries = Array.isArray(raw) ? raw : [];
  for (let i = 0; i < entries.length; i++) {
    const entry = entries[i];
    const problem = (message: string): Result<GlobalContextEntries> => fail(diagnostic('TM7003', { phase: 'io', message: `${test}: globalContextEntries[${i}]: ${message}` }));
    if (!isJsonObject(entry) || typeof entry.name !== 'string') return problem('want a mapping with a name');
    const value = entryValue(files, entry);
    if (typeof value === 'string') return problem(`${JSON.stringify(entry.name)}: ${value}`);
    out.set(entry.name, value);
  }
  return ok(out);
}

/** The entry's resolved value, or why it has none. */
function entryValue(files: SuiteFiles, entry: JsonObject): JsonValue | string {
  let root: JsonValue;
  const resources = entryResources(files, entry);
  if (typeof resources === 'string') return resources;
  const projections = Array.isArray(entry.projections) ? entry.projections : [];
  if (resources !== undefined) root = resources;
  else if (entry.data === undefined || entry.data === null) {
    if (projections.length > 0) return 'data is required when projections are set';
    return null;
  } else root = entry.data;
  if (typeof entry.fieldPath === 'string' && entry.fieldPath !== '') {
    const found = search(entry.fieldPath, root);
    if (typeof found === 'string') return `fieldPath: ${found}`;
    root = found.value;
  }
  if (projections.length === 0) return root;
  const out: JsonObject = {};
  for (const p of projections) {
    if (!isJsonObject(p) || typeof p.name !== 'string' || p.name === '') return 'projection name must not be empty';
    const found = search(typeof p.path === 'string' ? p.path : '', root);
    if (typeof found === 'string') return `projection ${JSON.stringify(p.name)} path ${JSON.stringify(p.path)}: ${found}`;
    out[p.name] = found.value;
  }
  return out;
}

/** The entry's objects (`resourceFiles` read into `resources`), undefined when it has neither. */
function entryResources(files: SuiteFiles, entry: JsonObject): JsonValue[] | undefined | string {
  if (Array.isArray(entry.resourceFiles)) {
    const list: JsonValue[] = [];
    for (const name of entry.resourceFiles) {
      if (typeof name !== 'string') return 'resourceFiles: want file names';
      const docs = readSuiteDocs(files, name);
      if (!docs.ok) return `resourceFiles ${JSON.stringify(name)}: ${docs.diagnostics[0]?.message ?? 'unreadable'}`;
      // Empty documents are skipped.
      for (const d of docs.value) if (isJsonObject(d.value) && Object.keys(d.value).length > 0) list.push(d.value);
    }
    return list;
  }
  if (!Array.isArray(entry.resources)) return undefined;
  for (let i = 0; i < entry.resources.length; i++) if (!isJsonObject(entry.resources[i])) return `resources[${i}]: resource must be a JSON object`;
  return entry.resources;
}

function search(expression: string, root: JsonValue): { value: JsonValue } | string {
  const program = compileJmes(expression);
  if (!program.ok) return program.diagnostics[0]?.message ?? 'invalid JMESPath';
  const r = program.value.search(root);
  return r.ok ? { value: (r.value ?? null) as JsonValue } : r.error.message;
}

/**
 * An entry's projection as the CLI's mocks read it (fake_context.go GetGlobalReference, mock.go mockEntry.Get):
 * the whole value for `''`, else the key of its map value; undefined when the map lacks it or is no map.
 */
export function entryProjection(data: JsonValue, projection: string): JsonValue | undefined {
  if (projection === '') return data;
  return isJsonObject(data) && hasOwn(data, projection) ? data[projection] : undefined;
}

/** GetGlobalReference of the fake context provider: an unknown entry is null, a projection it lacks an error. */
export function globalContextOf(entries: GlobalContextEntries): NonNullable<KyvernoDataProvider['globalContext']> {
  return (name, projection) => {
    if (!entries.has(name)) return null;
    const data = entries.get(name)!;
    const found = entryProjection(data, projection);
    if (found !== undefined) return found;
    throw new CelError(`projection "${projection}" not found in global context entry "${name}"${isJsonObject(data) ? '' : ': stored value is not an object'}`);
  };
}
