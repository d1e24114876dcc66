import type { Diagnostic } from '../diagnostics/diagnostic.js';
import type { JsonValue } from '../ir/json.js';
import type { ExprSource, MergeOp, TemplatedValue } from '../ir/nodes.js';
import type { AdmissionRequest } from '../k8s/request.js';

/** What an opaque expression sees: the request's documents and the variables in scope. */
export interface ExprScope {
  object: JsonValue | null;
  oldObject: JsonValue | null;
  request: AdmissionRequest;
  params: JsonValue | null;
  namespaceObject: JsonValue | null;
  vars: Record<string, JsonValue>;
  /**
   * One variable's binding (innermost wins), read on access like `vars`; lets an engine that knows which
   * variables an expression names skip building `vars` (the interpreter builds `vars` only when read).
   */
  lookup?(name: string): { readonly value: JsonValue } | undefined;
}

export type ExprOutcome = { ok: true; value: JsonValue | undefined } | { ok: false; diagnostic: Diagnostic };

export type CompiledExpr = (scope: ExprScope) => ExprOutcome;

/** A language the IR keeps opaque (CEL, JMESPath): compiled once per expression, evaluated per request. */
export interface ExpressionEngine {
  compile(expr: ExprSource): { ok: true; fn: CompiledExpr } | { ok: false; diagnostics: Diagnostic[] };
}

/**
 * Scratch space of one evaluation (one `apply` call) where engines keep what they derived from the documents,
 * each under a key of its own. Documents are copy-on-write and the interpreter never writes in place into a
 * container it handed to an engine, so facts about a container stay true for the whole evaluation.
 */
export type EvalMemo = Map<unknown, unknown>;

/** A merge strategy provided outside the core (strategic merge for Kyverno, structured merge for MAP). */
export type MergeEngine = (
  target: JsonValue | undefined,
  patch: JsonValue,
  context: { op: MergeOp; request: AdmissionRequest; memo?: EvalMemo },
) => { ok: true; value: JsonValue } | { ok: false; diagnostic: Diagnostic };

/** Substitutes variables throughout a templated JSON tree (Kyverno `{{ }}` in patches). */
export interface TemplateEngine {
  compile(value: TemplatedValue): { ok: true; fn: CompiledExpr } | { ok: false; diagnostics: Diagnostic[] };
}

const templateEngines = new Map<TemplatedValue['language'], TemplateEngine>();

export function registerTemplateEngine(language: TemplatedValue['language'], engine: TemplateEngine): void {
  templateEngines.set(language, engine);
}

export function templateEngine(language: TemplatedValue['language']): TemplateEngine | undefined {
  return templateEngines.get(language);
}

const expressionEngines = new Map<'cel' | 'jmes', ExpressionEngine>();
const mergeEngines = new Map<'smp' | 'ssa', MergeEngine>();

export function registerExpressionEngine(language: 'cel' | 'jmes', engine: ExpressionEngine): void {
  expressionEngines.set(language, engine);
}

export function expressionEngine(language: 'cel' | 'jmes'): ExpressionEngine | undefined {
  return expressionEngines.get(language);
}

export function registerMergeEngine(strategy: 'smp' | 'ssa', engine: MergeEngine): void {
  mergeEngines.set(strategy, engine);
}

export function mergeEngine(strategy: 'smp' | 'ssa'): MergeEngine | undefined {
  return mergeEngines.get(strategy);
}

/**
 * The strict decode kube-apiserver runs on a JSONPatch result before it accepts it (MAP patch/json_patch.go:
 * the patched JSON is decoded into the kind's Go type; unknown fields fail the request as an InternalError,
 * whatever the failure policy). Returns the error message, or undefined when the object decodes.
 */
export type TypedDecoder = (object: JsonValue, request: AdmissionRequest, memo?: EvalMemo) => string | undefined;

let typedDecoderFn: TypedDecoder | undefined;

export function registerTypedDecoder(decoder: TypedDecoder): void {
  typedDecoderFn = decoder;
}

export function typedDecoder(): TypedDecoder | undefined {
  return typedDecoderFn;
}
