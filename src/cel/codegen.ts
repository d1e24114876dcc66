/**
 * Per-program code generation: writes a compiled program's node tree (compile.ts) out as JavaScript source,
 * evaluated once with `new Function`, so each program runs its own code.
 *
 * Why: closures built from the same function literals share V8's type feedback across every program, so one
 * program's shapes make another's code polymorphic (issue 17: the E2 benchmark ran 2–13× slower than
 * hand-written JS depending on which expressions ran first). Generated code has feedback of its own.
 *
 * Exactness: each IR kind is written as the statements its closure executes, with the same children in the
 * same order, the same helpers (CODEGEN_HELPERS) and the same cost charges; nodes without IR, and subtrees
 * nested deeper than MAX_DEPTH, run their closure (`k3(c)`), which reads comprehension variables from
 * `c.locals`, so loops around such closures also store their variables there.
 * User strings reach the source only through JSON.stringify; every other value is passed in as a constant.
 *
 * JSON evaluators (generateJsonEvaluator, for MAP mutations) build the JSON the engine consumes instead of a CEL
 * value converted afterwards (issue 17: the conversion walk and the `Object.*` values it walked cost more than
 * building the result): same statements, only the containers on the way to the result differ; when a
 * conversion fails, the reference runs (direct-json.ts).
 */
import { CODEGEN_HELPERS, type Ir, type Node, type RuntimeServices } from './compile.js';
import { constantJson, DIRECT_JSON_HELPERS } from './direct-json.js';
import { isSafeFieldName } from './fastpath.js';
import { checkTypeNames, jsonAt, mutationResultToJson, patchValueJson } from './mutation.js';
import { CelObject, ConstantJsonPatch } from './values.js';

/** Generated nesting depth; deeper subtrees run as closures (keeps the source within the parser's limits). */
const MAX_DEPTH = 48;
/** Larger programs stay closures: parsing them would cost more than it saves. */
const MAX_SOURCE_CHARS = 200_000;

/** Helpers the generated source names, bound once per program (`h_name`). */
const HELPER_NAMES = [
  'ABSENT',
  'isFatal',
  'comprehensionItems',
  'comprehensionValues',
  'select',
  'optSelect',
  'hasField',
  'index',
  'optIndex',
  'neg',
  'not',
  'noOverload',
  'noAttribute',
  'optionalOf',
  'NONE',
  'CelError',
  'CelCostLimitError',
  'kindOf',
  'hasOwn',
] as const satisfies readonly (keyof typeof CODEGEN_HELPERS)[];

/**
 * What program.ts's evaluation does around the root, for the generated evaluator to do the same. A success
 * is `{ ok: true, value, cost }` (CelResult), written in the source so V8 sees one allocation site per program.
 */
export interface EvalFrame<R> {
  staticCost: number;
  slots: number;
  defaultCostLimit: number;
  /** Whether the activation's keys are checked for dots (no declared variables). */
  checksDotted: boolean;
  hasDottedKey(act: Record<string, unknown>): boolean;
  noServices: RuntimeServices;
  /** `c.locals` of programs that read none. */
  noLocals: unknown[];
  /** The result check (MAP's expected result types), undefined when there is none. */
  checkResult: ((value: unknown) => string | undefined) | undefined;
  /** What is thrown during evaluation, as a result (or rethrown). */
  failure(e: unknown, cost: number): R;
  /** `failure`'s result for an evaluation asked for its value alone (`raw`): an object no value can be. */
  rawFailure(e: unknown, cost: number): unknown;
}

/**
 * A generated program: its result, or with `raw` its value alone (a failure then as the frame's rawFailure
 * makes it), which spares the result object where the caller reads the value at once.
 */
export type Evaluator<R> = (act: Record<string, unknown>, opts: { costLimit?: number; services?: RuntimeServices } | undefined, raw?: boolean) => R;

/**
 * The program written out as one evaluator (context set-up, root, result), or undefined when it gains
 * nothing (no IR at the root) or is too large. The evaluator is generated too, with the root's code in its body:
 * a root called from shared code is a call V8 cannot inline, so the context object would be allocated per
 * evaluation; in one function V8 can keep the context in registers.
 */
export function generateEvaluator<R>(root: Node, frame: EvalFrame<R>): Evaluator<R> | undefined {
  return evaluatorOf(generatedSource(root, frame), frame);
}

/**
 * What a JSON evaluator does besides EvalFrame: `reference` evaluates the program and converts its value with
 * mutation.ts mutationResultToJson, failing as that conversion fails (direct-json.ts says when it runs).
 */
