/**
 * Gatekeeper's `--mutation-annotations` in a CEL policy (pkg/mutation/system.go Mutate, annotations.go): when
 * the mutation system changed an object it writes `gatekeeper.sh/mutation-id`, a fresh UUID, and
 * `gatekeeper.sh/mutations`, the mutators applied (`Kind/namespace/name:generation`). For one mutator that
 * reaches its fix-point in one pass, that is: if the mutator's write would change the object, both
 * annotations, written before the mutator's own mutations (Gatekeeper's pass never sees them: only a write
 * of its own annotations could tell, and such a mutator is refused). The id is `request.uid`, the UUID the API
 * server gives each admission request: Kyverno's MutatingPolicy reads it; MAP's CEL request has no uid.
 */
import type { Guard, Op } from '../../ir/nodes.js';
import type { MutationAnnotations } from '../dialect.js';
import type { Path } from '../../ir/path.js';
import { MUTATION_ID_ANNOTATION, MUTATIONS_ANNOTATION, mutatorString } from '../gatekeeper/annotations.js';
import { celString, paren } from './emit-cel.js';
import { emitGuard, emitValue, readPath } from './emit-value.js';


/**
 * A CEL test that `op` (under `guards`) would change the object, or why it cannot be written: the guards and
 * the path's tests hold, and the value is not already there.
 */
export function changeTest(op: Op, guards: readonly Guard[]): string | { why: string } {
  if (op.kind !== 'set' && op.kind !== 'setMembers') return { why: `a ${op.kind} write` };
  const place = placeOf(op.path);
  if ('why' in place) return place;
  if (place.annotations) return { why: `a write to the annotations ${MUTATION_ID_ANNOTATION} or ${MUTATIONS_ANNOTATION} themselves` };
  const parts: string[] = [];
  for (const g of guards) {
    const e = emitGuard(g);
    if ('why' in e) return e;
    parts.push(paren(e.cel));
  }
  parts.push(...place.tests);
  const present = place.present.join(' && ');
  if (op.kind === 'set') {
    const v = emitValue(op.value);
    if ('why' in v) return v;
    parts.push(`!(${present} && ${place.expr} == ${v.cel})`);
  } else {
    const values: string[] = [];
    for (const x of op.values) {
      const v = emitValue(x);
      if ('why' in v) return v;
      values.push(v.cel);
    }
    // ModifySet merge adds what is missing, prune removes what is there (mutators/modifyset).
    const test = op.mode === 'merge' ? `!${present} || [${values.join(', ')}].exists(v, !(v in ${place.expr}))` : `${present} && [${values.join(', ')}].exists(v, v in ${place.expr})`;
    parts.push(`(${test})`);
  }
  return parts.join(' && ');
}

/** The read of a path of field segments: its value, the presence tests to read it, and its pathTests. */
function placeOf(path: Path): { expr: string; present: string[]; tests: string[]; annotations: boolean } | { why: string } {
  if (path.root !== 'object') return { why: `a write rooted at ${path.root}` };
  const r = readPath(path);
  if (typeof r === 'string') return { why: r };
  // A pathTest checks the segment as the walk reaches it (Gatekeeper core.go): MustExist / MustNotExist.
  const tests = path.segments.flatMap((s, i) => {
    const has = r.tests.slice(0, i + 1).join(' && ');
    return s.kind === 'field' && s.test ? [s.test === 'exist' ? `(${has})` : `!(${has})`] : [];
  });
  const names = path.segments.map((s) => (s.kind === 'field' ? s.name : ''));
  const annotations = names.length === 3 && names[0] === 'metadata' && names[1] === 'annotations' && (names[2] === MUTATION_ID_ANNOTATION || names[2] === MUTATIONS_ANNOTATION);
  return { expr: r.expr, present: r.tests, tests, annotations };
}

/** The ApplyConfiguration writing both annotations when `changes` holds. */
export function annotationMutation(changes: string, policyId: string, opts: MutationAnnotations): string {
  const annotations = `{${celString(MUTATION_ID_ANNOTATION)}: request.uid, ${celString(MUTATIONS_ANNOTATION)}: ${celString(mutatorString(policyId, opts.generation))}}`;
  return `${changes} ? Object{metadata: Object.metadata{annotations: ${annotations}}} : Object{}`;
}
