/**
 * A Kyverno `patchesJson6902` with literal steps on field-only paths, raised to path operations (reference
 * kyverno.md §1.10: evanphx/json-patch v5 with EnsurePathExistsOnAdd and AllowMissingPathOnRemove):
 * - `add /a/b` → `set a.b`: missing parents are created as maps (a segment is created as a list only when
 *   the next one is numeric or `-`, which a field-only path never has), an existing value is replaced;
 * - `remove /a/b` → `remove a.b`: a missing path is ignored, as `remove` ignores it.
 * A step on a path with a numeric segment (a list index or a map key, depending on the object), `-`, the
 * whole document, or `replace` (a missing path is an error), `move`, `copy`, `test` keeps the whole patch as
 * it is; so does a patch computed at evaluation time. Steps run in order, as the ops do.
 *
 * Exactness holds for objects whose parents along the paths are maps or absent (every object of a known
 * schema): Kyverno replaces an explicit null parent on add and ignores a non-map parent on remove, where a
 * path operation errors.
 */
import type { JsonPatchOp, JsonPatchStep, Op } from '../ir/nodes.js';
import type { Segment } from '../ir/path.js';
import { rewritePolicies } from './rewrite.js';
import type { Raising } from './index.js';

const NUMERIC = /^-?\d+$/;

/** The field segments of a JSON pointer, or undefined when a segment could address a list. */
export function fieldPointer(pointer: string): Segment[] | undefined {
  if (!pointer.startsWith('/')) return undefined;
  const parts = pointer.slice(1).split('/').map((p) => p.replaceAll('~1', '/').replaceAll('~0', '~'));
  if (parts.some((p) => p === '-' || NUMERIC.test(p))) return undefined;
  // RFC 6901: `~` must be followed by 0 or 1; evanphx refuses other escapes.
  if (pointer.split('/').some((p) => /~(?![01])/.test(p))) return undefined;
  return parts.map((name) => ({ kind: 'field', name }));
}

function raiseStep(step: JsonPatchStep): Op | undefined {
  const segments = fieldPointer(step.path);
  if (!segments) return undefined;
  const path = { root: 'object' as const, segments, origin: step.origin };
  if (step.op === 'add' && step.value?.kind === 'literal') return { kind: 'set', path, value: step.value, origin: step.origin };
  if (step.op === 'remove') return { kind: 'remove', path, origin: step.origin };
  return undefined;
}

export function raiseJsonPatchOp(op: JsonPatchOp): Op[] | undefined {
  if (op.profile !== 'kyverno' || op.stepsFrom !== undefined || op.steps.length === 0) return undefined;
  const ops: Op[] = [];
  for (const step of op.steps) {
    const raised = raiseStep(step);
    if (!raised) return undefined;
    ops.push(raised);
  }
  return ops;
}

export const raiseKyvernoJsonPatch: Raising = (policies) => rewritePolicies(policies, (op) => (op.kind === 'jsonPatch' ? raiseJsonPatchOp(op) : undefined));
