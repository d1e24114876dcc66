/**
 * The CEL expression engine of the interpreter: an adapter from the interpreter's `ExprScope` to an activation
 * of src/cel as kube-apiserver builds it for MutatingAdmissionPolicy (plugin/cel/compile.go, activation.go):
 * object, oldObject, params, namespaceObject, request, variables, authorizer, authorizer.requestResource.
 *
 * Results leave CEL as JSON: `Object{...}` values after the type-name check of nested `Object.*` literals
 * (mutation/common ObjectVal.CheckTypeNamesMatchFieldPathNames), lists of `JSONPatch` as RFC 6902 steps built
 * the way patch/json_patch.go builds them (op and path always, from when non-empty, value when set). Programs
 * build that JSON directly where they can (CelProgram.evalJson).
 */
import { compile, MAP_VARIABLES, mutationResultToJson, type CelProgram, type CelResult, type Expr } from '../cel/index.js';
import { subexpressions, variableSelections } from '../cel/ast.js';
import { RawFailure, type EvalOptions } from '../cel/program.js';
import { authorizers, authorizerValue, CelAuthzCheck, type AuthorizerFn } from '../cel/lib/k8s.js';
import { CelError } from '../cel/values.js';
import { diagnostic } from '../diagnostics/diagnostic.js';
import { spanOfOrigin, type Span } from '../diagnostics/span.js';
import { DirectFailure, type CompiledExpr, type DirectActivation, type DirectExpr, type DirectReads, type DirectVariables, type EvalMemo, type ExprOutcome, type ExprScope, type ExpressionEngine } from '../interpreter/engines.js';
import { EvalFailure } from '../interpreter/failure.js';
import { defineOwn, isJsonObject, type JsonObject, type JsonValue } from '../ir/json.js';
import { indexedVariablesView, variablesViewPlan, type VariablesViewPlan } from './cel-variables-view.js';
import { isSafeFieldName } from '../cel/fastpath.js';
import type { ExprSource } from '../ir/nodes.js';
import { requestFacts } from '../k8s/facts.js';
import type { AdmissionRequest } from '../k8s/request.js';
import type { RequestExtras } from '../runtime/runtime.js';

export type { RequestExtras };

/**
 * Scope variables whose name starts with this prefix are reserved for the dialects (the MAP dialect binds the
 * invocation's param object as `$params`); they are not visible as CEL `variables.<name>`.
 */
export const RESERVED_VAR_PREFIX = '$';
/** The variable that carries an invocation's param object (one IR policy per policy × binding × param). */
export const PARAMS_VAR = '$params';

/** kube-apiserver: PerCallLimit (k8s.io/apiserver/pkg/apis/cel/config.go). */
export const PER_CALL_COST_LIMIT = 1_000_000;

export interface CelEngineOptions {
  /** The `authorizer` variable's decisions (default allow-all). */
  authorizer?: AuthorizerFn;
  /** Per-expression runtime cost limit (default PerCallLimit, 1,000,000). */
  costLimit?: number;
  /** Kubernetes version whose CEL environment to emulate. */
  k8sVersion?: string;
  /**
   * Evaluate every expression with its activation, also those that read none (whose outcome is otherwise made
   * once): the reference the tests compare the engine against.
   */
  general?: boolean;
}

/** The memo key of the `request` value of an evaluation (one per evaluation, shared by its expressions). */
const REQUEST_VALUE = Symbol('cel request value');

interface RequestValueMemo {
  readonly request: AdmissionRequest;
  readonly extras: RequestExtras | undefined;
  readonly value: Record<string, unknown>;
}

/**
 * The request-derived activation entry, built once per evaluation: every expression of one admission request
 * shares it. CEL never mutates the values it is given, so sharing them between evaluations is safe.
 */
function memoRequestValue(req: AdmissionRequest, extras: RequestExtras | undefined, memo: EvalMemo | undefined): Record<string, unknown> {
  const hit = memo?.get(REQUEST_VALUE) as RequestValueMemo | undefined;
  if (hit !== undefined && hit.request === req && hit.extras === extras) return hit.value;
  const value = requestValue(req, extras);
  memo?.set(REQUEST_VALUE, { request: req, extras, value } satisfies RequestValueMemo);
  return value;
}

/** One engine's request-derived activation entries for one evaluation (createCelEngine). */
interface RequestEntries extends RequestValueMemo {
  readonly check: CelAuthzCheck;
}

