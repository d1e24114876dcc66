/**
 * A suite entry about a mutate-existing rule, read as a MutatingPolicy's entry. The Kyverno CLI checks the two
 * differently: for a ClusterPolicy's `mutate.targets` rule an entry naming a trigger (or none) checks the targets
 * the trigger reached against `patchedResources`; for a MutatingPolicy with `evaluation.mutateExisting` it checks
 * the trigger's own admission there, and a target only when the entry names it (commands/test output.go,
 * src/dialects/kyverno/test-suite/mutate-existing.ts). So the migrated entry names the targets the source entry
 * expected patched: the test's `targetResources` that its patched file holds.
 */
import { readSuiteDocs } from '../dialects/kyverno/test-suite/files.js';
import { withDefaultNamespace } from '../dialects/kyverno/test-suite/request.js';
import { kindOf, metadataOf } from '../dialects/kyverno/test-suite/select.js';
import { isJsonObject, type JsonObject, type JsonValue } from '../ir/json.js';

/** The objects of the files `paths` of the suite in `dir`, as the test runner reads them; undefined when one cannot be read. */
function objectsOf(dir: string, paths: readonly JsonValue[]): JsonObject[] | undefined {
  const out: JsonObject[] = [];
  for (const p of paths) {
    if (typeof p !== 'string') return undefined;
    const read = readSuiteDocs({ dir, display: dir }, p);
    if (!read.ok) return undefined;
    for (const d of read.value) if (isJsonObject(d.value)) out.push(d.value);
  }
  return out;
}

/** kind/namespace/name, with the namespace a namespaced kind defaults to in a suite. */
function identity(o: JsonObject): string {
  const md = metadataOf(withDefaultNamespace(o));
  return JSON.stringify([kindOf(o), md.namespace ?? '', md.name ?? '']);
}

/**
 * The `kind` and `resources` the MutatingPolicy entry for `entry` names: the targets of `test` (the suite
 * document, read from `suiteDir`) that the entry's patched file holds, all of one kind; undefined when the entry
 * has no patched file, the file holds no target, or targets of several kinds (one entry names one kind).
 */
export function existingTargetsEntry(entry: JsonObject, test: JsonObject, suiteDir: string): { kind: string; resources: string[] } | undefined {
  const patchedPath = entry.patchedResources ?? entry.patchedResource;
  const targetPaths = typeof test.targetResources === 'string' ? [test.targetResources] : Array.isArray(test.targetResources) ? test.targetResources : [];
  if (typeof patchedPath !== 'string' || targetPaths.length === 0) return undefined;
  const targets = objectsOf(suiteDir, targetPaths);
  const patched = objectsOf(suiteDir, [patchedPath]);
  if (targets === undefined || patched === undefined) return undefined;
  const expected = new Set(patched.map(identity));
  const named = targets.filter((t) => expected.has(identity(t)));
  const kinds = new Set(named.map(kindOf));
  if (named.length === 0 || kinds.size !== 1) return undefined;
  const resources = named.map((t) => {
    const md = metadataOf(t);
    const name = typeof md.name === 'string' ? md.name : '';
    return typeof md.namespace === 'string' && md.namespace !== '' ? `${md.namespace}/${name}` : name;
  });
  return { kind: [...kinds][0]!, resources: [...new Set(resources)] };
}