export interface JsonEvalFrame<R> extends EvalFrame<R> {
  /** The reference evaluation; with `raw`, its value alone or its failure as rawFailure makes it. */
  reference(act: Record<string, unknown>, opts: { costLimit?: number; services?: RuntimeServices } | undefined, raw?: boolean): unknown;
}

/**
 * The program written out as an evaluator whose value is mutationResultToJson of the program's value (same
 * value, same errors, same cost), building the `Object` literals, lists of `JSONPatch` literals and the lists,
 * maps and branches that hold them as that JSON directly; undefined when the result builds none of them.
 */
export function generateJsonEvaluator<R>(root: Node, frame: JsonEvalFrame<R>): Evaluator<R> | undefined {
  return evaluatorOf(generatedSource(root, frame, 'json'), frame);
}

function evaluatorOf<R>(source: { text: string; constants: unknown[] } | undefined, frame: EvalFrame<R>): Evaluator<R> | undefined {
  if (source === undefined) return undefined;
  // eslint-disable-next-line @typescript-eslint/no-implied-eval
  const factory = new Function('K', 'H', 'F', 'J', source.text) as (k: readonly unknown[], h: typeof CODEGEN_HELPERS, f: EvalFrame<R>, j: typeof DIRECT_JSON_HELPERS) => Evaluator<R>;
  return factory(source.constants, CODEGEN_HELPERS, frame, DIRECT_JSON_HELPERS);
}

/**
 * The source generateEvaluator (or with `json`, generateJsonEvaluator) evaluates (parameters K: constants,
 * H: helpers, F: the frame, J: the direct-JSON helpers).
 */
export function generatedSource(root: Node, frame: EvalFrame<unknown>, result: 'value' | 'json' = 'value'): { text: string; constants: unknown[] } | undefined {
  const json = result === 'json';
  // The result check is of the CEL value, which a JSON evaluator does not make.
  if (root.constant || !root.ir || (json && frame.checkResult)) return undefined;
  // The context in locals unless code the generator does not write (an embedded closure) is handed it.
  let g = new Generator(LOCAL_CONTEXT);
  let body: string[] = [];
  let value = json ? g.emitJson(root, body, 0, RESULT) : g.emit(root, body, 0);
  if (g.needsContextObject) {
    g = new Generator(OBJECT_CONTEXT);
    body = [];
    value = json ? g.emitJson(root, body, 0, RESULT) : g.emit(root, body, 0);
  }
  if (json && g.directs === 0) return undefined;
  const binds = [
    ...HELPER_NAMES.map((n) => `const h_${n} = H.${n};`),
    ...(json ? DIRECT_JSON_NAMES.map((n) => `const j_${n} = J.${n};`) : []),
    ...g.constants.map((_, i) => `const k${i} = K[${i}];`),
    'const noServices = F.noServices;',
    'const checkResult = F.checkResult;',
  ];
  const locals = g.usesLocals && frame.slots > 0 ? `new Array(${frame.slots})` : 'F.noLocals';
  const limit = `(opts === undefined ? undefined : opts.costLimit) ?? ${frame.defaultCostLimit}`;
  const services = '(opts === undefined ? undefined : opts.services) ?? noServices';
  const cx = g.cx;
  const context =
    cx === OBJECT_CONTEXT
      ? [
          'const c = {',
          'act,',
          `locals: ${locals},`,
          `cost: ${frame.staticCost},`,
          `limit: ${limit},`,
          `dotted: ${frame.checksDotted ? 'F.hasDottedKey(act)' : 'false'},`,
          `services: ${services},`,
          '};',
        ]
      : // `dotted` is read by closures only (compile.ts), which this evaluator has none of.
        [`let cost = ${frame.staticCost};`, `const limit = ${limit};`, ...(g.usesServices ? [`const services = ${services};`] : []), ...(g.usesLocals ? [`const locals = ${locals};`] : [])];
  const evaluator = [
    'return function evaluate(act, opts, raw) {',
    ...context,
    'try {',
    `if (${cx.cost} > ${cx.limit}) throw new h_CelCostLimitError();`,
    ...body,
    `const value = ${value};`,
    ...(frame.checkResult ? ['const problem = checkResult(value);', 'if (problem !== undefined) throw new h_CelError(problem);'] : []),
    'if (raw === true) return value;',
    `return { ok: true, value, cost: ${cx.cost} };`,
    '} catch (e) {',
    ...(json ? ['if (e === j_NEEDS_REFERENCE) return F.reference(act, opts, raw);'] : []),
    `return raw === true ? F.rawFailure(e, ${cx.cost}) : F.failure(e, ${cx.cost});`,
    '}',
    '};',
  ];
  const text = `'use strict';\n${binds.join('\n')}\n${evaluator.join('\n')}`;
  if (text.length > MAX_SOURCE_CHARS) return undefined;
  return { text, constants: g.constants };
}

