/**
 * The current node of a JMESPath evaluation, as the compiler sees it. At the top of an expression it is
 * Kyverno's whole context (`root`), which has no CEL value of its own: its fields are what the caller's
 * scope binds. Fields of a structured binding are resolved statically (`request.operation` →
 * `request.operation`); a binding that is plain CEL, and every computed value, is a dynamic fragment.
 */
import { chain, type Mode } from './access.js';
import type { Binding, Cx } from './context.js';
import { bindAll, cond, external, fail, frag, NULL, op, strFrag, type Frag } from './frag.js';
import { cannot, yet } from './refuse.js';
import { requestPathType } from './request-type.js';

/** A binding reached by a field access remembers that access's mode, for its value as a whole (asValue). */
export type Cur = { kind: 'root' } | { kind: 'binding'; b: Binding; path: string; mode?: Mode } | { kind: 'value'; f: Frag };

export const ROOT: Cur = { kind: 'root' };

export function valueCur(f: Frag): Cur {
  return { kind: 'value', f };
}

/**
 * A Kyverno context root the scope does not bind: refused where Kyverno would have had a value for it;
 * otherwise absent, as in Kyverno's context (a context entry of another rule is not carried over: the engine
 * restores its context checkpoint between rules), which the fork reads as a missing key of the context map:
 * NotFound in strict mode, null in lenient mode.
 */
function unboundRoot(name: string, mode: Mode, cx: Cx): Frag {
  if (PREDEFINED_ROOTS.has(name) || /^element(Index)?\d*$/.test(name) || cx.scope.absent?.(name) !== true) rootRefusal(name, cx);
  cx.notes.add(`\`${name}\` is read as absent from Kyverno's context (no context entry of the rule binds it), as Kyverno reads it at admission; a value given by a kyverno-test values file has no counterpart`);
  return mode === 'strict' ? fail(`Unknown key "${name}" in path: no context entry of the rule binds it`) : NULL;
}

/** Roots Kyverno's engine fills itself (pkg/engine/context): never absent where the rule could read them. */
const PREDEFINED_ROOTS = new Set(['request', 'images', 'serviceAccountName', 'serviceAccountNamespace', 'target']);

/** Why a Kyverno context root the scope does not bind has no CEL counterpart. */
function rootRefusal(name: string, cx: Cx): never {
  const env = cx.caps.env === 'map' ? 'MutatingAdmissionPolicy' : 'Kyverno MutatingPolicy';
  if (name === 'images') yet(`\`images\` (Kyverno's parsed image references of the request object) is not bound in the ${env} CEL environment; it would have to be derived from the object's containers`);
  if (name === 'serviceAccountName' || name === 'serviceAccountNamespace') {
    yet(`\`${name}\` is not bound in the ${env} CEL environment; Kyverno derives it from request.userInfo.username ("system:serviceaccount:<namespace>:<name>")`);
  }
  if (/^element(Index)?\d*$/.test(name)) cannot(`\`${name}\` is only defined inside a Kyverno foreach, and no foreach binds it here`);
  if (name === 'target') cannot(`\`target\` (the mutateExisting target) has no counterpart in the ${env} CEL environment`);
  cannot(`the Kyverno context variable \`${name}\` is not available in the ${env} CEL environment`);
}

/** The CEL value of a node; the whole context and bindings without CEL text have none. */
export function asValue(cur: Cur, cx: Cx): Frag {
  switch (cur.kind) {
    case 'value':
      return cur.f;
    case 'root':
      return cannot('the whole Kyverno context (`@` at the top of an expression, `*`, or a function of it) has no CEL value');
    case 'binding':
      if ('keyed' in cur.b) {
        if (cur.b.whole !== undefined) return cur.b.whole(cur.mode ?? 'strict', cx);
        return yet(`\`${cur.b.what}\` as a whole (only its entries, looked up by name, are compiled)`);
      }
      // The caller's type, else the one Kyverno guarantees for a request field (request-type.ts).
      if (cur.b.cel !== undefined) return external(cur.b.cel, cur.b.type ?? requestPathType(cur.path));
      return cannot(`\`${cur.path}\` as a whole has no CEL value in the ${cx.caps.env === 'map' ? 'MutatingAdmissionPolicy' : 'Kyverno MutatingPolicy'} environment (only some of its fields are bound)`);
  }
}

/** `cur.name`: static for the context and structured bindings, a guarded select otherwise. */
export function fieldOf(cur: Cur, name: string, mode: Mode, cx: Cx): Cur {
  const dynamic = cx.dynamicKeys?.get(name);
  if (cur.kind === 'binding' && 'keyed' in cur.b) return valueCur(cur.b.keyed(dynamic ?? strFrag(name), mode, cx));
  if (dynamic !== undefined) {
    if (cur.kind !== 'value') yet('a field named by an inner `{{ }}` hole, other than a container name of `images`');
    return valueCur(dynamicField(cur.f, dynamic, mode, cx));
  }
  if (cur.kind === 'root') {
    const b = cx.scope.root(name);
    if (b === undefined) return valueCur(unboundRoot(name, mode, cx));
    return { kind: 'binding', b, path: name };
  }
  if (cur.kind === 'binding' && 'fields' in cur.b) {
    const sub = cur.b.fields[name];
    if (sub === undefined) {
      const env = cx.caps.env === 'map' ? 'MutatingAdmissionPolicy' : 'Kyverno MutatingPolicy';
      cannot(`\`${cur.path}.${name}\` is not available in the ${env} CEL environment`);
    }
    return { kind: 'binding', b: sub, path: `${cur.path}.${name}`, mode };
  }
  return valueCur(chain(asValue(cur, cx), [{ kind: 'field', name }], mode, cx));
}

export function isStatic(cur: Cur): boolean {
  return cur.kind === 'root' || (cur.kind === 'binding' && ('fields' in cur.b || 'keyed' in cur.b));
}

/**
 * `v."<text>"`: the field named by a runtime text (an inner hole in a quoted identifier). A missing key (or a
 * value that is no map) is Kyverno's NotFound: an error in strict mode, null in lenient mode.
 */
function dynamicField(v: Frag, key: Frag, mode: Mode, cx: Cx): Frag {
  return bindAll([v, key], cx.names, ([m, k]) => {
    const present = `type(${m!.cel}) == map && ${op(k!)} in ${m!.cel}`;
    return cond(present, frag(`${m!.cel}[${k!.cel}]`, 'dyn', { atom: true }), mode === 'strict' ? fail('Unknown key named by an inner hole') : NULL);
  });
}
