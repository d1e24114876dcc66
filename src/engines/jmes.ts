/**
 * The `jmes` expression engine and the `kyverno` template engine: JMESPath as Kyverno runs it (src/jmespath)
 * over Kyverno's JSON context (src/dialects/kyverno/document.ts), plus the Kyverno constructs kept opaque in
 * `jmes` nodes (preconditions, context entries: src/dialects/kyverno/opaque.ts). The default runtime
 * (src/runtime/create.ts) holds both.
 */
import { diagnostic, type Diagnostic } from '../diagnostics/diagnostic.js';
import { loadContextEntry } from '../dialects/kyverno/context.js';
import { kyvernoDocument, kyvernoDocumentFields, type QueryImages } from '../dialects/kyverno/document.js';
import { ImagesFailure } from '../dialects/kyverno/context-images.js';
import { loadMentioned, mentions, queryImages, type LoadFailure } from '../dialects/kyverno/deferred-loading.js';
import { readOpaque } from '../dialects/kyverno/opaque.js';
import { fieldConditions, type ObjectFieldOf } from '../dialects/kyverno/field-conditions.js';
import { compileConditions, type SlotCompiler } from '../dialects/kyverno/preconditions.js';
import { compileTree } from '../dialects/kyverno/template.js';
import { holeOutcome, holeQuery, treeHasVariables, wholeHoleBody, type PreparedQuery, type QueryOutcome, type QueryPreparer, type Substituted, type SubstitutionEnv } from '../dialects/kyverno/variables.js';
import type { CompiledExpr, ExprOutcome, ExprScope, ExpressionEngine, TemplateEngine } from '../interpreter/engines.js';
import type { JsonValue } from '../ir/json.js';
import type { ExprSource, Origin } from '../ir/nodes.js';
import { compileJmesCached, type JmesProgram, type JmesResult } from '../jmespath/index.js';

/** Queries a JMESPath expression against data with Kyverno's error model. */
export function queryJmes(expression: string, data: unknown): QueryOutcome {
  const program = compileJmesCached(expression.trim());
  if (!program.ok) return { ok: false, message: program.diagnostics[0]?.message ?? `invalid JMESPath ${expression}`, notFound: false };
  return outcome(program.value.search(data));
}

function outcome(r: JmesResult): QueryOutcome {
  // A success has the shape of a QueryOutcome already.
  return r.ok ? r : { ok: false, message: r.error.message, notFound: r.error.kind === 'NotFound' };
}

/**
 * True when every read of the root goes through `request.object` (`request.object.metadata.labels.tier`), or,
 * `withOperation`, is also `request.operation` itself.
 */
function readsRequestObjectOnly(program: JmesProgram, withOperation = false): boolean {
  const paths = program.rootPaths;
  if (paths === undefined || paths.length === 0) return false;
  for (const p of paths) {
    if (p.length < 2 || p[0] !== 'request') return false;
    if (p[1] !== 'object' && !(withOperation && p[1] === 'operation' && p.length === 2)) return false;
  }
  return true;
}

/** A hole's query compiled once (SubstitutionEnv.run). */
class PreparedJmes implements PreparedQuery {
  readonly requestObjectOnly: boolean;
  /** The query reads nothing but what a direct block's document holds (directConditions). */
  readonly direct: boolean;

  constructor(
    readonly expression: string,
    readonly program: JmesProgram,
  ) {
    this.requestObjectOnly = readsRequestObjectOnly(program);
    this.direct = readsRequestObjectOnly(program, true);
  }
}

/** Compiles a hole's query as `substitutionEnv(...).query` would; a syntax error is left to `query`. */
export const prepareJmesQuery: QueryPreparer = (expression) => {
  const program = compileJmesCached(expression.trim());
  return program.ok ? new PreparedJmes(expression, program.value) : undefined;
};

/**
 * The substitution environment of one evaluation: queries read the context document built from the scope.
 * Each query gets the part of the document it reads: only the root fields it names when it names them (most
 * queries read `request` or one variable), else the whole document, built once per evaluation. A query that
 * reads `request.object` only gets `{request: {object}}`: requestDocument sets `object` to the scope's
 * object (or null) and the rest of it is never read.
 */
class ScopeSubstitutionEnv implements SubstitutionEnv {
  readonly isDelete: boolean;
  private whole: Record<string, unknown> | undefined;

  constructor(private readonly scope: ExprScope) {
    this.isDelete = scope.request.operation === 'DELETE';
  }

  query(expression: string): QueryOutcome {
    // Kyverno loads what the text mentions before it compiles the query (evaluate.go Query).
    const images = queryImages(this.scope, expression);
    const loaded = loadMentioned(this.scope, expression, images);
    if (loaded !== undefined) return loadFailed(loaded);
    const program = compileJmesCached(expression.trim());
    if (!program.ok) return { ok: false, message: program.diagnostics[0]?.message ?? `invalid JMESPath ${expression}`, notFound: false };
    const doc = documentFor(program.value, readsRequestObjectOnly(program.value), this.scope, this, images);
    return doc instanceof ImagesFailure ? loadFailed(doc) : outcome(program.value.search(doc));
  }