/** How the generated code names the evaluation's context (compile.ts Ctx): its fields, or locals of the evaluator. */
interface ContextNames {
  readonly act: string;
  readonly cost: string;
  readonly limit: string;
  readonly services: string;
  readonly locals: string;
}

/** The context as the object `c`, which embedded closures are handed. */
const OBJECT_CONTEXT: ContextNames = { act: 'c.act', cost: 'c.cost', limit: 'c.limit', services: 'c.services', locals: 'c.locals' };
/**
 * The context as the evaluator's locals: no object per evaluation (V8 allocates `c` where the try block's
 * handler reads it, measured: a MAP policy's dozen evaluations per object made a kilobyte of them, issue 17).
 */
const LOCAL_CONTEXT: ContextNames = { act: 'act', cost: 'cost', limit: 'limit', services: 'services', locals: 'locals' };

/** Direct-JSON helpers the generated source names (`j_name`). */
const DIRECT_JSON_NAMES = Object.keys(DIRECT_JSON_HELPERS) as (keyof typeof DIRECT_JSON_HELPERS)[];

/**
 * Where a value built as JSON goes: the program's result (mutationResultToJson), or a position inside an `Object`
 * result (mutation.ts jsonAt: below the literal named `parent`, in its field `field`).
 */
type JsonPosition = typeof RESULT | { readonly parent: string; readonly field: string | undefined };
const RESULT = 'result';

const COMPARISONS: Record<string, string> = { '_<_': '<', '_<=_': '<=', '_>_': '>', '_>=_': '>=', '_==_': '===', '_!=_': '!==' };

class Generator {
  readonly constants: unknown[] = [];
  /** Set when the code reads `services` (a library function given the runtime's services). */
  usesServices = false;

  constructor(readonly cx: ContextNames) {}

  /** Whether the code hands the context to code it did not write (an embedded closure): `c` must then be an object. */
  get needsContextObject(): boolean {
    return this.closures > 0;
  }

  private readonly constantIds = new Map<unknown, number>();
  private temps = 0;
  /** Closures embedded so far (a loop whose body embeds one also stores its variables in c.locals). */
  private closures = 0;
  /** Set when a comprehension variable is read from `c.locals` rather than a JS local. */
  private readsLocals = false;
  /** Containers emitJson built as JSON (none: a JSON evaluator would only convert at the end, as the reference). */
  directs = 0;
  /** Comprehension slots bound as JS locals where the code being generated runs. */
  private readonly boundSlots = new Set<number>();

  /** Whether the code reads `c.locals` (embedded closures may). */
  get usesLocals(): boolean {
    return this.closures > 0 || this.readsLocals;
  }

  /** Appends the statements computing `node` to `out`; returns an expression (a name or literal) for its value. */
  emit(node: Node, out: string[], depth: number): string {
    if (node.constant) return this.literal(node.constant.value);
    const ir = node.ir;
    // A literal `__proto__` key would set the prototype: fixedKeyLiteral's callers exclude it, and so does this.
    if (!ir || depth > MAX_DEPTH || (ir.op === 'object' && ir.keys.includes('__proto__'))) return this.closure(node, out);
    return this.emitIr(ir, out, depth + 1);
  }

