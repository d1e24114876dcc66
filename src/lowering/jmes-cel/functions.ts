/**
 * Function calls. A call is evaluated as go-jmespath's functionCaller does: every argument first (NotFound
 * swallowed into null, other errors propagated), then arity, then each argument's declared types, then the
 * function. In CEL the arguments are bound in order (so their errors surface even where the function would
 * not read them), the signature becomes type tests on the bound values, and the function's emitter only
 * sees well-typed arguments. The table of functions (one entry per Kyverno/JMESPath function, with its
 * status per environment) is FUNCTIONS; docs/jmespath-to-cel.md is generated from it.
 */
import type { JmesNode } from '../../jmespath/ast.js';
import { KYVERNO_FUNCTIONS } from '../../jmespath/index.js';
import type { Cx } from './context.js';
import { bindAll, cond, fail, NULL, tyOf, withTy, type Frag } from './frag.js';
import { nonNull } from './types.js';
import { ARITHMETIC } from './fn-arith.js';
import { DATA } from './fn-data.js';
import { OTHER } from './fn-other.js';
import { REGEX } from './fn-regex.js';
import { STANDARD } from './fn-standard.js';
import { STRINGS } from './fn-strings.js';
import { cannot, yet } from './refuse.js';
import { valueCur, type Cur } from './scope.js';
import { arityError, typesOk, type Arg } from './signature.js';
import type { FnDef, Status } from './table.js';

export const FUNCTIONS: readonly FnDef[] = [...STANDARD, ...STRINGS, ...REGEX, ...ARITHMETIC, ...DATA, ...OTHER];

const BY_NAME = new Map(FUNCTIONS.map((f) => [f.name, f]));

export function functionDef(name: string): FnDef | undefined {
  return BY_NAME.get(name);
}

/** The status of a function in the target, with the version requirement applied. */
export function statusIn(def: FnDef, cx: Pick<Cx, 'caps'>): Status {
  if (cx.caps.env === 'kyverno-mpol') return def.mpol;
  if (def.mapSince && cx.caps.minor < def.mapSince.minor) return { kind: 'cannot', why: `${def.mapSince.why} (Kubernetes 1.${def.mapSince.minor}+, target 1.${cx.caps.minor})` };
  return def.map;
}

export interface ArgCompiler {
  value(node: JmesNode, cur: Cur): Frag;
}

/**
 * `soft`: the call is the whole operand of a flatten, filter or value projection, which turn any error of
 * their operand into null; a signature mismatch then yields null instead of failing.
 */
export function compileCall(node: Extract<JmesNode, { type: 'Function' }>, cur: Cur, cx: Cx, c: ArgCompiler, soft = false): Frag {
  const { name } = node;
  const spec = KYVERNO_FUNCTIONS.get(name);
  const args: Arg[] = node.children.map((n, i) => (n.type === 'ExpressionReference' ? { kind: 'ref', index: i } : { kind: 'value', f: c.value(n, cur) }));
  const def = BY_NAME.get(name);
  if (spec !== undefined && !soft) {
    const refusesNull = new Set<number>();
    args.forEach((a, i) => {
      if (a.kind !== 'value') return;
      const declared = spec.args.length === 0 ? undefined : spec.args[Math.min(i, spec.args.length - 1)];
      const checked = declared !== undefined && (i < spec.args.length || !spec.variadic || spec.checkVariadic);
      if (!checked || declared.includes('any')) return;
      refusesNull.add(i);
      // The signature refuses null, so Kyverno fails where the argument is null: a form that fails there too
      // (the plain path of an optional one) is as exact; and where the emitted CEL itself fails on null
      // (def.nullFails), the argument's null needs no test either.
      const arrayOf = declared.some((t) => t === 'array[string]' || t === 'array[number]');
      const f = (arrayOf ? a.f.itemsOrFail : undefined) ?? a.f.orFail ?? a.f;
      args[i] = { kind: 'value', f };
    });
    const stripped = args.map((a, i) => (a.kind === 'value' && refusesNull.has(i) && tyOf(a.f).k === 'nullable' ? withTy(a.f, nonNull(tyOf(a.f))) : undefined));
    const values = args.map((a, i) => (a.kind === 'value' ? (stripped[i] ?? a.f) : NULL));
    const fails = typeof def?.nullFails === 'function' ? def.nullFails(values) : def?.nullFails === true;
    if (fails) stripped.forEach((f, i) => f && (args[i] = { kind: 'value', f }));
  }
  const values = args.flatMap((a) => (a.kind === 'value' ? [a.f] : []));
  if (spec === undefined) {
    // Kyverno fails every evaluation of an unknown function (after evaluating its arguments).
    cx.notes.add(`unknown function ${name}(): Kyverno fails on every evaluation, and so does the CEL`);
    return bindAll(values, cx.names, () => fail(`Unknown function: ${name}`));
  }
  if (def === undefined) yet(`the function ${name}() has no entry in the JMESPath-to-CEL table`);
  const status = statusIn(def, cx);
  if (status.kind === 'cannot') cannot(`${name}(): ${status.why}`);
  if (status.kind === 'yet') yet(`${name}(): ${status.why}`);
  if (def.emit === undefined) yet(`${name}() has no CEL emitter`);
  const arity = arityError(spec, args.length);
  if (arity !== undefined) return bindAll(values, cx.names, () => (soft ? NULL : fail(`${name}(): ${arity}`)));
  const emit = def.emit;
  return bindAll(values, cx.names, (bound) => {
    let k = 0;
    const boundArgs: Arg[] = args.map((a) => (a.kind === 'value' ? { kind: 'value', f: bound[k++]! } : a));
    const ok = typesOk(spec, boundArgs);
    const mismatch = soft ? NULL : fail(`${name}(): invalid type of argument`);
    if (ok === false) return mismatch;
    const site = {
      cx,
      nodes: node.children,
      ref: (index: number, item: Frag): Frag => {
        const ref = node.children[index];
        if (ref?.type !== 'ExpressionReference') return NULL;
        return c.value(ref.children[0], valueCur(item));
      },
    };
    // Expression references are passed positionally as null placeholders; emitters read them through site.ref.
    const positional = boundArgs.map((a) => (a.kind === 'value' ? a.f : NULL));
    const body = emit(positional, site);
    if (ok === true) return body;
    return cond(ok, body, mismatch);
  });
}
