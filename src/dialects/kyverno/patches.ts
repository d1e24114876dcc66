/**
 * A mutate block's patch as IR ops (pkg/engine/mutate/mutation.go: SMP wins when both are present, but policy
 * validation refuses that):
 * - `patchStrategicMerge` (and the legacy `overlay`) → `merge` at the object root with strategy `smp`, its
 *   value `templated` when it holds variables (substituted just before the merge, as upstream substitutes the
 *   rule right before patching);
 * - `patchesJson6902` → `jsonPatch` with the `kyverno` profile. Without variables the string is parsed here
 *   (JSON when it starts with `[`, YAML otherwise: patch/patchJSON6902.go); with variables it is substituted
 *   at evaluation time, bound to `$patch`, and parsed by Kyverno's `parse_yaml` (YAML reads the JSON form too);
 * - the legacy `patches` list → `jsonPatch` steps.
 */
import { parse as parseYaml } from 'yaml';
import type { Diagnostic } from '../../diagnostics/diagnostic.js';
import { isJsonObject, type JsonValue } from '../../ir/json.js';
import type { JsonPatchStep, Op, Origin } from '../../ir/nodes.js';
import type { YamlPath } from '../../io/source.js';
import type { Reader } from './reader.js';
import { rewriteAtHoles, treeHasVariables } from './variables.js';

export const PATCH_VARIABLE = '$patch';
const OPS = new Set(['add', 'remove', 'replace', 'move', 'copy', 'test']);

function steps(list: JsonValue, origin: Origin): JsonPatchStep[] | string {
  if (!Array.isArray(list)) return 'a JSON patch must be a list of operations';
  const out: JsonPatchStep[] = [];
  for (const s of list) {
    if (!isJsonObject(s) || typeof s.op !== 'string' || typeof s.path !== 'string') return `a JSON patch operation needs string "op" and "path": ${JSON.stringify(s)}`;
    if (!OPS.has(s.op)) return `unexpected JSON patch operation "${s.op}"`;
    const step: JsonPatchStep = { op: s.op as JsonPatchStep['op'], path: s.path, origin };
    if (typeof s.from === 'string') step.from = s.from;
    if (s.value !== undefined) step.value = { kind: 'literal', json: s.value, origin };
    out.push(step);
  }
  return out;
}

function parsePatchText(text: string): JsonValue | string {
  try {
    return (text.startsWith('[') ? JSON.parse(text) : parseYaml(text)) as JsonValue;
  } catch (e) {
    return `patchesJson6902 does not parse: ${e instanceof Error ? e.message.split('\n')[0] : String(e)}`;
  }
}

/**
 * The ops of the patch found under `at` (a rule's `mutate` or a foreach entry). `documentPrefix` is where the
 * patch sits in the document Kyverno substitutes, for `{{@}}`.
 */
export function patchOps(r: Reader, at: YamlPath, inForeach: boolean, diagnostics: Diagnostic[]): Op[] {
  const ops: Op[] = [];
  const root = { root: 'object' as const, segments: [] };
  for (const key of ['patchStrategicMerge', 'overlay']) {
    const patch = r.get([...at, key]);
    if (patch === undefined || patch === null) continue;
    const origin = r.origin([...at, key]);
    const prefix = inForeach ? ['patchStrategicMerge'] : ['mutate', 'patchStrategicMerge'];
    const json = rewriteAtHoles(patch, prefix);
    const value = treeHasVariables(json) ? { kind: 'templated' as const, language: 'kyverno' as const, json, origin } : { kind: 'literal' as const, json, origin };
    ops.push({ kind: 'merge', path: root, value, strategy: 'smp', origin });
    return ops;
  }
  const text = r.get([...at, 'patchesJson6902']);
  if (text !== undefined && text !== null) {
    const origin = r.origin([...at, 'patchesJson6902']);
    if (typeof text !== 'string') {
      diagnostics.push(r.error('TM2002', 'patchesJson6902 must be a string', [...at, 'patchesJson6902']));
      return ops;
    }
    if (!treeHasVariables(text)) {
      const parsed = parsePatchText(text);
      const s = typeof parsed === 'string' ? parsed : steps(parsed, origin);
      if (typeof s === 'string') diagnostics.push(r.error('TM2002', s, [...at, 'patchesJson6902']));
      else ops.push({ kind: 'jsonPatch', steps: s, profile: 'kyverno', origin });
      return ops;
    }
    ops.push({ kind: 'let', name: PATCH_VARIABLE, value: { kind: 'templated', language: 'kyverno', json: text, origin }, origin });
    ops.push({
      kind: 'jsonPatch',
      steps: [],
      stepsFrom: { kind: 'jmes', expr: { text: `parse_yaml("${PATCH_VARIABLE}")`, origin }, origin },
      profile: 'kyverno',
      origin,
    });
    return ops;
  }
  const legacy = r.get([...at, 'patches']);
  if (legacy !== undefined && legacy !== null) {
    const origin = r.origin([...at, 'patches']);
    const s = steps(legacy, origin);
    if (typeof s === 'string') diagnostics.push(r.error('TM2002', s, [...at, 'patches']));
    else if (treeHasVariables(legacy)) {
      ops.push({ kind: 'jsonPatch', steps: [], stepsFrom: { kind: 'templated', language: 'kyverno', json: legacy, origin }, profile: 'kyverno', origin });
    } else ops.push({ kind: 'jsonPatch', steps: s, profile: 'kyverno', origin });
  }
  return ops;
}

/** Which patch kinds a mutate block or foreach entry sets. */
export function patchKinds(r: Reader, at: YamlPath): string[] {
  return ['patchStrategicMerge', 'overlay', 'patchesJson6902', 'patches'].filter((k) => {
    const v = r.get([...at, k]);
    return v !== undefined && v !== null;
  });
}