  private emitIr(ir: Ir, out: string[], d: number): string {
    switch (ir.op) {
      case 'slot':
        if (this.boundSlots.has(ir.slot)) return `v${ir.slot}`;
        this.readsLocals = true;
        return `${this.cx.locals}[${ir.slot}]`;
      case 'variable': {
        const t = this.temp();
        const name = JSON.stringify(ir.name);
        out.push(`const ${t} = ${this.cx.act}[${name}];`, `if (${t} === undefined) h_noAttribute(${name});`);
        return t;
      }
      case 'chain':
        return this.chain(ir, out, d);
      case 'optional': {
        const v = this.emit(ir.chain, out, d);
        const t = this.temp();
        out.push(`const ${t} = ${v} === h_ABSENT ? h_NONE : h_optionalOf(${v});`);
        return t;
      }
      case 'orValue': {
        const v = this.emit(ir.chain, out, d);
        const t = this.temp();
        const fallback: string[] = [];
        const f = this.emit(ir.fallback, fallback, d);
        out.push(`let ${t};`, `if (${v} === h_ABSENT) {`, ...fallback, `${t} = ${f};`, `} else ${t} = ${v};`);
        return t;
      }
      case 'has': {
        const o = this.emit(ir.operand, out, d);
        const t = this.temp();
        const field = JSON.stringify(ir.field);
        out.push(
          isSafeFieldName(ir.field)
            ? `const ${t} = ${isJsonObject(o)} ? h_hasOwn.call(${o}, ${field}) : h_hasField(${o}, ${field});`
            : `const ${t} = h_hasField(${o}, ${field});`,
        );
        return t;
      }
      case 'index': {
        const x = this.emit(ir.operand, out, d);
        const i = this.emit(ir.index, out, d);
        const t = this.temp();
        out.push(
          ir.optional
            ? `const ${t} = h_optIndex(${x}, ${i});`
            : `const ${t} = Array.isArray(${x}) && typeof ${i} === 'number' && Number.isSafeInteger(${i}) && ${i} >= 0 && ${i} < ${x}.length ? ${x}[${i}] : h_index(${x}, ${i});`,
        );
        return t;
      }
      case 'binary':
        return this.binary(ir, out, d);
      case 'unary': {
        const a = this.emit(ir.a, out, d);
        const t = this.temp();
        out.push(ir.fn === '!_' ? `const ${t} = typeof ${a} === 'boolean' ? !${a} : h_not(${a});` : `const ${t} = h_neg(${a});`);
        return t;
      }
      case 'logical':
        return this.logical(ir, out, d);
      case 'conditional':
        return this.conditional(ir, out, d, undefined);
      case 'call': {
        const args = ir.args.map((a) => this.emit(a, out, d));
        const t = this.temp();
        // compile.ts charge, written out.
        if (ir.costFn) out.push(`${this.cx.cost} += ${this.constant(ir.costFn)}(${args.join(', ')});`, `if (${this.cx.cost} > ${this.cx.limit}) throw new h_CelCostLimitError();`);
        if (ir.services) this.usesServices = true;
        const all = ir.services ? [this.cx.services, ...args] : args;
        out.push(`const ${t} = ${this.constant(ir.impl)}(${all.join(', ')});`);
        return t;
      }
      case 'list': {
        const els = ir.elements.map((x) => this.emit(x, out, d));
        const t = this.temp();
        out.push(`const ${t} = [${els.join(', ')}];`);
        return t;
      }
      case 'object': {
        const vals = ir.values.map((x) => this.emit(x, out, d));
        const t = this.temp();
        const literal = `{${ir.keys.map((k, i) => `${JSON.stringify(k)}: ${vals[i]}`).join(', ')}}`;
        out.push(`const ${t} = ${ir.wrap ? `${this.constant(ir.wrap)}(${literal})` : literal};`);
        return t;
      }
      case 'comprehension':
        return this.comprehension(ir, out, d);
    }
  }

  /**
   * Like emit, for a value that goes to `at` as JSON: returns an expression for that JSON. Containers of the
   * shapes below are built as JSON (their values converted as they go there); any other value is converted.
   */
  emitJson(node: Node, out: string[], depth: number, at: JsonPosition): string {
    const direct = this.directJson(node, out, depth, at);
    if (direct !== undefined) return direct;
    const v = this.emit(node, out, depth);
    const t = this.temp();
    out.push(at === RESULT ? `const ${t} = j_resultJson(${v});` : `const ${t} = j_jsonAt(${v}, ${this.position(at)});`);
    return t;
  }

  /** The JSON of `node` at `at` built directly, or undefined when it is not of a shape built so. */
  private directJson(node: Node, out: string[], depth: number, at: JsonPosition): string | undefined {
    if (node.constant) {
      const value = node.constant.value;
      const made = constantJson(at === RESULT ? () => mutationResultToJson(value) : () => jsonAt(value, at.parent, at.field));
      return made === undefined ? undefined : this.literal(made.json);
    }
    const ir = node.ir;
    if (!ir || depth > MAX_DEPTH) return undefined;
    const d = depth + 1;
    switch (ir.op) {
      case 'object': {
        const name = ir.typeName;
        if (ir.keys.includes('__proto__')) return undefined;
        // A map literal's values are where the map is; an `Object.*` literal's fields extend its name.
        if (name === undefined) return at === RESULT ? undefined : this.jsonObject(ir, out, d, () => at);
        if (!name.startsWith('Object') || (at !== RESULT && !namedAt(name, at))) return undefined;
        return this.jsonObject(ir, out, d, (field) => ({ parent: name, field }));
      }
      case 'list':
        return at === RESULT ? this.patchList(ir, out, d) : this.jsonList(ir, out, d, at);
      case 'conditional':
        return this.conditional(ir, out, d, at);
      case 'comprehension':
        return at !== RESULT && (ir.macro === 'map' || ir.macro === 'transformList') ? this.comprehension(ir, out, d, at) : undefined;
      default:
        return undefined;
    }
  }

