/**
 * CEL for MutatingPolicy expressions. Kyverno compiles them in its own environment (mpol/compiler/compiler.go):
 * MAP's variables without `params` or `authorizer`, a `request` that also carries `object` and `oldObject`
 * (Kyverno's RequestType is the whole admission request), and Kyverno's libraries (src/cel/lib/kyverno-*.ts).
 * A runtime holds it as its `cel-kyverno` engine, next to kube-apiserver's `cel-kubernetes` one; the
 * interpreter compiles this dialect's expressions with it (src/interpreter/expressions.ts).
 */
import { compile, type CelProgram, type EvalOptions } from '../../cel/index.js';
import type { KyvernoDataProvider } from '../../cel/lib/kyverno-context.js';
import { CelError } from '../../cel/values.js';
import { diagnostic } from '../../diagnostics/diagnostic.js';
import { spanOfOrigin } from '../../diagnostics/span.js';
import { requestValue, resultToJson, RESERVED_VAR_PREFIX } from '../../engines/cel.js';
import type { CompiledExpr, ExprScope, ExpressionEngine } from '../../interpreter/engines.js';
import { EvalFailure } from '../../interpreter/failure.js';
import { hasOwn, type JsonValue } from '../../ir/json.js';
import type { ExprSource } from '../../ir/nodes.js';
import type { AdmissionRequest } from '../../k8s/request.js';
import type { RequestExtras, Runtime } from '../../runtime/runtime.js';
import type { ImageDataTable } from '../../cel/lib/image-data.js';
import { DIALECT } from './model.js';

/** The variables a MutatingPolicy expression may name (compiler.go; the libraries are namespaced functions). */
export const MPOL_VARIABLES = ['object', 'oldObject', 'request', 'namespaceObject', 'variables'] as const;

/** kube-apiserver's per-expression limit, which Kyverno keeps (celconfig.RuntimeCELCostBudget per call). */
const COST_LIMIT = 1_000_000;

const NO_CLUSTER: EvalOptions = Object.freeze({ costLimit: COST_LIMIT });

/** The cluster data reaches Kyverno's libraries with each evaluation (RuntimeServices), never through module state. */
function evalOptions(provider: KyvernoDataProvider | undefined, imageData?: ImageDataTable): EvalOptions {
  if (!provider && !imageData) return NO_CLUSTER;
  return { costLimit: COST_LIMIT, services: { ...(provider ? { kyvernoData: provider } : {}), ...(imageData ? { imageData } : {}) } };
}

/** A runtime's options, built once per runtime (a runtime is frozen): evaluations allocate nothing for them. */
const runtimeOptions = new WeakMap<Runtime, EvalOptions>();
function evalOptionsOf(runtime: Runtime | undefined): EvalOptions {
  if (runtime === undefined) return NO_CLUSTER;
  let options = runtimeOptions.get(runtime);
  if (options === undefined) runtimeOptions.set(runtime, (options = evalOptions(runtime.kyvernoData, runtime.imageData)));
  return options;
}


/**
 * Kyverno's `request`: the whole admission request (its RequestType), so MAP's request value plus its uid
 * (the API server's UUID; empty offline, as in Kyverno's CLI), the user's roles and cluster roles and the
 * object and old object. The object is the admission request's
 * (mpol/compiler/eval.go prepareData reads it from the request once): mutations before this expression change
 * `object`, never `request.object`.
 */
export function mpolRequestValue(req: AdmissionRequest, extras?: RequestExtras): Record<string, unknown> {
  const u = req.userInfo ?? {};
  return { uid: req.uid ?? '', ...requestValue(req, extras), roles: u.roles ?? [], clusterRoles: u.clusterRoles ?? [], object: req.object ?? null, oldObject: req.oldObject ?? null };
}

/**
 * The reserved variable holding the `request` of a mutate-existing evaluation: the trigger's admission request
 * (or the background controller's synthetic one), while `object` is the target (kyverno-mpol/mutate-existing.ts).
 */
export const MPOL_REQUEST_VAR = `${RESERVED_VAR_PREFIX}mpol-request`;

function requestOf(scope: ExprScope): unknown {
  const bound = scope.lookup ? scope.lookup(MPOL_REQUEST_VAR) : hasOwn(scope.vars, MPOL_REQUEST_VAR) ? { value: scope.vars[MPOL_REQUEST_VAR]! } : undefined;
  return bound ? bound.value : mpolRequestValue(scope.request, scope.runtime?.requestExtras);
}

