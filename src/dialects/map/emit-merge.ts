/**
 * A merge of a literal map (Kyverno strategic merge / JSON merge patch) as path ops, one per leaf: a scalar
 * (or, for a JSON merge patch, a list) is set, `null` removes, an empty map is created only where missing
 * (merging nothing into an existing map changes nothing). Strategic-merge lists depend on patch strategies
 * and keys per field, so they are not decomposed. Each leaf becomes its own mutation, so a later leaf sees
 * the parents an earlier one created.
 */
import { isJsonObject, type JsonValue } from '../../ir/json.js';
import type { MergeOp, Op } from '../../ir/nodes.js';
import type { Segment } from '../../ir/path.js';

export function mergeLeaves(op: MergeOp): Op[] | string {
  if (op.value.kind !== 'literal') return `a merge of a ${op.value.kind} value`;
  if (!isJsonObject(op.value.json)) return 'a merge of a value that is not a map';
  const out: Op[] = [];
  const walk = (v: JsonValue, segs: Segment[]): string | undefined => {
    if (isJsonObject(v)) {
      const keys = Object.keys(v);
      if (keys.length === 0 && segs.length > 0) {
        const last = segs[segs.length - 1]!;
        if (last.kind !== 'field') return 'an empty map below a list';
        out.push({ kind: 'set', path: { root: op.path.root, segments: [...segs.slice(0, -1), { kind: 'field', name: last.name, test: 'notExist' }] }, value: { kind: 'literal', json: {}, origin: op.origin }, origin: op.origin });
        return undefined;
      }
      for (const k of keys) {
        if (op.strategy === 'smp' && (k.startsWith('$') || /^[+=<^X]\(.*\)$/.test(k))) return `the strategic-merge directive or anchor ${JSON.stringify(k)}`;
        const r = walk(v[k]!, [...segs, { kind: 'field', name: k }]);
        if (r) return r;
      }
      return undefined;
    }
    if (Array.isArray(v) && op.strategy !== 'json') return `a list in a strategic merge patch (merged by the field's patch strategy) at ${segs.map((s) => (s.kind === 'field' ? s.name : '[]')).join('.')}`;
    if (v === null) out.push({ kind: 'remove', path: { root: op.path.root, segments: segs }, origin: op.origin });
    else out.push({ kind: 'set', path: { root: op.path.root, segments: segs }, value: { kind: 'literal', json: v, origin: op.origin }, origin: op.origin });
    return undefined;
  };
  const why = walk(op.value.json, [...op.path.segments]);
  return why ?? out;
}