/**
 * The CEL `request` value: admission/v1 AdmissionRequest as plugin/cel CreateAdmissionRequest fills it, seen
 * the way its JSON form reads (kube-apiserver: common.UnstructuredReflectToVal, before it
 * DefaultUnstructuredConverter; Kyverno's MutatingPolicy: ConvertObjectToUnstructured). Fields tagged
 * `omitempty` are absent when empty, so reading one bare fails with "no such key": `name` on a generated
 * name, `namespace` and `subResource` on most requests, the user's `uid`, `groups` and `extra` (and `username`
 * when none is given offline).
 */
export function requestValue(req: AdmissionRequest, requestExtras?: RequestExtras): Record<string, unknown> {
  const f = requestFacts(req);
  const extras = requestExtras ?? {};
  const kind = { group: f.gvk.group, version: f.gvk.version, kind: f.gvk.kind };
  const resource = { group: f.resource.group, version: f.resource.version, resource: f.resource.resource };
  const out: Record<string, unknown> = { kind, resource };
  putNonEmpty(out, 'subResource', f.subResource);
  out.requestKind = extras.requestKind ?? kind;
  out.requestResource = extras.requestResource ?? resource;
  putNonEmpty(out, 'requestSubResource', extras.requestSubResource ?? f.subResource);
  putNonEmpty(out, 'name', f.name);
  putNonEmpty(out, 'namespace', f.namespace);
  out.operation = req.operation;
  out.userInfo = userInfoValue(req.userInfo ?? {});
  out.dryRun = req.dryRun === true;
  out.options = null;
  return out;
}

/** authentication/v1 UserInfo in its JSON form: every field omitempty. */
function userInfoValue(u: NonNullable<AdmissionRequest['userInfo']>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  putNonEmpty(out, 'username', u.username);
  putNonEmpty(out, 'uid', u.uid);
  if (u.groups !== undefined && u.groups.length > 0) out.groups = u.groups;
  const extra: JsonObject = {};
  let extras = 0;
  for (const [k, v] of Object.entries(u.extra ?? {})) {
    defineOwn(extra, k, v);
    extras++;
  }
  if (extras > 0) out.extra = extra;
  return out;
}

/** An `omitempty` string field: set only when not empty. */
function putNonEmpty(out: Record<string, unknown>, key: string, value: string | undefined): void {
  if (value !== undefined && value !== '') out[key] = value;
}

/** `authorizer.requestResource`: a check pre-filled with the request's resource (plugin/cel/activation.go). */
function requestResourceCheck(fn: AuthorizerFn, req: AdmissionRequest): CelAuthzCheck {
  const f = requestFacts(req);
  return new CelAuthzCheck(fn, {
    kind: 'resource',
    group: f.resource.group,
    resource: f.resource.resource,
    subresource: f.subResource,
    namespace: f.namespace,
    name: f.name,
  });
}

type VariableBinding = { readonly value: JsonValue };

/** A bound variable's value; an error of the variable surfaces in the using expression as composition.go words it. */
function readVariable(binding: VariableBinding, name: string): JsonValue {
  try {
    return binding.value;
  } catch (e) {
    if (e instanceof EvalFailure) throw new CelError(`composited variable "${name}" fails to evaluate: ${e.diagnostic.message}`);
    throw e;
  }
}

/**
 * `variables`: each read evaluates the bound (lazy) variable. Only `names` are bound (those the expression
 * can read). Values are JSON (src/ir/json.ts: never a bigint), which is already a CEL value: no conversion.
 */
function variablesValue(names: readonly string[], lookup: (name: string) => VariableBinding | undefined): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const name of names) {
    if (name.startsWith(RESERVED_VAR_PREFIX)) continue;
    const binding = lookup(name);
    if (binding === undefined) continue;
    Object.defineProperty(out, name, { enumerable: true, get: () => readVariable(binding, name) });
  }
  return out;
}

/** What a `variables` proxy reads through: the scope of one evaluation (a plain object: see below). */
interface VariablesTarget {
  readonly scope: ExprScope & { lookup: NonNullable<ExprScope['lookup']> };
}

/**
 * The map variablesValue builds, for an expression that reads `variables` only as `variables.<name>` (one of
 * `names`) and a scope that looks names up, without an accessor per name and evaluation (defineProperty turns
 * each such map into a dictionary and allocates a closure per variable): one proxy per evaluation over a
 * plain target, with these traps shared by every evaluation of the expression. Its prototype is the
 * target's, Object.prototype, so CEL sees a map; its own keys are the bound names; reads evaluate lazily and
 * `has()` asks for existence only, as with the accessors.
 */