  private jsonObject(ir: Extract<Ir, { op: 'object' }>, out: string[], d: number, fieldAt: (field: string) => JsonPosition): string {
    this.directs++;
    // Of constants (a root literal, which is never folded): made once.
    const made = ir.values.every((x) => x.constant)
      ? constantJson(() => {
          const o: Record<string, unknown> = {};
          ir.keys.forEach((k, i) => {
            const at = fieldAt(k) as Exclude<JsonPosition, typeof RESULT>;
            o[k] = jsonAt(ir.values[i]!.constant!.value, at.parent, at.field);
          });
          return o;
        })
      : undefined;
    if (made !== undefined) return this.literal(made.json);
    const vals = ir.values.map((x, i) => this.emitJson(x, out, d, fieldAt(ir.keys[i]!)));
    const t = this.temp();
    out.push(`const ${t} = {${ir.keys.map((k, i) => `${JSON.stringify(k)}: ${vals[i]}`).join(', ')}};`);
    return t;
  }

  private jsonList(ir: Extract<Ir, { op: 'list' }>, out: string[], d: number, at: JsonPosition): string {
    this.directs++;
    const els = ir.elements.map((x) => this.emitJson(x, out, d, at));
    const t = this.temp();
    out.push(`const ${t} = [${els.join(', ')}];`);
    return t;
  }

  /**
   * A non-empty list of `JSONPatch` literals as the operations mutation.ts jsonPatchOps makes of it (undefined
   * for other lists): each literal's fields evaluated and checked as its `wrap` does, then its operation built.
   */
  private patchList(ir: Extract<Ir, { op: 'list' }>, out: string[], d: number): string | undefined {
    // A folded literal's operation is made without the check of its value's type names (mutation.ts patchValueJson).
    const isPatch = (x: Node): boolean =>
      x.constant
        ? x.constant.value instanceof ConstantJsonPatch && valueNamesMatch(x.constant.value)
        : x.ir?.op === 'object' && x.ir.typeName === 'JSONPatch' && !x.ir.keys.includes('__proto__');
    if (ir.elements.length === 0 || !ir.elements.every(isPatch)) return this.constantList(ir);
    this.directs++;
    // A folded literal's operation is frozen, its value not (it may be the CEL constant): a frozen copy, whose
    // value then takes no walk to tell that it holds no map the evaluation made (ops/merge.ts holdsAny).
    // A list of folded literals only is one frozen list, made once: the JSONPatch op then takes the same list
    // each time and prepares its steps once (interpreter/ops/json-patch.ts stepsOf).
    if (ir.elements.every((x) => x.constant)) return this.literal(constantJson(() => ir.elements.map((x) => (x.constant!.value as ConstantJsonPatch).op))!.json);
    const ops = ir.elements.map((x) =>
      x.constant ? this.literal(constantJson(() => (x.constant!.value as ConstantJsonPatch).op)!.json) : this.patchOp(x.ir as Extract<Ir, { op: 'object' }>, out, d),
    );
    const t = this.temp();
    out.push(`const ${t} = [${ops.join(', ')}];`);
    return t;
  }

  /**
   * A result list of constants other than folded `JSONPatch` literals (`[]`, the no-op branch of most JSONPatch
   * mutations) as its conversion, made once like theirs; undefined when some element is not constant or the
   * conversion fails (each evaluation then converts, and fails, as the reference does).
   */
  private constantList(ir: Extract<Ir, { op: 'list' }>): string | undefined {
    if (!ir.elements.every((x) => x.constant)) return undefined;
    const made = constantJson(() => mutationResultToJson(ir.elements.map((x) => x.constant!.value)));
    if (made === undefined) return undefined;
    this.directs++;
    return this.literal(made.json);
  }