  run(prepared: PreparedQuery): QueryOutcome {
    if (!(prepared instanceof PreparedJmes)) return this.query(prepared.expression);
    const images = queryImages(this.scope, prepared.expression);
    const loaded = loadMentioned(this.scope, prepared.expression, images);
    if (loaded !== undefined) return loadFailed(loaded);
    const doc = documentFor(prepared.program, prepared.requestObjectOnly, this.scope, this, images);
    return doc instanceof ImagesFailure ? loadFailed(doc) : outcome(prepared.program.search(doc));
  }

  wholeDocument(): Record<string, unknown> {
    return (this.whole ??= kyvernoDocument(this.scope));
  }
}

/** A query a load failed before (or whose document could not be made): the loader's error, as the query's. */
function loadFailed(f: LoadFailure): QueryOutcome {
  return { ok: false, message: f.message, notFound: false };
}

/**
 * The context document for one program (`requestObjectOnly`: readsRequestObjectOnly(program)), or the
 * ImagesFailure of a program reading Kyverno's `images` where they fail to load; the whole document is the
 * environment's, built once per evaluation, when there is one.
 */
function documentFor(program: JmesProgram, requestObjectOnly: boolean, scope: ExprScope, env: ScopeSubstitutionEnv | undefined, images: QueryImages | undefined): unknown {
  if (requestObjectOnly && scope.lookup !== undefined && scope.lookup('request') === undefined) {
    return { request: { object: scope.object ?? null } };
  }
  const names = program.rootFields;
  if (names !== undefined) {
    const doc = kyvernoDocumentFields(scope, names, images);
    if (doc !== undefined) return doc;
  }
  return env !== undefined ? env.wholeDocument() : kyvernoDocument(scope);
}

/** The substitution environment of one evaluation. */
export function substitutionEnv(scope: ExprScope): SubstitutionEnv {
  return new ScopeSubstitutionEnv(scope);
}

function failed(code: 'TM3003' | 'TM3004' | 'TM6002', message: string, origin: Origin): ExprOutcome {
  return { ok: false, diagnostic: evalDiagnostic(code, message, origin) };
}

function evalDiagnostic(code: 'TM3003' | 'TM3004' | 'TM6002', message: string, origin: Origin): Diagnostic {
  return diagnostic(code, { phase: 'eval', message, span: origin, dialect: origin.dialect });
}

function compileExpression(expr: ExprSource): { ok: true; fn: CompiledExpr } | { ok: false; diagnostics: Diagnostic[] } {
  const opaque = readOpaque(expr.text);
  if (opaque?.kind === 'conditions') {
    const evaluate = compileConditions(opaque.json, prepareJmesQuery);
    return {
      ok: true,
      fn: (scope) => {
        const r = evaluate(substitutionEnv(scope));
        // A success has the shape of an ExprOutcome already.
        return r.ok ? r : failed('TM3003', r.message, expr.origin);
      },
    };
  }
  if (opaque?.kind === 'context') {
    const entry = opaque.json;
    return {
      ok: true,
      fn: (scope) => {
        const r = loadContextEntry(entry, substitutionEnv(scope), queryJmes, scope.runtime?.imageData, scope.runtime?.kyvernoData?.apiGet);
        return r.ok ? { ok: true, value: r.value } : failed('TM3004', r.message, expr.origin);
      },
    };
  }
  const program = compileJmesCached(expr.text);
  if (!program.ok) {
    return { ok: false, diagnostics: program.diagnostics.map((d) => ({ ...d, span: d.span ?? expr.origin, dialect: expr.origin.dialect })) };
  }
  const p = program.value;
  const requestObjectOnly = readsRequestObjectOnly(p);
  return {
    ok: true,
    fn: (scope) => {
      const images = queryImages(scope, expr.text);
      const loaded = loadMentioned(scope, expr.text, images);
      if (loaded !== undefined) return failed('TM6002', loaded.message, expr.origin);
      const doc = documentFor(p, requestObjectOnly, scope, undefined, images);
      if (doc instanceof ImagesFailure) return failed('TM6002', doc.message, expr.origin);
      const r = p.search(doc);
      if (r.ok) return { ok: true, value: r.value as JsonValue };
      return failed('TM6002', r.error.message, expr.origin);
    },
  };
}

/**
 * The substitution environment of a preconditions block whose variables all read `request.object` or
 * `request.operation` through whole-hole queries (see directConditions): the context document is
 * `{request: {object, operation}}`, these two fields as the Kyverno document (dialects/kyverno/document.ts
 * requestDocument) holds them: the object or null, the operation, an own field even when unset. One per
 * compiled block, set for each evaluation (the document never leaves it: such queries return the object's
 * values or the operation, never the document).
 */
