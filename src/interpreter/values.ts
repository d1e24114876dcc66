import { hasOwn, isJsonObject, type JsonValue } from '../ir/json.js';
import { newEpoch } from './walk.js';
import type { TemplatedValue, Value } from '../ir/nodes.js';
import type { CompiledExpr, TemplateEngine } from './engines.js';
import { exprEvaluator, exprScope, ExprProgram } from './expressions.js';
import { placeholderFor } from './external.js';
import { EvalFailure, evalFailure } from './failure.js';
import { readFirst } from './read.js';
import type { Scope } from './scope.js';
import type { EvalState } from './state.js';

/** `current` is the value already at the place being written, for values that depend on it (external data). */
export type ValueFn = (st: EvalState, scope: Scope, current?: JsonValue) => JsonValue;

/**
 * Compiles a value node to a closure evaluated per request (and per loop iteration). A value read from the
 * documents may be a subtree of the object: storing it would give that subtree a second parent, so in-place
 * writes stop until the next snapshot (EvalState.owned).
 */
export function compileValue(v: Value): ValueFn {
  if (v.kind === 'cel' || v.kind === 'jmes') return exprValue(v, true);
  const fn = compileValueNode(v);
  if (v.kind === 'literal' || v.kind === 'fromMetadata' || v.kind === 'external') return fn;
  return (st, scope, current) => {
    const r = fn(st, scope, current);
    if (r !== null && typeof r === 'object') st.owned = newEpoch();
    return r;
  };
}

/**
 * compileValue without its end of in-place writes: for a caller that ends them itself once it has stored the
 * value (ops/merge.ts), and that can tell from `st.owned` whether evaluating it ended them already.
 */
export function compileValueNode(v: Value): ValueFn {
  switch (v.kind) {
    case 'literal': {
      const json = v.json;
      return () => json;
    }
    case 'ref':
      return (st, scope) => {
        const found = readFirst(st, v.path, scope);
        if (found === undefined) throw evalFailure('TM3004', 'the referenced path does not exist', v.origin);
        return found;
      };
    case 'fromMetadata':
      // Gatekeeper reads the object's own metadata (assign_mutator.go: fromMetadata), empty string when unset.
      return (st) => {
        const meta = isJsonObject(st.object) && hasOwn(st.object, 'metadata') ? st.object.metadata : undefined;
        const found = isJsonObject(meta) && hasOwn(meta, v.field) ? meta[v.field] : undefined;
        return typeof found === 'string' ? found : '';
      };
    case 'cel':
    case 'jmes':
      return exprValue(v, false);
    case 'template':
      return compileTemplate(v);
    case 'templated':
      return compileTemplated(v);
    case 'external':
      // A placeholder, resolved once the whole request has been mutated (see external.ts).
      return (st, _scope, current) => {
        st.placeholders++;
        return placeholderFor(v, st, current) as unknown as JsonValue;
      };
  }
}

/** The failure of an expression that gave no value. */
export function noValueFailure(v: Extract<Value, { kind: 'cel' | 'jmes' }>): EvalFailure {
  return evalFailure('TM3004', `the ${v.kind === 'cel' ? 'CEL' : 'JMESPath'} expression produced no value`, v.origin);
}

/**
 * An expression's value (compileValueNode), and with `endsInPlace` compileValue's end of in-place writes: one
 * closure that calls the engine's program itself (each closure between them would be a call V8 sees with every
 * expression's target).
 */
function exprValue(v: Extract<Value, { kind: 'cel' | 'jmes' }>, endsInPlace: boolean): ValueFn {
  const program = new ExprProgram(v.kind, v.expr);
  return (st, scope) => {
    const r = program.fnFor(st.runtime)(exprScope(st, scope));
    if (!r.ok) throw new EvalFailure(r.diagnostic);
    const value = r.value;
    if (value === undefined) throw noValueFailure(v);
    if (endsInPlace && value !== null && typeof value === 'object') st.owned = newEpoch();
    return value;
  };
}

/** Templated trees compiled per engine (runtimes that share an engine share them) and per IR node. */
const templatesByEngine = new WeakMap<TemplateEngine, WeakMap<TemplatedValue, CompiledExpr>>();

function compileTemplatedWith(engine: TemplateEngine, v: TemplatedValue): CompiledExpr {
  let compiled = templatesByEngine.get(engine);
  if (!compiled) templatesByEngine.set(engine, (compiled = new WeakMap()));
  let fn = compiled.get(v);
  if (fn) return fn;
  const r = engine.compile(v);
  if (r.ok) fn = r.fn;
  else {
    const first = r.diagnostics[0]!;
    fn = () => ({ ok: false, diagnostic: first });
  }
  compiled.set(v, fn);
  return fn;
}

function compileTemplated(v: TemplatedValue): ValueFn {
  // The engine is the evaluation's runtime's; the program of the last engine met is kept.
  let lastEngine: TemplateEngine | undefined;
  let lastFn: CompiledExpr | undefined;
  return (st, scope) => {
    const engine = st.runtime.templates[v.language];
    if (!engine) throw evalFailure('TM3005', `no ${v.language} template engine is available`, v.origin);
    let fn = lastFn;
    if (engine !== lastEngine || fn === undefined) {
      fn = compileTemplatedWith(engine, v);
      lastEngine = engine;
      lastFn = fn;
    }
    const r = fn(exprScope(st, scope));
    if (!r.ok) throw new EvalFailure(r.diagnostic);
    if (r.value === undefined) throw evalFailure('TM3004', 'the template produced no value', v.origin);
    return r.value;
  };
}

function compileTemplate(v: Extract<Value, { kind: 'template' }>): ValueFn {
  const parts = v.parts.map((p) => (typeof p === 'string' ? p : { jmes: p.jmes, evaluate: exprEvaluator('jmes', { text: p.jmes, origin: v.origin }) }));
  return (st, scope) => {
    // A template that is a single hole keeps the JSON type of its result (Kyverno whole-string substitution).
    if (parts.length === 1 && typeof parts[0] !== 'string') {
      const r = parts[0]!.evaluate(st, scope);
      if (r === undefined) throw evalFailure('TM3004', `template variable {{ ${parts[0]!.jmes} }} has no value`, v.origin);
      return r;
    }
    let out = '';
    for (const p of parts) {
      if (typeof p === 'string') out += p;
      else {
        const r = p.evaluate(st, scope);
        if (r === undefined) throw evalFailure('TM3004', `template variable {{ ${p.jmes} }} has no value`, v.origin);
        out += typeof r === 'string' ? r : JSON.stringify(r);
      }
    }
    return out;
  };
}
