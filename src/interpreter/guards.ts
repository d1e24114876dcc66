import { jsonEqual, type JsonValue } from '../ir/json.js';
import type { Guard } from '../ir/nodes.js';
import { printGuard } from '../ir/print.js';
import { wildcardMatch } from '../k8s/glob.js';
import { exprEvaluator } from './expressions.js';
import { evalFailure } from './failure.js';
import { readFirst } from './read.js';
import type { Scope } from './scope.js';
import type { EvalState } from './state.js';
import { compileValue } from './values.js';

/**
 * A compiled guard. Guards are three-valued in the IR (a comparison on a missing path is undefined), and, as
 * in OPA, undefined acts as false everywhere, including under `not`'s argument being undefined (not → true).
 */
export type GuardFn = (st: EvalState, scope: Scope) => boolean;

/** The guards that read one path and test what they find. */
export type PathGuard = Extract<Guard, { kind: 'exists' | 'notExists' | 'eq' | 'neq' | 'in' | 'notIn' | 'match' }>;

/**
 * @param pathGuard another way to build a path-reading guard (src/compile's generated readers), used where it
 *   returns one; `and`, `or` and `not` pass it on to their arguments.
 */
export function compileGuard(g: Guard, pathGuard?: (g: PathGuard) => GuardFn | undefined): GuardFn {
  const special = pathGuard && isPathGuard(g) ? pathGuard(g) : undefined;
  if (special) return special;
  const sub = (x: Guard): GuardFn => compileGuard(x, pathGuard);
  switch (g.kind) {
    case 'exists':
      return (st, scope) => readFirst(st, g.path, scope) !== undefined;
    case 'notExists':
      return (st, scope) => readFirst(st, g.path, scope) === undefined;
    case 'eq':
    case 'neq': {
      const value = compileValue(g.value);
      const want = g.kind === 'eq';
      return (st, scope) => {
        const found = readFirst(st, g.path, scope);
        if (found === undefined) return false;
        return jsonEqual(found, value(st, scope)) === want;
      };
    }
    case 'in':
    case 'notIn': {
      const values = g.values.map(compileValue);
      const want = g.kind === 'in';
      return (st, scope) => {
        const found = readFirst(st, g.path, scope);
        if (found === undefined) return false;
        return values.some((v) => jsonEqual(found, v(st, scope))) === want;
      };
    }
    case 'match': {
      const pattern = g.pattern;
      return (st, scope) => {
        const found = readFirst(st, g.path, scope);
        return typeof found === 'string' && wildcardMatch(pattern, found);
      };
    }
    case 'and': {
      const args = g.args.map(sub);
      return (st, scope) => args.every((a) => a(st, scope));
    }
    case 'or': {
      const args = g.args.map(sub);
      return (st, scope) => args.some((a) => a(st, scope));
    }
    case 'not': {
      const arg = sub(g.arg);
      return (st, scope) => !arg(st, scope);
    }
    case 'const': {
      const value = g.value;
      return () => value;
    }
    case 'cel':
    case 'jmes': {
      const evaluate = exprEvaluator(g.kind, g.expr);
      return (st, scope) => {
        const r: JsonValue | undefined = evaluate(st, scope);
        if (typeof r !== 'boolean') {
          throw evalFailure('TM3003', `guard expression must evaluate to a boolean, got ${r === undefined ? 'nothing' : JSON.stringify(r)}`, g.origin);
        }
        return r;
      };
    }
  }
}

/** A guard in the IR text form, for traces: `exists object.metadata.labels`. */
export function describeGuard(g: Guard): string {
  return printGuard(g);
}

function isPathGuard(g: Guard): g is PathGuard {
  return g.kind === 'exists' || g.kind === 'notExists' || g.kind === 'eq' || g.kind === 'neq' || g.kind === 'in' || g.kind === 'notIn' || g.kind === 'match';
}
