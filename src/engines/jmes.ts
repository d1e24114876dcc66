/**
 * The `jmes` expression engine and the `kyverno` template engine: JMESPath as Kyverno runs it (src/jmespath)
 * over Kyverno's JSON context (src/dialects/kyverno/document.ts), plus the Kyverno constructs kept opaque in
 * `jmes` nodes (preconditions, context entries: src/dialects/kyverno/opaque.ts). Call `registerJmesEngine()`
 * once at start-up; registering again is harmless.
 */
import { diagnostic, type Diagnostic } from '../diagnostics/diagnostic.js';
import { loadContextEntry } from '../dialects/kyverno/context.js';
import { kyvernoDocument } from '../dialects/kyverno/document.js';
import { readOpaque } from '../dialects/kyverno/opaque.js';
import { evaluateConditions } from '../dialects/kyverno/preconditions.js';
import { substituteTree, treeHasVariables, type QueryOutcome, type SubstitutionEnv } from '../dialects/kyverno/variables.js';
import {
  registerExpressionEngine,
  registerTemplateEngine,
  type CompiledExpr,
  type ExprOutcome,
  type ExprScope,
  type ExpressionEngine,
  type TemplateEngine,
} from '../interpreter/engines.js';
import type { JsonValue } from '../ir/json.js';
import type { ExprSource, Origin } from '../ir/nodes.js';
import { compileJmesCached } from '../jmespath/index.js';

/** Queries a JMESPath expression against data with Kyverno's error model. */
export function queryJmes(expression: string, data: unknown): QueryOutcome {
  const program = compileJmesCached(expression.trim());
  if (!program.ok) return { ok: false, message: program.diagnostics[0]?.message ?? `invalid JMESPath ${expression}`, notFound: false };
  const r = program.value.search(data);
  return r.ok ? { ok: true, value: r.value } : { ok: false, message: r.error.message, notFound: r.error.kind === 'NotFound' };
}

/** The substitution environment of one evaluation: queries read the context document built from the scope. */
export function substitutionEnv(scope: ExprScope): SubstitutionEnv {
  let doc: Record<string, unknown> | undefined;
  return {
    isDelete: scope.request.operation === 'DELETE',
    query: (expression) => queryJmes(expression, (doc ??= kyvernoDocument(scope))),
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
    const block = opaque.json;
    return {
      ok: true,
      fn: (scope) => {
        const r = evaluateConditions(block, substitutionEnv(scope));
        return r.ok ? { ok: true, value: r.value } : failed('TM3003', r.message, expr.origin);
      },
    };
  }
  if (opaque?.kind === 'context') {
    const entry = opaque.json;
    return {
      ok: true,
      fn: (scope) => {
        const r = loadContextEntry(entry, substitutionEnv(scope), queryJmes);
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
      const r = p.search(kyvernoDocument(scope));
      if (r.ok) return { ok: true, value: r.value as JsonValue };
      return failed('TM6002', r.error.message, expr.origin);
    },
  };
}

const JMES_ENGINE: ExpressionEngine = { compile: compileExpression };

const KYVERNO_TEMPLATES: TemplateEngine = {
  compile(value) {
    const json = value.json;
    if (!treeHasVariables(json)) return { ok: true, fn: () => ({ ok: true, value: json }) };
    return {
      ok: true,
      fn: (scope) => {
        const r = substituteTree(json, substitutionEnv(scope));
        return r.ok ? { ok: true, value: r.value } : failed('TM3004', `variable substitution failed: ${r.message}`, value.origin);
      },
    };
  },
};

export function registerJmesEngine(): void {
  registerExpressionEngine('jmes', JMES_ENGINE);
  registerTemplateEngine('kyverno', KYVERNO_TEMPLATES);
}