function variablesProxyHandler(names: readonly string[]): ProxyHandler<VariablesTarget> {
  const visible = new Set(names.filter((n) => !n.startsWith(RESERVED_VAR_PREFIX)));
  const bindingOf = (t: VariablesTarget, key: string | symbol): VariableBinding | undefined =>
    typeof key === 'string' && visible.has(key) ? t.scope.lookup(key) : undefined;
  return {
    get(t, key) {
      const binding = bindingOf(t, key);
      if (binding !== undefined) return readVariable(binding, key as string);
      // What the target would answer: CEL's field chains (cel/fastpath.ts) read a plain map's own keys with a
      // named load once `constructor` says Object, where otherwise every read goes through ops.select, whose
      // hasOwnProperty builds a descriptor in the trap below.
      return key === 'constructor' ? Object : undefined;
    },
    has: (t, key) => bindingOf(t, key) !== undefined,
    getOwnPropertyDescriptor(t, key) {
      const binding = bindingOf(t, key);
      if (binding === undefined) return undefined;
      return { configurable: true, enumerable: true, get: () => readVariable(binding, key as string), set: undefined };
    },
    ownKeys: (t) => [...visible].filter((n) => t.scope.lookup(n) !== undefined),
    set: () => false,
    defineProperty: () => false,
    deleteProperty: () => false,
    setPrototypeOf: () => false,
    preventExtensions: () => false,
  };
}

const NO_VARIABLES: Record<string, unknown> = Object.freeze({}) as Record<string, unknown>;

/**
 * The variable names an expression can read: every `variables.<name>` selection, or undefined when
 * `variables` is used otherwise (indexed, passed whole), and then every binding is offered.
 */
function variableNames(ast: Expr): string[] | undefined {
  const names = new Set<string>();
  return variableSelections(ast, names) ? [...names] : undefined;
}

/** Whether every `variables.<name>` selection of an expression is a plain one (no `has()`, no `.?`). */
function readsVariablesPlainly(ast: Expr): boolean {
  let plain = true;
  const visit = (e: Expr): void => {
    if (e.kind === 'select' && e.operand.kind === 'ident' && e.operand.name === 'variables' && (e.testOnly || e.optional)) plain = false;
    subexpressions(e).forEach(visit);
  };
  visit(ast);
  return plain;
}

/** The identifiers an expression names (activation entries it may read; iteration variables too). */
function identifiers(ast: Expr): Set<string> {
  const names = new Set<string>();
  const visit = (e: Expr): void => {
    if (e.kind === 'ident') names.add(e.name);
    else subexpressions(e).forEach(visit);
  };
  visit(ast);
  return names;
}

/**
 * The activation's `variables` for one evaluation: the names the expression selects, looked up in the
 * interpreter's scope; every variable of `vars` when the expression uses `variables` as a whole value or the
 * scope cannot look names up.
 */
function variablesFor(names: readonly string[] | undefined, handler: ProxyHandler<VariablesTarget> | undefined, view: VariablesViewPlan | undefined, scope: ExprScope): Record<string, unknown> {
  if (names !== undefined && names.length === 0) return NO_VARIABLES;
  if (view !== undefined && scope.lookup) {
    const made = view.of(scope as VariablesTarget['scope']);
    if (made !== undefined) return made;
  }
  if (handler !== undefined && scope.lookup) return new Proxy({ scope } as VariablesTarget, handler) as unknown as Record<string, unknown>;
  if (names !== undefined && scope.lookup) return variablesValue(names, (n) => scope.lookup!(n));
  const vars = scope.vars;
  return variablesValue(Object.keys(vars), (n) => ({
    get value() {
      return vars[n]!;
    },
  }));
}

/** A CEL result as JSON, with MAP's checks of `Object` and `JSONPatch` values (mutation.ts mutationResultToJson). Throws CelError. */
export function resultToJson(v: unknown): JsonValue {
  return mutationResultToJson(v) as JsonValue;
}