class ObjectSubstitutionEnv implements SubstitutionEnv {
  readonly isDelete = false;
  readonly doc: { request: { object: JsonValue | null; operation: string | undefined } } = { request: { object: null, operation: undefined } };

  query(expression: string): QueryOutcome {
    return queryJmes(expression, this.doc);
  }

  run(prepared: PreparedQuery): QueryOutcome {
    return prepared instanceof PreparedJmes ? outcome(prepared.program.search(this.doc)) : this.query(prepared.expression);
  }
}

/** A whole-hole `key` or `value` of a direct block, queried straight against its document (queryPreparedHole). */
const directSlot: SlotCompiler = (text, pointer) => {
  const body = wholeHoleBody(text);
  const prepared = body === undefined ? undefined : prepareJmesQuery(holeQuery(body));
  if (!(prepared instanceof PreparedJmes)) return undefined;
  const { program, expression } = prepared;
  return (env) => holeOutcome(outcome(program.search((env as ObjectSubstitutionEnv).doc)), expression, pointer);
};

/**
 * field-conditions.ts ObjectFieldOf: a whole hole whose query is a simple read of a chain of fields
 * `request.object....`, or of `request.operation` (not its length).
 */
export const objectFieldOf: ObjectFieldOf = (text) => {
  const body = wholeHoleBody(text);
  const prepared = body === undefined ? undefined : prepareJmesQuery(holeQuery(body));
  const read = prepared instanceof PreparedJmes ? prepared.program.simpleRead : undefined;
  if (read === undefined || read.path.length < 2 || read.path[0] !== 'request') return undefined;
  if (read.path[1] === 'object') return { ...read, of: 'object', path: read.path.slice(2) };
  return read.path[1] === 'operation' && read.path.length === 2 && read.kind !== 'length' ? { ...read, of: 'operation', path: [] } : undefined;
};

const HOLDS: ExprOutcome = Object.freeze({ ok: true, value: true });
const FAILS: ExprOutcome = Object.freeze({ ok: true, value: false });

/** Whether every string of `v` holding `{{` is one hole whose query reads `request.object` or `request.operation` only. */
function readsDirectHolesOnly(v: JsonValue): boolean {
  if (typeof v === 'string') {
    if (!v.includes('{{')) return true;
    const body = wholeHoleBody(v);
    if (body === undefined) return false;
    const prepared = prepareJmesQuery(holeQuery(body));
    return prepared instanceof PreparedJmes && prepared.direct;
  }
  if (Array.isArray(v)) return v.every(readsDirectHolesOnly);
  if (v !== null && typeof v === 'object') return Object.keys(v).every((k) => !k.includes('{{') && readsDirectHolesOnly(v[k]!));
  return true;
}

/**
 * A Kyverno preconditions block (the `conditions` opaque expression, opaque.ts) evaluated against the object
 * and the request's operation, for a caller that holds them rather than an expression scope (the generated
 * compiler's guards, issue 17): what JMES_ENGINE's evaluation gives when the operation is not DELETE (which
 * rewrites the queries) and no variable named `request` is in scope. Undefined unless every variable of the
 * block is one hole reading `request.object` or `request.operation` only (a partial string is substituted
 * again while its text holds a hole).
 */
export function directConditions(block: JsonValue, origin: Origin): ((object: JsonValue | null, operation: string | undefined) => ExprOutcome) | undefined {
  // A query mentioning `images` loads them (deferred-loading.ts), which may fail: the general evaluation decides.
  if (!readsDirectHolesOnly(block) || mentions(JSON.stringify(block), 'images')) return undefined;
  const evaluate = compileConditions(block, prepareJmesQuery, directSlot);
  const fields = fieldConditions(block, objectFieldOf);
  const env = new ObjectSubstitutionEnv();
  return (object, operation) => {
    if (fields !== undefined) {
      const holds = fields(object, operation);
      if (holds !== undefined) return holds ? HOLDS : FAILS;
    }
    const request = env.doc.request;
    request.object = object;
    request.operation = operation;
    let r: Substituted<boolean>;
    try {
      r = evaluate(env);
    } finally {
      request.object = null;
      request.operation = undefined;
    }
    // As compileExpression's conditions: a success has the shape of an ExprOutcome already.
    return r.ok ? r : failed('TM3003', r.message, origin);
  };
}

export const JMES_ENGINE: ExpressionEngine = { compile: compileExpression };

export const KYVERNO_TEMPLATE_ENGINE: TemplateEngine = {
  compile(value) {
    const json = value.json;
    if (!treeHasVariables(json)) return { ok: true, fn: () => ({ ok: true, value: json }) };
    const substitute = compileTree(json, prepareJmesQuery);
    return {
      ok: true,
      fn: (scope) => {
        const r = substitute(substitutionEnv(scope));
        return r.ok ? r : failed('TM3004', `variable substitution failed: ${r.message}`, value.origin);
      },
    };
  },
};