  /** mutation.ts jsonPatchOp of a `JSONPatch` literal: op and path always, from when non-empty, value when set. */
  private patchOp(ir: Extract<Ir, { op: 'object' }>, out: string[], d: number): string {
    const vals = ir.values.map((x) => this.emit(x, out, d));
    const field = (name: string): string | undefined => {
      const i = ir.keys.indexOf(name);
      return i < 0 ? undefined : vals[i];
    };
    ir.keys.forEach((k, i) => {
      // Constant strings pass wrap's check: written out, they would only test a literal.
      if (k !== 'value' && typeof ir.values[i]!.constant?.value !== 'string') out.push(`if (typeof ${vals[i]} !== 'string') j_patchFieldNotString(${JSON.stringify(k)}, ${vals[i]});`);
    });
    const members = [`op: ${field('op') ?? '""'}`, `path: ${field('path') ?? '""'}`];
    const valueAt = ir.keys.indexOf('value');
    if (valueAt >= 0) {
      const node = ir.values[valueAt]!;
      const made = node.constant ? constantJson(() => patchValueJson(node.constant!.value)) : undefined;
      let value: string;
      if (made !== undefined) value = this.literal(made.json);
      else {
        value = this.temp();
        out.push(`const ${value} = j_patchValueJson(${vals[valueAt]});`);
      }
      members.push(`value: ${value}`);
    }
    const t = this.temp();
    const from = field('from');
    const literal = (withFrom: boolean): string => `{${withFrom ? [...members.slice(0, 2), `from: ${from}`, ...members.slice(2)] : members}}`;
    out.push(from === undefined ? `const ${t} = ${literal(false)};` : `const ${t} = ${from} !== '' ? ${literal(true)} : ${literal(false)};`);
    return t;
  }

  private position(at: Exclude<JsonPosition, typeof RESULT>): string {
    return `${JSON.stringify(at.parent)}, ${at.field === undefined ? 'undefined' : JSON.stringify(at.field)}`;
  }

  /** `cond ? t : f`; with `at`, the branch taken goes there as JSON (emitJson). */
  private conditional(ir: Extract<Ir, { op: 'conditional' }>, out: string[], d: number, at: JsonPosition | undefined): string {
    const cond = this.emit(ir.cond, out, d);
    const t = this.temp();
    const tb: string[] = [];
    const tv = at === undefined ? this.emit(ir.t, tb, d) : this.emitJson(ir.t, tb, d, at);
    const fb: string[] = [];
    const fv = at === undefined ? this.emit(ir.f, fb, d) : this.emitJson(ir.f, fb, d, at);
    out.push(
      `let ${t};`,
      `if (${cond} === true) {`,
      ...this.charge(ir.t.cost),
      ...tb,
      `${t} = ${tv};`,
      `} else if (${cond} === false) {`,
      ...this.charge(ir.f.cost),
      ...fb,
      `${t} = ${fv};`,
      `} else ${t} = h_noOverload('_?_:_', ${cond});`,
    );
    return t;
  }

  /** Same steps as fastpath.fieldChain (safe names) and ops.select / ops.optSelect (any name). */
  private chain(ir: Extract<Ir, { op: 'chain' }>, out: string[], d: number): string {
    const base = this.emit(ir.base, out, d);
    const o = this.temp();
    const v = `${o}v`;
    out.push(`let ${o} = ${base}, ${v};`);
    if (!ir.optional) {
      for (const name of ir.fields) {
        const key = JSON.stringify(name);
        out.push(
          isSafeFieldName(name)
            ? `if (${isJsonObject(o)} && (${v} = ${o}[${key}]) !== undefined) ${o} = ${v}; else ${o} = h_select(${o}, ${key});`
            : `${o} = h_select(${o}, ${key});`,
        );
      }
      return o;
    }
    const label = `L${o}`;
    const steps = ir.fields.map((name) => {
      const key = JSON.stringify(name);
      const slow = `{ const r = h_optSelect(${o}, ${key}); if (!r.has) { ${o} = h_ABSENT; break ${label}; } ${o} = r.value; }`;
      return isSafeFieldName(name) ? `if (${isJsonObject(o)} && (${v} = ${o}[${key}]) !== undefined) ${o} = ${v}; else ${slow}` : slow;
    });
    out.push(`${label}: {`, ...steps, '}');
    return o;
  }