export function createCelEngine(options: CelEngineOptions = {}): ExpressionEngine {
  const authorizer = options.authorizer ?? authorizers.allowAll;
  const authorizerVal = authorizerValue(authorizer);
  const costLimit = options.costLimit ?? PER_CALL_COST_LIMIT;
  const env = { variables: MAP_VARIABLES, ...(options.k8sVersion ? { k8sVersion: options.k8sVersion } : {}) };
  // `services` said (undefined) rather than left out: Program.eval reads it at every evaluation, and reading
  // a member an object lacks is a slow look-up in V8 once the read site has seen several shapes.
  const evalOptions: EvalOptions = { costLimit, services: undefined };
  // The request-derived activation entries of the evaluation's request (`request`, `authorizer.requestResource`),
  // built once per evaluation and engine and found with one memo lookup per expression.
  const requestKey = Symbol('cel request entries');
  const requestEntries = (scope: ExprScope): RequestEntries => {
    const memo = scope.memo;
    const extras = scope.runtime?.requestExtras;
    const hit = memo?.get(requestKey) as RequestEntries | undefined;
    if (hit !== undefined && hit.request === scope.request && hit.extras === extras) return hit;
    const entries: RequestEntries = { request: scope.request, extras, value: memoRequestValue(scope.request, extras, memo), check: requestResourceCheck(authorizer, scope.request) };
    memo?.set(requestKey, entries);
    return entries;
  };
  // The `variables` views of direct activations, per list of names (one per policy run plan).
  const views = new WeakMap<readonly string[], (source: unknown) => Record<string, unknown>>();
  const viewOf = (names: readonly string[]): ((source: unknown) => Record<string, unknown>) => {
    let view = views.get(names);
    if (view === undefined) views.set(names, (view = indexedVariablesView(names, (source, i) => readDirectVariable(source as DirectVariables, i, names[i]!))));
    return view;
  };
  return {
    direct: {
      activation(scope, names, variables, reads) {
        // The entries and their order are the per-evaluation activation's below (the programs' look-ups see one shape).
        const params = reads.params ? paramsOf(scope) : null;
        const entries = reads.request ? requestEntries(scope) : undefined;
        const values: Record<string, unknown> = {
          object: null,
          oldObject: scope.oldObject ?? null,
          params: params ?? null,
          namespaceObject: null,
          request: entries?.value ?? null,
          variables: names.length === 0 ? NO_VARIABLES : viewOf(names)(variables),
          authorizer: authorizerVal,
          'authorizer.requestResource': entries?.check ?? null,
        };
        return new CelDirectActivation(values, reads.namespace ? (scope.namespaceObject ?? null) : null);
      },
    },
    compile(expr: ExprSource) {
      const span = spanOfOrigin(expr.origin);
      const r = compile(expr.text, env, () => span);
      if (!r.ok) return { ok: false, diagnostics: r.diagnostics.map((d) => ({ ...d, dialect: expr.origin.dialect })) };
      const program: CelProgram = r.value;
      const names = variableNames(program.ast);
      const handler = names !== undefined && names.length > 0 ? variablesProxyHandler(names) : undefined;
      const plainReads = readsVariablesPlainly(program.ast);
      // Reserved names are never bound as CEL variables: an expression naming one keeps the proxy.
      const unreserved = names !== undefined && !names.some((n) => n.startsWith(RESERVED_VAR_PREFIX));
      const view = unreserved ? variablesViewPlan(names, plainReads, (binding, name) => readVariable(binding as VariableBinding, name)) : undefined;
      const dialect = expr.origin.dialect;
      // Direct evaluations read variables through an indexed view, which reads as the plan's views do.
      const directNames = unreserved && plainReads && names.every(isSafeFieldName) ? names : undefined;
      // A program that reads nothing of its activation answers the same each time: its outcome, made once.
      const fixed = options.general ? undefined : program.staticJson(evalOptions);
      if (fixed !== undefined) {
        let fn: () => ExprOutcome;
        let value: () => JsonValue | DirectFailure;
        if (fixed.ok) {
          const outcome = Object.freeze({ ok: true, value: fixed.value as JsonValue }) satisfies ExprOutcome;
          fn = () => outcome;
          value = () => outcome.value;
        } else {
          fn = () => failedOutcome(fixed, span, dialect);
          value = () => new DirectFailure(failedOutcome(fixed, span, dialect));
        }
        return { ok: true, fn, direct: directNames && { variables: directNames, reads: READS_NOTHING, evaluate: fn, value } };
      }
      // Activation entries are read only through their identifiers: those the expression never names are
      // left null rather than derived (the params binding is a scope look-up, the request entries a memo one,
      // the namespace a look at the object's kind).
      const idents = identifiers(program.ast);
      const readsParams = idents.has('params');
      const readsRequest = idents.has('request') || idents.has('authorizer');
      const readsNamespace = idents.has('namespaceObject');
      const direct: DirectExpr | undefined = directNames && {
        variables: directNames,
        reads: { params: readsParams, request: readsRequest, namespace: readsNamespace },
        // An activation of this engine's `direct.activation` (a run takes both from one engine).
        evaluate(act: DirectActivation): ExprOutcome {
          const out = program.evalJson((act as CelDirectActivation).values, evalOptions);
          return out.ok ? (out as ExprOutcome) : failedOutcome(out, span, dialect);
        },
        value(act: DirectActivation): JsonValue | undefined | DirectFailure {
          const v = program.evalJsonRaw((act as CelDirectActivation).values, evalOptions);
          return v instanceof RawFailure ? new DirectFailure(failedOutcome(v.result, span, dialect)) : (v as JsonValue | undefined);
        },
      };
      // JSON values (src/ir/json.ts) hold no bigint, so they are CEL values as they are (fromJson would
      // return them unchanged after walking them whole, once per document and evaluation).
      const fn: CompiledExpr = (scope: ExprScope): ExprOutcome => {
        const params = readsParams ? paramsOf(scope) : null;
        const entries = readsRequest ? requestEntries(scope) : undefined;
        const activation: Record<string, unknown> = {
          object: scope.object ?? null,
          oldObject: scope.oldObject ?? null,
          params: params ?? null,
          namespaceObject: readsNamespace && !isNamespace(scope.object) ? (scope.namespaceObject ?? null) : null,
          request: entries?.value ?? null,
          variables: variablesFor(names, handler, view, scope),
          authorizer: authorizerVal,
          'authorizer.requestResource': entries?.check ?? null,
        };
        // The value as JSON (resultToJson), built directly by the program where it can. A success has the
        // shape of an ExprOutcome already (its `cost` aside).
        const out = program.evalJson(activation, evalOptions);
        return out.ok ? (out as ExprOutcome) : failedOutcome(out, span, dialect);
      };
      return { ok: true, fn, direct };
    },
  };
}

