/**
 * `mutate.foreach[]` as IR loops (pkg/engine/handlers/mutation: mutateForEach / mutateElements):
 * - `list` is a JMESPath expression queried directly (no `{{ }}` substitution, kyverno#7537);
 * - the default order is Descending for a strategic-merge entry and Ascending otherwise; `order` overrides;
 * - `elementIndex` is the element's original index whichever the order; null elements are skipped;
 * - per element: `element`/`elementIndex` (and `element<N>`/`elementIndex<N>` for nesting level N), then the
 *   entry's context, then its preconditions, then its nested foreach or its patch;
 * - validation (pkg/policy/mutate/validate.go): an entry needs exactly one of a patch or a nested foreach, and
 *   an entry with a nested foreach has no context, preconditions or patch.
 * Entries run in order, each on the result of the one before.
 */
import type { Diagnostic } from '../../diagnostics/diagnostic.js';
import { isJsonObject } from '../../ir/json.js';
import type { ForEachOp, Op } from '../../ir/nodes.js';
import type { YamlPath } from '../../io/source.js';
import { contextLets, type ContextData } from './context.js';
import { patchKinds, patchOps } from './patches.js';
import { preconditionsGuard } from './preconditions.js';
import type { Reader } from './reader.js';

export interface ForEachOptions {
  data: ContextData;
  /** Bind `element<N>`/`elementIndex<N>` too (only when the rule mentions them: they cost a binding each). */
  numbered: boolean;
}

export function forEachOps(r: Reader, at: YamlPath, depth: number, opts: ForEachOptions, diagnostics: Diagnostic[]): Op[] {
  const ops: Op[] = [];
  r.list(at).forEach((entry, i) => {
    const p = [...at, i];
    if (!isJsonObject(entry)) {
      diagnostics.push(r.error('TM2002', 'a foreach entry must be a map', p));
      return;
    }
    const op = forEachEntry(r, p, depth, opts, diagnostics);
    if (op) ops.push(op);
  });
  return ops;
}

function forEachEntry(r: Reader, p: YamlPath, depth: number, opts: ForEachOptions, diagnostics: Diagnostic[]): ForEachOp | undefined {
  const origin = r.origin(p);
  const list = r.string([...p, 'list']);
  if (list === undefined || list.trim() === '') {
    diagnostics.push(r.error('TM2005', 'foreach entry needs a list', p));
    return undefined;
  }
  const kinds = patchKinds(r, p);
  const nested = r.get([...p, 'foreach']);
  const hasNested = Array.isArray(nested);
  if (hasNested && (kinds.length > 0 || r.get([...p, 'context']) !== undefined || r.get([...p, 'preconditions']) !== undefined)) {
    diagnostics.push(r.error('TM2004', 'a foreach with a nested foreach cannot have context, preconditions or patches', p));
    return undefined;
  }
  if (!hasNested && kinds.length !== 1) {
    diagnostics.push(r.error('TM2004', 'only one of patchStrategicMerge or patchesJson6902 is allowed in a foreach entry', p));
    return undefined;
  }
  const order = r.string([...p, 'order']);
  const strategic = kinds.includes('patchStrategicMerge') || kinds.includes('overlay');
  const desc = order === 'Descending' ? true : order === 'Ascending' ? false : strategic;

  const body: Op[] = [];
  if (opts.numbered) {
    body.push({ kind: 'let', name: `element${depth}`, value: { kind: 'ref', path: { root: 'vars', segments: [{ kind: 'field', name: 'element' }] }, origin }, origin });
    body.push({ kind: 'let', name: `elementIndex${depth}`, value: { kind: 'ref', path: { root: 'vars', segments: [{ kind: 'field', name: 'elementIndex' }] }, origin }, origin });
  }
  body.push(...contextLets(r, [...p, 'context'], opts.data, diagnostics));
  const work = hasNested ? forEachOps(r, [...p, 'foreach'], depth + 1, opts, diagnostics) : patchOps(r, p, true, diagnostics);
  const guard = preconditionsGuard(r, [...p, 'preconditions'], diagnostics);
  if (guard) body.push({ kind: 'when', guard, then: work, origin: guard.origin });
  else body.push(...work);

  const element = { root: 'vars' as const, segments: [{ kind: 'field' as const, name: 'element' }] };
  return {
    kind: 'forEach',
    list: { kind: 'jmes', expr: { text: list, origin: r.origin([...p, 'list']) }, origin: r.origin([...p, 'list']) },
    bind: 'element',
    indexBind: 'elementIndex',
    order: desc ? 'desc' : 'asc',
    // mutateElements: `if element == nil { continue }`.
    body: [{ kind: 'when', guard: { kind: 'neq', path: element, value: { kind: 'literal', json: null, origin }, origin }, then: body, origin }],
    origin,
  };
}
