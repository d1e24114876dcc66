import type { Origin } from '../../src/diagnostics/span.js';
import type { JsonValue } from '../../src/ir/json.js';
import type { Guard, Op, Policy, Semantics, Value } from '../../src/ir/nodes.js';
import type { Path, PathRoot, Segment } from '../../src/ir/path.js';

export const O: Origin = { dialect: 'test', file: 't.yaml', line: 1, col: 1, endLine: 1, endCol: 1 };

/** `p('object', 'metadata', 'labels')`; numbers are indices. */
export function p(root: PathRoot, ...segs: (string | number | Segment)[]): Path {
  return {
    root,
    segments: segs.map((s) => (typeof s === 'string' ? { kind: 'field', name: s } : typeof s === 'number' ? { kind: 'index', index: s } : s)),
  };
}

export const lit = (json: JsonValue): Value => ({ kind: 'literal', json, origin: O });
export const set = (path: Path, json: JsonValue | Value): Op => ({
  kind: 'set',
  path,
  value: typeof json === 'object' && json !== null && 'kind' in json && 'origin' in json ? (json as Value) : lit(json as JsonValue),
  origin: O,
});
export const remove = (path: Path): Op => ({ kind: 'remove', path, origin: O });
export const when = (guard: Guard, then: Op[], otherwise?: Op[]): Op => (otherwise ? { kind: 'when', guard, then, else: otherwise, origin: O } : { kind: 'when', guard, then, origin: O });
export const exists = (path: Path): Guard => ({ kind: 'exists', path, origin: O });

export function policy(id: string, body: Op[], semantics: Semantics = { order: 'sequential' }, guards: Guard[] = []): Policy {
  return { id, match: { globs: 'wildcard' }, guards, rules: [{ name: 'r', guards: [], body, origin: O }], semantics, origin: O };
}

export function deepFreeze<T>(v: T): T {
  if (v && typeof v === 'object') {
    for (const k of Object.keys(v)) deepFreeze((v as Record<string, unknown>)[k]);
    Object.freeze(v);
  }
  return v;
}
