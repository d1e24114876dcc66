/**
 * Compile-time checks of a MutatingPolicy's CEL, as Kyverno's compiler runs them when the policy is admitted
 * (mpol/compiler/compiler.go): syntax, declarations (no `params`; `variables.x` only for variables declared
 * before), Kyverno's libraries, and the result type of each mutation.
 */
import { compile, type ResultExpectation } from '../../cel/index.js';
import { diagnostic, type Diagnostic } from '../../diagnostics/diagnostic.js';
import { variableRefs } from '../map/cel-check.js';
import type { Expression } from '../map/model.js';
import { MPOL_VARIABLES } from './cel-engine.js';
import { DIALECT, type MpolException, type MpolPolicy } from './model.js';
import { pushAll } from '../../util/arrays.js';

function check(x: Expression, expect: ResultExpectation, declared: ReadonlySet<string> | undefined, out: Diagnostic[]): void {
  const locate = (start: number, end: number) => x.doc.spanInString(x.path, start, Math.max(end, start + 1));
  const r = compile(x.text, { variables: MPOL_VARIABLES, extraLibraries: ['kyverno'], expect }, locate);
  if (!r.ok) {
    pushAll(out, r.diagnostics.map((d) => ({ ...d, dialect: DIALECT })));
    return;
  }
  if (!declared) return;
  const refs: { name: string; start: number; end: number }[] = [];
  variableRefs(r.value.ast, refs);
  for (const ref of refs) {
    if (declared.has(ref.name)) continue;
    out.push(diagnostic('TM5002', { phase: 'parse', dialect: DIALECT, message: `undefined field '${ref.name}'`, span: locate(ref.start, ref.end) }));
  }
}

export function checkMpolCel(policy: MpolPolicy): Diagnostic[] {
  const out: Diagnostic[] = [];
  const declared = new Set<string>();
  for (const v of policy.variables) {
    check(v, 'any', declared, out);
    declared.add(v.name);
  }
  for (const c of policy.matchConditions) check(c, 'bool', declared, out);
  for (const c of policy.targetMatchConditions) check(c, 'bool', declared, out);
  // compiler.go also requires the expression's type to be map(string, any); the map is checked when it runs.
  const expression = policy.targetMatchConstraints?.expression;
  if (expression) check(expression, 'any', declared, out);
  for (const m of policy.mutations) check(m.expression, m.patchType === 'ApplyConfiguration' ? 'Object' : 'JSONPatchList', declared, out);
  return out;
}

/** An exception's conditions are compiled in the policy environment without the policy's variables. */
export function checkExceptionCel(exception: MpolException): Diagnostic[] {
  const out: Diagnostic[] = [];
  for (const c of exception.matchConditions) check(c, 'bool', undefined, out);
  return out;
}
