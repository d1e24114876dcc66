/**
 * Compile, don't interpret (issue 17): the policy compiler that specialises what pays into generated
 * JavaScript (path writes, path reads of guards, runs of literal sets) and keeps the closure interpreter
 * (src/interpreter, CLOSURES) for the rest. Its functions have the interpreter's contracts exactly, so the
 * same semantics (run-policy.ts, semantics.ts) run either; `apply(..., { interpret: true })` runs the
 * reference, and test/compile/ checks that both give the same results over the golden set and the corpora.
 */
import { jsonEqual, type JsonValue } from '../ir/json.js';
import type { Guard, Op, SetOp } from '../ir/nodes.js';
import type { Path } from '../ir/path.js';
import { wildcardMatch } from '../k8s/glob.js';
import type { OpCompiler } from '../interpreter/compile.js';
import { compileGuard, type GuardFn, type PathGuard } from '../interpreter/guards.js';
import { sequence } from '../interpreter/ops/block.js';
import { isFusableSet } from '../interpreter/ops/fused-sets.js';
import { compileImage } from '../interpreter/ops/image.js';
import { compileOp, type OpFn } from '../interpreter/ops/index.js';
import { compileRemove } from '../interpreter/ops/remove.js';
import { compileSetMembers } from '../interpreter/ops/set-members.js';
import { compileSet } from '../interpreter/ops/set.js';
import { compileValue } from '../interpreter/values.js';
import type { EvalState } from '../interpreter/state.js';
import { generateFusedSets } from './fused-sets.js';
import { generatePathReader, type PathReader } from './path-reader.js';
import { pathWalker } from './path-walker.js';
import { compileSmpForEach } from './smp-for-each.js';
import { conditionsGuard } from './conditions-guard.js';
import { withoutUnreadLets } from './unread-lets.js';
import { compileSharedLet } from './variable-reuse.js';

function walkerOf(path: Path) {
  return path.root === 'object' ? pathWalker(path.segments) : undefined;
}

function compileWhen(op: Extract<Op, { kind: 'when' }>): OpFn {
  const guard = GENERATED.guard(op.guard);
  const then = GENERATED.block(op.then);
  const otherwise = op.else ? GENERATED.block(op.else) : undefined;
  return (st, scope) => {
    if (guard(st, scope)) then(st, scope);
    else if (otherwise) otherwise(st, scope);
    return scope;
  };
}

function op(o: Op): OpFn {
  switch (o.kind) {
    case 'set':
      return compileSet(o, walkerOf(o.path));
    case 'remove':
      return compileRemove(o, walkerOf(o.path));
    case 'setMembers':
      return compileSetMembers(o, walkerOf(o.path));
    case 'image':
      return compileImage(o, walkerOf(o.path));
    case 'when':
      return compileWhen(o);
    case 'forEach':
      return compileSmpForEach(o, guard) ?? compileOp(o);
    case 'let':
      return (o.lazy === true ? compileSharedLet(o, compileValue(o.value)) : undefined) ?? compileOp(o);
    default:
      return compileOp(o);
  }
}

/**
 * A block as compileBlock (src/interpreter/ops/block.ts) makes it, with runs of literal sets generated and
 * lazy bindings nothing reads left out (unread-lets.ts).
 */
function block(all: readonly Op[]): OpFn {
  const ops = withoutUnreadLets(all);
  const fns: OpFn[] = [];
  for (let k = 0; k < ops.length; ) {
    let j = k;
    while (j < ops.length && isFusableSet(ops[j]!)) j++;
    const fused = j - k >= 2 ? generateFusedSets(ops.slice(k, j) as SetOp[]) : undefined;
    if (fused) {
      fns.push(fused);
      k = j;
    } else fns.push(op(ops[k++]!));
  }
  return sequence(fns);
}

const objectOf = (st: EvalState): JsonValue | undefined => st.object ?? undefined;

/**
 * A guard as compileGuard (src/interpreter/guards.ts) makes it, reading object paths with generated readers,
 * Kyverno preconditions evaluated against the object directly (conditions-guard.ts).
 */
function guard(g: Guard): GuardFn {
  const general = compileGuard(g, (p) => {
    const read = p.path.root === 'object' ? generatePathReader(p.path.segments) : undefined;
    return read ? pathGuard(p, read) : undefined;
  });
  return conditionsGuard(g, general) ?? general;
}

function pathGuard(g: PathGuard, read: PathReader): GuardFn {
  switch (g.kind) {
    case 'exists':
      return (st) => read(objectOf(st)) !== undefined;
    case 'notExists':
      return (st) => read(objectOf(st)) === undefined;
    case 'eq':
    case 'neq': {
      const value = compileValue(g.value);
      const want = g.kind === 'eq';
      return (st, scope) => {
        const found = read(objectOf(st));
        if (found === undefined) return false;
        return jsonEqual(found, value(st, scope)) === want;
      };
    }
    case 'in':
    case 'notIn': {
      const values = g.values.map(compileValue);
      const want = g.kind === 'in';
      return (st, scope) => {
        const found = read(objectOf(st));
        if (found === undefined) return false;
        return values.some((v) => jsonEqual(found, v(st, scope))) === want;
      };
    }
    case 'match': {
      const pattern = g.pattern;
      return (st) => {
        const found = read(objectOf(st));
        return typeof found === 'string' && wildcardMatch(pattern, found);
      };
    }
  }
}

/** The generating compiler; the closure interpreter's CLOSURES is the reference it is tested against. */
export const GENERATED: OpCompiler = Object.freeze({ name: 'generated', op, block, guard });