/** `variables`: lazy reads of the policy's bindings (an error surfaces where the variable is read). */
function variablesValue(scope: ExprScope): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  const names = Object.keys(scope.vars);
  for (const name of names) {
    if (name.startsWith(RESERVED_VAR_PREFIX)) continue;
    Object.defineProperty(out, name, {
      enumerable: true,
      get: () => {
        try {
          return scope.lookup ? scope.lookup(name)!.value : scope.vars[name];
        } catch (e) {
          if (e instanceof EvalFailure) throw new CelError(`composited variable "${name}" fails to evaluate: ${e.diagnostic.message}`);
          throw e;
        }
      },
    });
  }
  return out;
}

function compileMpol(expr: ExprSource): ReturnType<ExpressionEngine['compile']> {
  const span = spanOfOrigin(expr.origin);
  const r = compile(expr.text, { variables: MPOL_VARIABLES, extraLibraries: ['kyverno'] }, () => span);
  if (!r.ok) return { ok: false, diagnostics: r.diagnostics.map((d) => ({ ...d, dialect: DIALECT })) };
  const program: CelProgram = r.value;
  const readsVariables = /\bvariables\b/.test(expr.text);
  const fn: CompiledExpr = (scope) => {
    const activation: Record<string, unknown> = {
      object: scope.object ?? null,
      oldObject: scope.oldObject ?? null,
      namespaceObject: scope.namespaceObject ?? null,
      request: requestOf(scope),
      variables: readsVariables ? variablesValue(scope) : {},
    };
    const out = program.eval(activation, evalOptionsOf(scope.runtime));
    if (!out.ok) return { ok: false, diagnostic: { ...out.diagnostic, dialect: DIALECT } };
    try {
      return { ok: true, value: resultToJson(out.value) };
    } catch (e) {
      if (!(e instanceof CelError)) throw e;
      return { ok: false, diagnostic: diagnostic('TM5003', { phase: 'eval', message: e.message, span, dialect: DIALECT }) };
    }
  };
  return { ok: true, fn };
}

/** Kyverno's CEL environment for MutatingPolicy expressions; the cluster data comes from the runtime. */
export const KYVERNO_CEL_ENGINE: ExpressionEngine = { compile: compileMpol };

/** An expression of a policy document with its origin (for diagnostics). */
export interface MpolExpr {
  text: string;
  origin: ExprSource['origin'];
}

/**
 * Evaluates one MutatingPolicy expression outside a mutation (the target selector expression of
 * `targetMatchConstraints`), with `variables` bound lazily as compiler/policy.go appendVariables binds them:
 * each variable is evaluated on first read against the same activation, its error surfacing where it is read.
 * Activation entries left undefined are unbound (the Kyverno CLI binds only `object` and `variables` there).
 */
export function evaluateMpolExpression(
  expr: MpolExpr,
  variables: readonly { name: string; expr: MpolExpr }[],
  activation: { object?: unknown; oldObject?: unknown; request?: unknown; namespaceObject?: unknown },
  provider?: KyvernoDataProvider,
): { ok: true; value: JsonValue } | { ok: false; message: string } {
  const compiled = new Map<string, CelProgram | string>();
  const programOf = (x: MpolExpr): CelProgram | string => {
    const r = compile(x.text, { variables: MPOL_VARIABLES, extraLibraries: ['kyverno'] }, () => spanOfOrigin(x.origin));
    return r.ok ? r.value : (r.diagnostics[0]?.message ?? 'does not compile');
  };
  const bound: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(activation)) if (v !== undefined) bound[k] = v;
  const vars: Record<string, unknown> = {};
  const memo = new Map<string, unknown>();
  for (const v of variables) {
    Object.defineProperty(vars, v.name, {
      enumerable: true,
      get: () => {
        if (memo.has(v.name)) return memo.get(v.name);
        let p = compiled.get(v.name);
        if (p === undefined) compiled.set(v.name, (p = programOf(v.expr)));
        if (typeof p === 'string') throw new CelError(`composited variable "${v.name}" fails to evaluate: ${p}`);
        const out = p.eval(bound, evalOptions(provider));
        if (!out.ok) throw new CelError(`composited variable "${v.name}" fails to evaluate: ${out.error}`);
        memo.set(v.name, out.value);
        return out.value;
      },
    });
  }
  bound.variables = vars;
  const program = programOf(expr);
  if (typeof program === 'string') return { ok: false, message: program };
  const out = program.eval(bound, evalOptions(provider));
  if (!out.ok) return { ok: false, message: out.error };
  try {
    return { ok: true, value: resultToJson(out.value) };
  } catch (e) {
    if (!(e instanceof CelError)) throw e;
    return { ok: false, message: e.message };
  }
}
