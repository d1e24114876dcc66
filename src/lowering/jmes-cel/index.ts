/**
 * Kyverno JMESPath → CEL, for translating Kyverno ClusterPolicies to MutatingAdmissionPolicy
 * (kube-apiserver CEL) and to Kyverno's CEL MutatingPolicy.
 *
 * Fidelity is the contract: an accepted expression gives exactly what Kyverno gives (same value, same JSON
 * type, an error exactly where Kyverno errors), or carries `notes` naming the assumption under which it
 * does; a guard then makes the CEL fail at runtime where the assumption breaks, never giving a different
 * value (the one unguarded note: keys()/values()/`*` order, which Kyverno itself leaves random).
 * Anything else is refused with the construct and a class: `cannot` (the target has no way to express
 * it) or `yet` (expressible, not done by this compiler). docs/jmespath-to-cel.md lists every function.
 */
import { compileExpression, run } from './compile.js';
import { compileConditions } from './conditions.js';
import { compileTemplate, substitutedQueryFrag, type TemplateOptions } from './template.js';
export type { TemplateOptions } from './template.js';
import type { JmesCelScope } from './context.js';
import type { CelTarget } from './target.js';
import type { Ty } from './types.js';

export type { CelTarget } from './target.js';
export type { Binding, JmesCelScope } from './context.js';
export type Refusal = { ok: false; why: string; class: 'cannot' | 'yet' };
/** `type`: the JSON type of the value when the CEL yields one (dyn when nothing is known); see Types below. */
/** `mayFail`: the CEL may fail at runtime (where Kyverno's query fails, or a guard of the translation). */
export type Compiled = { ok: true; cel: string; notes: string[]; type: Ty; mayFail: boolean };

/*
 * Types. A binding may carry the JSON type its value is guaranteed to have (`{ cel, type }`, types.ts); the
 * compiler then writes the CEL a person would (`object.spec.containers`, `size(object.spec.containers)`,
 * `request.operation in ["CREATE", "UPDATE"]`) where the type makes that exact, and stays defensive where
 * it does not (test/lowering/jmes-cel/readability.test.ts shows both). Where the types come from:
 * - the request's fields: the compiler applies what Kyverno and the API server guarantee (REQUEST_TYPE,
 *   request-type.ts) to a request field bound without a type. A binding's own `type` wins: bind
 *   `operation` as `{ cel, type: T.dyn }` where an evaluation may have no operation (a background scan);
 * - `object` / `oldObject`: objectTypeOf(kinds) for the kinds the rule matches (schema-type.ts; a KindRef is
 *   a GVK whose group and version may be absent or `*`), bound as `{ cel: 'object', type: objectTypeOf(kinds) }`;
 *   a value that may be null (oldObject on CREATE, object on DELETE) as T.nullable(objectTypeOf(kinds));
 * - a foreach `element`: itemType(compiled.type) of the compilation of the foreach `list`, bound as
 *   `{ cel: 'e1', type: itemType(list.type) }`; `elementIndex` as `{ cel: 'i1', type: T.smallInt }`.
 * A type is a promise: on a value that breaks it the CEL may differ from Kyverno, so give only guarantees.
 */
export { T, itemType, fieldType, join as joinTypes, literalType, nonNull, typeText } from './types.js';
export type { Ty } from './types.js';
export { objectTypeOf, type KindRef } from './schema-type.js';
export { REQUEST_TYPE } from './request-type.js';
export { imagesBinding, imagesVariable } from './images.js';

/** One JMESPath expression (a `{{ }}` body, a foreach `list`, a context variable's `jmesPath`) as CEL. */
export function jmesToCel(expression: string, scope: JmesCelScope, target: CelTarget): Compiled | Refusal {
  return compileExpression(expression, scope, target);
}

/**
 * A Kyverno string that may hold {{ }} holes (Kyverno's scanner: nested inside-out, \{{ escapes, {{- }}
 * shallow): exactly one hole keeps the JSON type; otherwise the string concatenation Kyverno builds (strings
 * as-is, other values JSON-encoded). A string with no hole compiles to a CEL string literal.
 */
export function templateToCel(text: string, scope: JmesCelScope, target: CelTarget, opts: TemplateOptions = {}): Compiled | Refusal {
  return compileTemplate(text, scope, target, opts);
}

/**
 * A context entry's `jmesPath` holding `{{ }}` holes (Kyverno substitutes them, then runs the query): the holes
 * read `scope`, the query runs in `queryScope` (the same context, or one document such as an apiCall's response).
 */
export function substitutedQueryToCel(text: string, scope: JmesCelScope, queryScope: JmesCelScope, target: CelTarget): Compiled | Refusal {
  return run(scope, target, (cx) => substitutedQueryFrag(text, cx, queryScope));
}

/**
 * A Kyverno preconditions/conditions block ({any:[...], all:[...]} or a legacy list) as one CEL bool, with
 * Kyverno's operator semantics (kyverno.md §1.5). An error substituting a key or value fails the CEL too.
 */
export function conditionsToCel(block: unknown, scope: JmesCelScope, target: CelTarget): Compiled | Refusal {
  return compileConditions(block, scope, target);
}

export { FUNCTIONS, statusIn } from './functions.js';
export { functionTableMarkdown } from './doc.js';