const READS_NOTHING: DirectReads = Object.freeze({ params: false, request: false, namespace: false });

/** A direct activation of the CEL engine: the activation's entries, the object set before each evaluation. */
class CelDirectActivation implements DirectActivation {
  constructor(
    readonly values: Record<string, unknown>,
    /** The request's namespace object when some expression reads it, else null. */
    private readonly namespaceObject: JsonValue | null,
  ) {}

  setObject(object: JsonValue | null): void {
    this.values['object'] = object;
    this.values['namespaceObject'] = this.namespaceObject === null || isNamespace(object) ? null : this.namespaceObject;
  }
}

/** A variable of a direct activation, read as readVariable reads a lazy binding: a failure is the reading expression's. */
function readDirectVariable(variables: DirectVariables, i: number, name: string): unknown {
  const out = variables.variable(i);
  if (out.ok) return out.value;
  throw new CelError(`composited variable "${name}" fails to evaluate: ${out.diagnostic.message}`);
}

/** A failed evaluation's outcome: a conversion failure's diagnostic is made here, with the dialect before the span (as in reports so far). */
function failedOutcome(out: Extract<CelResult, { ok: false }>, span: Span, dialect: string): Extract<ExprOutcome, { ok: false }> {
  if (out.inJson) return { ok: false, diagnostic: diagnostic('TM5003', { phase: 'eval', message: out.error, span, dialect }) };
  return { ok: false, diagnostic: { ...out.diagnostic, dialect } };
}

/** The invocation's param object: the dialect's `$params` binding, else the scope's params. */
function paramsOf(scope: ExprScope): JsonValue | undefined {
  const bound = scope.lookup ? scope.lookup(PARAMS_VAR) : Object.prototype.hasOwnProperty.call(scope.vars, PARAMS_VAR) ? { value: scope.vars[PARAMS_VAR]! } : undefined;
  return bound !== undefined ? bound.value : scope.params;
}

/** kube-apiserver hands MAP `namespaceObject: null` when the object under admission is itself a Namespace. */
function isNamespace(object: JsonValue | null): boolean {
  return isJsonObject(object) && object['kind'] === 'Namespace' && object['apiVersion'] === 'v1';
}

/** kube-apiserver's CEL environment for MutatingAdmissionPolicy with its defaults (allow-all authorizer). */
export const KUBERNETES_CEL_ENGINE: ExpressionEngine = createCelEngine();