  /** compile.ts specializedBinary and the constant-list `in`, else the generic operator. */
  private binary(ir: Extract<Ir, { op: 'binary' }>, out: string[], d: number): string {
    let { l, r } = ir;
    const op = ir.fn;
    if (l.constant && !r.constant && (op === '_==_' || op === '_!=_')) [l, r] = [r, l];
    const generic = this.constant(CODEGEN_HELPERS.BINARY[op]);
    const x = this.emit(l, out, d);
    const t = this.temp();
    const k = r.constant && !l.constant ? r.constant.value : undefined;
    if (op === '@in' && r.constant && Array.isArray(r.constant.value) && r.constant.value.every((s) => typeof s === 'string')) {
      const set = this.constant(new Set(r.constant.value as string[]));
      out.push(`const ${t} = typeof ${x} === 'string' ? ${set}.has(${x}) : ${generic}(${x}, ${this.literal(r.constant.value)});`);
      return t;
    }
    if (typeof k === 'string' && (op === '_==_' || op === '_!=_' || op === '_+_')) {
      const ks = JSON.stringify(k);
      out.push(op === '_+_' ? `const ${t} = typeof ${x} === 'string' ? ${x} + ${ks} : ${generic}(${x}, ${ks});` : `const ${t} = ${x} ${COMPARISONS[op]} ${ks};`);
      return t;
    }
    if (typeof k === 'number' && !Number.isNaN(k) && COMPARISONS[op]) {
      const kn = this.literal(k);
      out.push(`const ${t} = typeof ${x} === 'number' ? ${x} ${COMPARISONS[op]} ${kn} : ${generic}(${x}, ${kn});`);
      return t;
    }
    const y = this.emit(r, out, d);
    out.push(`const ${t} = ${generic}(${x}, ${y});`);
    return t;
  }

  /** cel-go: the result is `short` if either side is; otherwise an error from either side wins; non-bools are no-overload errors. */
  private logical(ir: Extract<Ir, { op: 'logical' }>, out: string[], d: number): string {
    const short = ir.isOr ? 'true' : 'false';
    const long = ir.isOr ? 'false' : 'true';
    const t = this.temp();
    const lb: string[] = [];
    const lv = this.emit(ir.l, lb, d);
    const rb: string[] = [];
    const rv = this.emit(ir.r, rb, d);
    const name = ir.isOr ? "'_||_'" : "'_&&_'";
    out.push(
      `let ${t}l, ${t}e, ${t};`,
      'try {',
      ...lb,
      `${t}l = ${lv};`,
      `} catch (x) { if (h_isFatal(x)) throw x; ${t}e = x; }`,
      `if (${t}l === ${short}) ${t} = ${short};`,
      'else {',
      ...this.charge(ir.r.cost),
      ...rb,
      `if (${rv} === ${short}) ${t} = ${short};`,
      `else if (${t}e !== undefined) throw ${t}e;`,
      `else if (typeof ${t}l !== 'boolean' || typeof ${rv} !== 'boolean') ${t} = h_noOverload(${name}, ${t}l, ${rv});`,
      `else ${t} = ${long};`,
      '}',
    );
    return t;
  }

