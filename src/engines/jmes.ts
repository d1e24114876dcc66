/**
 * The `jmes` expression engine and the `kyverno` template engine: JMESPath as Kyverno runs it (src/jmespath)
 * over Kyverno's JSON context (src/dialects/kyverno/document.ts), plus the Kyverno constructs kept opaque in
 * `jmes` nodes (preconditions, context entries: src/dialects/kyverno/opaque.ts). The default runtime
 * (src/runtime/create.ts) holds both.
 */
import { diagnostic, type Diagnostic } from '../diagnostics/diagnostic.js';
import { loadContextEntry } from '../dialects/kyverno/context.js';
import { kyvernoDocument, kyvernoDocumentFields } from '../dialects/kyverno/document.js';
import { readOpaque } from '../dialects/kyverno/opaque.js';
import { compileConditions } from '../dialects/kyverno/preconditions.js';
import { compileTree } from '../dialects/kyverno/template.js';
import { treeHasVariables, type QueryOutcome, type SubstitutionEnv } from '../dialects/kyverno/variables.js';
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
  return r.ok ? { ok: true, value: r.value } : { ok: false, message: r.error.message, notFound: r.error.kind === 'NotFound' };
}

/**
 * The context document for one program: only the root fields it reads when it names them (most queries
 * read `request` or one variable), else the whole document, built once per evaluation (`whole`).
 */
function documentFor(program: JmesProgram, scope: ExprScope, whole: { doc?: Record<string, unknown> }): unknown {
  const names = program.rootFields;
  if (names !== undefined) {
    const doc = kyvernoDocumentFields(scope, names);
    if (doc !== undefined) return doc;
  }
  return (whole.doc ??= kyvernoDocument(scope));
}

/** The substitution environment of one evaluation: queries read the context document built from the scope. */
export function substitutionEnv(scope: ExprScope): SubstitutionEnv {
  const whole: { doc?: Record<string, unknown> } = {};
  return {
    isDelete: scope.request.operation === 'DELETE',
    query: (expression) => {
      const program = compileJmesCached(expression.trim());
      if (!program.ok) return { ok: false, message: program.diagnostics[0]?.message ?? `invalid JMESPath ${expression}`, notFound: false };
      return outcome(program.value.search(documentFor(program.value, scope, whole)));
    },
  };
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
    const evaluate = compileConditions(opaque.json);
    return {
      ok: true,
      fn: (scope) => {
        const r = evaluate(substitutionEnv(scope));
        return r.ok ? { ok: true, value: r.value } : failed('TM3003', r.message, expr.origin);
      },
    };
  }
  if (opaque?.kind === 'context') {
    const entry = opaque.json;
    return {
      ok: true,
      fn: (scope) => {
        const r = loadContextEntry(entry, substitutionEnv(scope), queryJmes, scope.runtime?.imageData);
        return r.ok ? { ok: true, value: r.value } : failed('TM3004', r.message, expr.origin);
      },
    };
  }
  const program = compileJmesCached(expr.text);
  if (!program.ok) {
    return { ok: false, diagnostics: program.diagnostics.map((d) => ({ ...d, span: d.span ?? expr.origin, dialect: expr.origin.dialect })) };
  }
  const p = program.value;
  return {
    ok: true,
    fn: (scope) => {
      const r = p.search(documentFor(p, scope, {}));
      if (r.ok) return { ok: true, value: r.value as JsonValue };
      return failed('TM6002', r.error.message, expr.origin);
    },
  };
}

export const JMES_ENGINE: ExpressionEngine = { compile: compileExpression };

export const KYVERNO_TEMPLATE_ENGINE: TemplateEngine = {
  compile(value) {
    const json = value.json;
    if (!treeHasVariables(json)) return { ok: true, fn: () => ({ ok: true, value: json }) };
    const substitute = compileTree(json);
    return {
      ok: true,
      fn: (scope) => {
        const r = substitute(substitutionEnv(scope));
        return r.ok ? { ok: true, value: r.value } : failed('TM3004', `variable substitution failed: ${r.message}`, value.origin);
      },
    };
  },
};
