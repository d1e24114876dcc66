/**
 * Compile-time checks of a policy's CEL, as the API server runs them when the policy is written
 * (plugin/policy/mutating/compilation.go): syntax, declarations (`params` only with a paramKind; `variables.x`
 * only for variables declared before), and the result type of each expression. Errors point at the YAML line
 * and column of the offending character.
 */
import { compile, MAP_VARIABLES, type ResultExpectation } from '../../cel/index.js';
import type { Expr } from '../../cel/ast.js';
import { diagnostic, type Diagnostic } from '../../diagnostics/diagnostic.js';
import type { Expression, MapPolicy } from './model.js';
import { pushAll } from '../../util/arrays.js';

const WITHOUT_PARAMS = MAP_VARIABLES.filter((v) => v !== 'params');

/** Every `variables.<name>` selection in the expression, with its position (shared with kyverno-mpol). */
export function variableRefs(e: unknown, out: { name: string; start: number; end: number }[]): void {
  if (Array.isArray(e)) {
    for (const x of e) variableRefs(x, out);
    return;
  }
  if (e === null || typeof e !== 'object') return;
  const node = e as Partial<Expr> & Record<string, unknown>;
  if (node.kind === 'select' && node.operand?.kind === 'ident' && node.operand.name === 'variables') {
    out.push({ name: node.field!, start: node.start!, end: node.end! });
  }
  for (const v of Object.values(node)) if (v !== null && typeof v === 'object') variableRefs(v, out);
}

function check(x: Expression, expect: ResultExpectation, withParams: boolean, declared: ReadonlySet<string>, out: Diagnostic[]): void {
  const locate = (start: number, end: number) => x.doc.spanInString(x.path, start, Math.max(end, start + 1));
  const r = compile(x.text, { variables: withParams ? MAP_VARIABLES : WITHOUT_PARAMS, expect }, locate);
  if (!r.ok) {
    pushAll(out, r.diagnostics.map((d) => ({ ...d, dialect: 'map' })));
    return;
  }
  const refs: { name: string; start: number; end: number }[] = [];
  variableRefs(r.value.ast, refs);
  for (const ref of refs) {
    if (declared.has(ref.name)) continue;
    out.push(diagnostic('TM5002', { phase: 'parse', dialect: 'map', message: `undefined field '${ref.name}'`, span: locate(ref.start, ref.end) }));
  }
}

export function checkPolicyCel(policy: MapPolicy): Diagnostic[] {
  const out: Diagnostic[] = [];
  const withParams = policy.paramKind !== undefined;
  const declared = new Set<string>();
  for (const v of policy.variables) {
    check(v, 'any', withParams, declared, out);
    declared.add(v.name);
  }
  for (const c of policy.matchConditions) check(c, 'bool', withParams, declared, out);
  for (const m of policy.mutations) check(m.expression, m.patchType === 'ApplyConfiguration' ? 'Object' : 'JSONPatchList', withParams, declared, out);
  return out;
}