  /** With `at` (map and transformList), the list's items go there as JSON (emitJson): the list is built as that JSON. */
  private comprehension(ir: Extract<Ir, { op: 'comprehension' }>, out: string[], d: number, at?: JsonPosition): string {
    const range = this.emit(ir.range, out, d);
    const macro = JSON.stringify(ir.macro);
    const t = this.temp();
    const items = `${t}i`;
    const values = `${t}v`;
    const i = `${t}n`;
    const two = ir.s2 >= 0;
    out.push(`const ${items} = Array.isArray(${range}) ? ${range} : h_comprehensionItems(${range}, ${macro});`);
    if (two) out.push(`const ${values} = Array.isArray(${range}) ? undefined : h_comprehensionValues(${range});`);

    const closuresBefore = this.closures;
    this.boundSlots.add(ir.s1);
    if (two) this.boundSlots.add(ir.s2);
    if (at !== undefined) this.directs++;
    const bodies = ir.args.map((a, n) => {
      const stmts: string[] = [];
      const value = at !== undefined && n === ir.args.length - 1 ? this.emitJson(a, stmts, d, at) : this.emit(a, stmts, d);
      return { stmts, value };
    });
    this.boundSlots.delete(ir.s1);
    if (two) this.boundSlots.delete(ir.s2);
    const bind = two
      ? [
          `const v${ir.s1} = ${values} === undefined ? ${i} : ${items}[${i}];`,
          `const v${ir.s2} = ${values} === undefined ? ${items}[${i}] : ${values}[${i}];`,
        ]
      : [`const v${ir.s1} = ${items}[${i}];`];
    if (this.closures > closuresBefore) {
      bind.push(`${this.cx.locals}[${ir.s1}] = v${ir.s1};`);
      if (two) bind.push(`${this.cx.locals}[${ir.s2}] = v${ir.s2};`);
    }
    const head = [`for (let ${i} = 0; ${i} < ${items}.length; ${i}++) {`, `${this.cx.cost} += ${ir.perIter};`, `if (${this.cx.cost} > ${this.cx.limit}) throw new h_CelCostLimitError();`, ...bind];

    switch (ir.macro) {
      case 'all':
      case 'exists': {
        const short = ir.macro === 'exists' ? 'true' : 'false';
        const pred = bodies[0]!;
        const message = JSON.stringify(`no such overload: ${ir.macro} predicate returned `);
        // The try is around the loop, not in it (a non-fatal error resumes at the next item): same outcome as the
        // closure's per-item try, and the loop body stays free of exception edges.
        out.push(
          `let ${t} = ${ir.macro === 'exists' ? 'false' : 'true'}, ${t}e, ${t}p, ${i} = 0;`,
          'for (;;) {',
          'try {',
          `for (; ${i} < ${items}.length; ${i}++) {`,
          ...head.slice(1),
          ...pred.stmts,
          `${t}p = ${pred.value};`,
          `if (${t}p === ${short}) { ${t} = ${short}; break; }`,
          `if (typeof ${t}p !== 'boolean') ${t}e ??= new h_CelError(${message} + h_kindOf(${t}p));`,
          '}',
          'break;',
          `} catch (x) { if (h_isFatal(x)) throw x; ${t}e ??= x; ${i}++; }`,
          '}',
          `if (${t} !== ${short} && ${t}e !== undefined) throw ${t}e;`,
        );
        return t;
      }
      case 'exists_one': {
        const pred = bodies[0]!;
        out.push(
          `let ${t}c = 0;`,
          ...head,
          ...pred.stmts,
          `if (${pred.value} === true) ${t}c++; else if (${pred.value} !== false) h_noOverload('exists_one', ${pred.value});`,
          '}',
          `const ${t} = ${t}c === 1;`,
        );
        return t;
      }
      case 'map':
      case 'transformList':
      case 'filter': {
        const isFilter = ir.macro === 'filter';
        const filter = isFilter ? bodies[0] : bodies.length === 2 ? bodies[0] : undefined;
        const transform = isFilter ? undefined : bodies[bodies.length - 1]!;
        const filterStmts = filter
          ? [...filter.stmts, `if (${filter.value} !== true) { if (${filter.value} === false) continue; h_noOverload(${macro}, ${filter.value}); }`]
          : [];
        out.push(
          `const ${t} = [];`,
          ...head,
          ...filterStmts,
          ...(transform ? [...transform.stmts, `${t}.push(${transform.value});`] : [`${t}.push(${items}[${i}]);`]),
          '}',
        );
        return t;
      }
    }
  }

  /** compile.ts charge, written out. */
  private charge(cost: number): string[] {
    return cost ? [`${this.cx.cost} += ${cost};`, `if (${this.cx.cost} > ${this.cx.limit}) throw new h_CelCostLimitError();`] : [];
  }

  private closure(node: Node, out: string[]): string {
    this.closures++;
    const t = this.temp();
    out.push(`const ${t} = ${this.constant(node.fn)}(c);`);
    return t;
  }

  /**
   * A JS literal for strings, booleans, null and ordinary numbers; a constant for everything else. A number is
   * parenthesized: the code reads members of an operand (`x.length`), and `1.length` does not parse.
   */
  private literal(v: unknown): string {
    if (typeof v === 'string') return JSON.stringify(v);
    if (typeof v === 'boolean' || v === null) return String(v);
    if (typeof v === 'number' && Number.isFinite(v) && !Object.is(v, -0)) return `(${v})`;
    return this.constant(v);
  }

  private constant(v: unknown): string {
    let id = this.constantIds.get(v);
    if (id === undefined) {
      id = this.constants.length;
      this.constants.push(v);
      this.constantIds.set(v, id);
    }
    return `k${id}`;
  }

  private temp(): string {
    return `t${this.temps++}`;
  }
}

/** checkResultType('JSONPatchList')'s check of one `JSONPatch`: an `Object.*` value's type names match its own. */
function valueNamesMatch(p: ConstantJsonPatch): boolean {
  const v = p.fields['value'];
  return !(v instanceof CelObject) || checkTypeNames(v, v.typeName) === undefined;
}

/** mutation.ts namedAt: whether an `Object.*` literal named `name` belongs at `at`. */
function namedAt(name: string, at: { readonly parent: string; readonly field: string | undefined }): boolean {
  return name === (at.field === undefined ? at.parent : `${at.parent}.${at.field}`);
}

/** fastpath.isJsonObject inline. */
function isJsonObject(o: string): string {
  return `(typeof ${o} === 'object' && ${o} !== null && ${o}.constructor === Object)`;
}
