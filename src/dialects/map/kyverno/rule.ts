/**
 * One Kyverno mutate rule as one JSONPatch mutation of a CEL policy. Kyverno loads the rule's context,
 * tests its preconditions, substitutes the variables of the whole patch and applies it, all against the
 * object as the rule finds it; one JSONPatch expression evaluated against that object does the same, so no
 * condition or variable can see a write of its own rule. In order:
 * - context `variable` entries become the policy's `variables` (lazy, as Kyverno's deferred loading), named
 *   after the entry (suffixed when another rule binds the name differently);
 * - preconditions guard the whole expression (`pre ? patches : []`: a precondition that fails to evaluate
 *   fails the mutation, as it fails Kyverno's rule);
 * - the patch: a strategic merge (smp.ts), a JSON patch (json-patch.ts), or a foreach of either (foreach.ts).
 * Anything else is refused, with the construct named.
 */
import { isJsonObject, type JsonObject, type JsonValue } from '../../../ir/json.js';
import type { Guard, MatchSpec, Op, Rule, Value } from '../../../ir/nodes.js';
import { conditionsToCel, imagesBinding, imagesVariable, jmesToCel, joinTypes, literalType, nonNull, objectTypeOf, substitutedQueryToCel, T, templateToCel, type CelTarget as JmesTarget, type Compiled, type JmesCelScope, type Refusal as JmesRefusal, type TemplateOptions, type Ty } from '../../../lowering/jmes-cel/index.js';
import { readOpaque } from '../../kyverno/opaque.js';
import { cannot, notYet, type Refusal } from '../../generate-report.js';
import type { CelTarget } from '../cel-target.js';
import { celLiteral, isSelectable } from '../emit-cel.js';
import { emitGuard } from '../emit-value.js';
import { schemaProblem } from '../emit-schema.js';
import { concreteKinds } from './list-strategy.js';
import type { Segment } from '../../../ir/path.js';
import { celCollection, concat, cond, failWith, paren, type Cel } from './cel-patch.js';
import { independentEntries, stableConditions } from './independent-entries.js';
import { RuleScope } from './scope.js';
import { smpPatches, type SmpEnv } from './smp.js';
import { forEachPatches } from './foreach.js';
import { kyvernoJsonPatches } from './json-patch.js';
import { clusterContextCel } from './context-cluster.js';

export interface Named {
  name: string;
  expression: string;
}

export interface RuleOutput {
  /**
   * The JSONPatch expressions of the rule, one per mutation: one for the whole rule, or one per foreach entry
   * (each entry works on the result of the one before); `[]` entries write nothing.
   */
  patches: Cel[];
  /** Variables the expression reads (the policy's `variables`, in order). */
  variables: Named[];
  /** Assumptions the translation rests on (warnings). */
  notes: string[];
  /** The lists of Kyverno's `images` the rule reads (images-order.ts says where that still holds). */
  imagesRead: string[];
}

export interface RuleEnv {
  target: CelTarget;
  /** The rule's kinds (list strategies, schema checks). */
  match: MatchSpec;
  /** The policy's variables so far (names already taken). */
  variables: readonly Named[];
  /**
   * A mutate-existing rule's patch, written for a MutatingPolicy's background mutation: the patch applies to
   * the target (`object`, Kyverno's `target`), `request.object` is the trigger.
   */
  mutateExisting?: boolean;
}

type R<T> = T | Refusal;

export function refused(x: unknown): x is Refusal {
  return typeof x === 'object' && x !== null && 'why' in x && 'class' in x;
}

/** Fresh comprehension variable names, unique within one rule's expression. */
export class Fresh {
  private n = 0;
  next(base: string): string {
    this.n += 1;
    return `${base}${this.n}`;
  }
}

export function jmesTarget(target: CelTarget): JmesTarget {
  return { env: target.dialect, ...(target.k8sVersion ? { k8sVersion: target.k8sVersion } : {}) };
}

/** The shared machinery of one rule's compilation. */
export class RuleCompiler {
  readonly fresh = new Fresh();
  readonly notes = new Set<string>();
  readonly variables: Named[] = [];
  scope: RuleScope;

  constructor(readonly env: RuleEnv) {
    const kinds = [...(env.match.any ?? []), ...(env.match.all ?? [])].flatMap((c) => c.kinds ?? []);
    const objectType = kinds.length > 0 && !kinds.some((k) => k.subresource) ? objectTypeOf(kinds) : T.dyn;
    this.scope = new RuleScope(env.target.dialect, new Map(), env.mutateExisting === true, objectType);
    // Kyverno's `images` (the parsed images of the request's object): a policy variable, declared on first use.
    if (env.mutateExisting !== true) this.scope = this.scope.withBinding('images', imagesBinding((list) => this.imagesVariable(list)));
  }

  private imagesName: string | undefined;
  private readonly imageLists = new Set<string>();

  /** The lists of Kyverno's `images` a query of the rule read (`containers`, `initContainers`, ...). */
  get imagesRead(): string[] {
    return [...this.imageLists];
  }

  /** The policy variable holding Kyverno's `images` entries, declared where it is first read. */
  private imagesVariable(list: string): string {
    this.imageLists.add(list);
    if (this.imagesName === undefined) {
      this.imagesName = this.variableName('images');
      this.variables.push({ name: this.imagesName, expression: imagesVariable('object', this.scope.objectKind) });
    }
    return `variables.${this.imagesName}`;
  }

  get jmes(): JmesTarget {
    return jmesTarget(this.env.target);
  }

  template(text: string, scope: RuleScope = this.scope): R<Cel> {
    const r = this.templateTyped(text, scope);
    return refused(r) ? r : r.cel;
  }

  /** A `{{ }}` string and the type of what it substitutes to. */
  templateTyped(text: string, scope: RuleScope = this.scope): R<{ cel: Cel; type: Ty }> {
    return this.accept(templateToCel(text, scope, this.jmes), (r) => ({ cel: r.cel, type: r.type }));
  }

  /** A `{{ }}` string as the text Kyverno splices (a hole alone too), guarded as `opts` says. */
  templateText(text: string, scope: RuleScope, opts: TemplateOptions): R<Cel> {
    return this.accept(templateToCel(text, scope, this.jmes, opts), (r) => r.cel);
  }

  query(text: string, scope: RuleScope = this.scope): R<Cel> {
    const r = this.queryTyped(text, scope);
    return refused(r) ? r : r.cel;
  }

  /** A query, the type of what it yields (a foreach list's elements are typed by it) and whether it may fail. */
  queryTyped(text: string, scope: RuleScope = this.scope): R<{ cel: Cel; type: Ty; mayFail: boolean }> {
    return this.accept(jmesToCel(text, scope, this.jmes), (r) => ({ cel: r.cel, type: r.type, mayFail: r.mayFail }));
  }

  /**
   * A context entry's `jmesPath`, which Kyverno substitutes before it queries (its `{{ }}` holes read the
   * rule's context), on the context itself.
   */
  entryQueryTyped(text: string, scope: RuleScope = this.scope): R<{ cel: Cel; type: Ty; mayFail: boolean }> {
    if (!text.includes('{{')) return this.queryTyped(text, scope);
    return this.accept(substitutedQueryToCel(text, scope, scope, this.jmes), (r) => ({ cel: r.cel, type: r.type, mayFail: r.mayFail }));
  }

  /**
   * A query whose root is the document `document` (CEL), not Kyverno's context (an apiCall's jmesPath on its
   * response); its `{{ }}` holes, substituted first, read the rule's context.
   */
  queryOnDocument(text: string, document: Cel, scope: RuleScope = this.scope): R<Typed> {
    const onDocument: JmesCelScope = { root: () => undefined, document: { cel: document } };
    const compiled = text.includes('{{') ? substitutedQueryToCel(text, scope, onDocument, this.jmes) : jmesToCel(text, onDocument, this.jmes);
    return this.accept(compiled, (r) => ({ cel: r.cel, type: r.type }));
  }

  conditions(block: JsonValue, scope: RuleScope = this.scope): R<Cel> {
    return this.accept(conditionsToCel(block, scope, this.jmes), (r) => r.cel);
  }

  /** A compilation's value, its notes kept; a refusal as the rule's. */
  private accept<T>(r: Compiled | JmesRefusal, value: (c: Compiled) => T): R<T> {
    if (!r.ok) return { why: r.why, class: r.class };
    for (const n of r.notes) this.notes.add(n);
    return value(r);
  }

  /** A JSON tree whose strings may hold `{{ }}`, as CEL (Kyverno substitutes every leaf, keys included). */
  tree(v: JsonValue, scope: RuleScope = this.scope): R<Cel> {
    if (typeof v === 'string') return v.includes('{{') ? this.template(v, scope) : JSON.stringify(v);
    if (Array.isArray(v) || isJsonObject(v)) {
      return celCollection(v, (x) => this.tree(x, scope), (k) => (k.includes('{{') ? notYet(`the variable in the key ${JSON.stringify(k)}`) : undefined), refused);
    }
    if (v === null) return 'null';
    const lit = celLiteral(v);
    return lit ?? notYet(`the value ${JSON.stringify(v)} (out of CEL's exact range)`);
  }

  /** A fresh policy variable name for the Kyverno context entry `name`. */
  variableName(name: string): string {
    // A CEL reserved word (`var`, `namespace`) is no variable name: the API server refuses it.
    const base = isSelectable(name) ? name : `v_${name.replace(/[^A-Za-z0-9_]/g, '_')}`;
    const taken = new Set([...this.env.variables, ...this.variables].map((v) => v.name));
    let out = base;
    for (let n = 2; taken.has(out); n++) out = `${base}_${n}`;
    return out;
  }
}

/** What a strategic merge's translation (smp.ts) needs of the rule, with templates read in `scope`. */
export function smpEnv(rc: RuleCompiler, scope: RuleScope): SmpEnv {
  return {
    match: rc.env.match,
    template: (t) => rc.template(t, scope),
    templateTyped: (t) => rc.templateTyped(t, scope),
    fresh: (b) => rc.fresh.next(b),
    note: (text) => rc.notes.add(text),
  };
}

/** A CEL expression and the type of what it yields. */
export type Typed = { cel: Cel; type: Ty };

/**
 * A context `variable` entry (loaders/variable.go, src/dialects/kyverno/context.ts loadContextEntry): `value`
 * substituted; or `jmesPath` queried on the context, falling back to `default` when the query fails or
 * yields null; a null result without a default is an error ("evaluated to nil").
 */
function contextVariable(rc: RuleCompiler, entry: JsonObject): R<Typed> {
  const name = String(entry.name);
  if (typeof entry.unresolved === 'string') {
    // Kyverno's CEL environment reads the cluster (resource.Get/List, globalContext.Get, image.GetMetadata):
    // a MutatingPolicy could; a MutatingAdmissionPolicy reads nothing but the request and its params.
    const read = rc.env.target.dialect === 'kyverno-mpol' ? clusterContextCel(rc, entry) : undefined;
    if (read !== undefined) return read;
    if (rc.env.target.dialect === 'kyverno-mpol') {
      return notYet(`the context entry ${name}, a globalReference, which Kyverno's CEL library globalContext.Get could read`);
    }
    return cannot(`the context entry ${name}, which reads the cluster (configMap, apiCall, globalReference or imageRegistry): the CEL policy has no such data`);
  }
  const v = isJsonObject(entry.variable) ? entry.variable : {};
  const nil = (x: Cel): Cel => `${paren(x)} != null ? ${paren(x)} : ${failWith(`unable to add context entry for variable ${name} since it evaluated to nil`)}`;
  const hasValue = v.value !== undefined && v.value !== null;
  const path = typeof v.jmesPath === 'string' && v.jmesPath !== '' ? v.jmesPath : undefined;
  const hasDefault = v.default !== undefined && v.default !== null;
  if (hasValue) {
    if (path !== undefined) return notYet(`the context entry ${name}, which narrows a value with a jmesPath`);
    const value = v.value!;
    if (typeof value === 'string' && value.includes('{{')) {
      // A whole-string `{{ }}` substitutes the query's own value, so the variable keeps its type.
      const whole = /^\s*\{\{[^]*\}\}\s*$/.test(value) && value.indexOf('{{', 2) < 0;
      const t = whole ? rc.templateTyped(value) : undefined;
      if (t !== undefined && !refused(t)) return { cel: nil(t.cel), type: nonNull(t.type) };
      const c = rc.tree(value);
      return refused(c) ? c : { cel: nil(c), type: T.dyn };
    }
    const c = rc.tree(value);
    return refused(c) ? c : { cel: c, type: literalType(value) };
  }
  if (path === undefined) {
    if (!hasDefault) return notYet(`the context entry ${name} without value or jmesPath`);
    const d = rc.tree(v.default!);
    return refused(d) ? d : { cel: d, type: literalType(v.default) };
  }
  if (!hasDefault) {
    const q = rc.entryQueryTyped(path);
    if (refused(q)) return q;
    return { cel: nil(q.cel), type: nonNull(q.type) };
  }
  // Kyverno takes the default where the substituted text makes a query that does not compile; the CEL of a
  // query with holes fails there instead (template.ts substitutedQueryFrag).
  if (path.includes('{{')) return notYet(`the default of the context entry ${name}, whose jmesPath holds \`{{ }}\` holes (Kyverno takes it where the substituted text breaks the query)`);
  // A failing query or a null result keeps the default. not_null() turns a missing key into null; any other
  // failure (a function refusing its argument's type, `length(null)`) would fail the CEL, which cannot fall
  // back on an error.
  const q = rc.entryQueryTyped(`not_null(${path})`);
  if (refused(q)) return q;
  if (q.mayFail) return cannot(`the default of the context entry ${name}, which Kyverno takes where the query ${JSON.stringify(path)} fails: CEL cannot fall back on an error`);
  const d = rc.tree(v.default!);
  if (refused(d)) return d;
  return { cel: `${paren(q.cel)} != null ? ${paren(q.cel)} : ${paren(d)}`, type: joinTypes(nonNull(q.type), literalType(v.default)) };
}

/** A rule's lets (context entries) bound in order; each becomes a policy variable. */
export function bindLets(rc: RuleCompiler, lets: readonly (Op & { kind: 'let' })[]): R<void> {
  for (const l of lets) {
    const cel = letValue(rc, l);
    if (refused(cel)) return cel;
    const name = rc.variableName(l.name);
    rc.variables.push({ name, expression: cel.cel });
    rc.scope = rc.scope.withEntry(l.name, `variables.${name}`, cel.type);
  }
  return undefined;
}

/** The value of a context entry (or a literal binding) as CEL over the compiler's scope, and its type. */
export function letValue(rc: RuleCompiler, l: Op & { kind: 'let' }): R<Typed> {
  if (l.value.kind === 'literal') {
    const c = rc.tree(l.value.json);
    return refused(c) ? c : { cel: c, type: literalType(l.value.json) };
  }
  if (l.value.kind === 'jmes') {
    const opaque = readOpaque(l.value.expr.text);
    if (!opaque || opaque.kind !== 'context' || !isJsonObject(opaque.json)) return notYet(`the binding ${l.name}`);
    return contextVariable(rc, opaque.json);
  }
  return notYet(`the binding ${l.name} of a ${l.value.kind} value`);
}

/** A guard of a Kyverno rule: preconditions (opaque), or a structured guard (a hoisted kind test). */
export function guardToCel(rc: RuleCompiler, g: Guard): R<Cel> {
  if (g.kind === 'jmes') {
    const opaque = readOpaque(g.expr.text);
    if (opaque?.kind === 'conditions') return rc.conditions(opaque.json);
    return notYet(`the JMESPath condition ${g.expr.text}`);
  }
  if (g.kind === 'const') return String(g.value);
  const e = emitGuard(g);
  return 'why' in e ? notYet(e.why) : e.cel;
}

/** The patches of one body op (a patch, or a foreach of patches). */
export function opPatches(rc: RuleCompiler, op: Op, scope: RuleScope): R<Cel> {
  switch (op.kind) {
    case 'merge': {
      if (op.strategy !== 'smp' || op.path.segments.length > 0) return notYet(`a ${op.strategy} merge`);
      const value = op.value;
      if (value.kind !== 'literal' && value.kind !== 'templated') return notYet(`a strategic merge of a ${value.kind} value`);
      const r = smpPatches(value.json, smpEnv(rc, scope));
      if (refused(r)) return r;
      return cond(r.condition, r.patches);
    }
    case 'jsonPatch':
      return kyvernoJsonPatches(rc, op, scope, undefined);
    case 'forEach':
      return forEachPatches(rc, op, scope);
    default:
      return notYet(`an op of kind ${op.kind} in a Kyverno rule`);
  }
}

/** Splits a body into its leading lets and the rest. */
export function leadingLets(ops: readonly Op[]): { lets: (Op & { kind: 'let' })[]; rest: Op[] } {
  let i = 0;
  while (i < ops.length && ops[i]!.kind === 'let' && !(ops[i] as { name: string }).name.startsWith('$')) i++;
  return { lets: ops.slice(0, i) as (Op & { kind: 'let' })[], rest: ops.slice(i) };
}

/** The body after the lets: `when pre [...]` blocks nest as conditions; `let $patch` + JSON patch is one patch. */
export function bodyPatches(rc: RuleCompiler, ops: readonly Op[], scope: RuleScope): R<Cel> {
  const parts = bodyParts(rc, ops, scope);
  if (refused(parts)) return parts;
  if (parts.length > 1) return notYet('several patches in one rule under a condition');
  return parts[0] ?? '[]';
}

/** The patches of a body, one per patch op (foreach entries follow one another). */
function bodyParts(rc: RuleCompiler, ops: readonly Op[], scope: RuleScope): R<Cel[]> {
  const parts: Cel[] = [];
  for (let i = 0; i < ops.length; i++) {
    const op = ops[i]!;
    if (op.kind === 'when') {
      if (op.else?.length) return notYet('a conditional with an else branch');
      const g = guardToCel(rc, op.guard);
      if (refused(g)) return g;
      const inner = bodyParts(rc, op.then, scope);
      if (refused(inner)) return inner;
      // Several foreach entries under one condition: each is its own mutation, tested again before each,
      // which holds where the condition reads no object; else they are one mutation where that is exact.
      if (inner.length > 1 && !(readsOnlyRequest(g) && !rc.variables.some((v) => !readsOnlyRequest(v.expression)))) {
        if (independentEntries(inner, rc.variables, [g])) {
          parts.push(cond(g, concat(inner)));
          continue;
        }
        // Each entry its own mutation, the condition tested again before each: the same answer where it reads nothing they write.
        if (!stableConditions(inner, rc.variables, [g])) return notYet('several foreach entries under a condition that reads the object, where an entry reads what an earlier one writes and the condition or a variable reads what an entry writes');
      }
      parts.push(...inner.map((x) => cond(g, x)));
      continue;
    }
    if (op.kind === 'let' && op.name.startsWith('$')) {
      const next = ops[i + 1];
      if (next?.kind !== 'jsonPatch') return notYet(`the binding ${op.name}`);
      const p = kyvernoJsonPatches(rc, next, scope, op);
      if (refused(p)) return p;
      parts.push(p);
      i++;
      continue;
    }
    if (op.kind === 'let') return notYet(`the context entry ${op.name} after the rule's patch`);
    const p = opPatches(rc, op, scope);
    if (refused(p)) return p;
    parts.push(p);
  }
  return parts;
}

/** Whether a guard reads only the request (never the object a foreach entry may have written). */
function readsOnlyRequest(g: Cel): boolean {
  return !/\b(object|oldObject|variables)\b/.test(g);
}

/** A whole Kyverno rule as one JSONPatch expression. */
export function kyvernoRulePatches(rule: Rule, env: RuleEnv, extraGuards: readonly Cel[] = []): R<RuleOutput> {
  const rc = new RuleCompiler(env);
  const { lets, rest } = leadingLets(rule.body);
  const bound = bindLets(rc, lets);
  if (refused(bound)) return bound;
  const guards: Cel[] = [...extraGuards];
  for (const g of rule.guards) {
    const c = guardToCel(rc, g);
    if (refused(c)) return c;
    guards.push(c);
  }
  const parts = bodyParts(rc, rest, rc.scope);
  if (refused(parts)) return parts;
  // Several foreach entries: each works on the result of the one before, so each is its own mutation; the
  // rule's guards are then tested again before each, which is the same only where they read no object.
  const objectVariables = rc.variables.some((v) => !readsOnlyRequest(v.expression));
  let entries = parts;
  if (parts.length > 1 && (objectVariables || !guards.every(readsOnlyRequest))) {
    // Kyverno evaluates them once, before the entries: one mutation, where each entry's patches are the same
    // computed from the object before any entry (independent-entries.ts).
    if (independentEntries(parts, rc.variables, guards)) entries = [concat(parts)];
    // Else each entry stays its own mutation, which sees what the ones before wrote, as in Kyverno: exact where
    // the conditions and variables, evaluated again before each, read nothing an entry writes.
    else if (!stableConditions(parts, rc.variables, guards)) return notYet('several foreach entries under conditions or context that read the object, where an entry reads what an earlier one writes (each entry sees what the one before wrote) and a condition or variable reads what an entry writes');
  }
  // Guards decide in order, each only when the ones before held (a later guard may read what an earlier one tested).
  const patches = entries.map((p) => [...guards].reverse().reduce((acc, g) => cond(g, acc), p));
  return { patches, variables: rc.variables, notes: [...rc.notes], imagesRead: rc.imagesRead };
}

export type { Value };

/** A step of a written path: a map key, a list index, `[]` for any element, `-` for the append position. */
export type WriteStep = string | number | '[]' | '-';

/**
 * Why the API server would reject a write at `steps` (with `value`, when it is known) for some built-in kind
 * the rule matches: it decodes the patched object strictly into its type (map.md §6.1), where Kyverno writes
 * the unstructured object. Such a write cannot be translated to a CEL policy with the same outcome.
 */
export function writeProblem(match: MatchSpec, steps: readonly WriteStep[], value?: JsonValue): Refusal | undefined {
  const segments: Segment[] = steps.map((s): Segment =>
    typeof s === 'number' ? { kind: 'index', index: s } : s === '[]' ? { kind: 'each' } : s === '-' ? { kind: 'append' } : { kind: 'field', name: s },
  );
  const origin = { file: '', line: 0, col: 0, endLine: 0, endCol: 0, dialect: 'kyverno' };
  const op: Op = { kind: 'set', path: { root: 'object', segments }, value: value === undefined ? { kind: 'cel', expr: { text: '', origin }, origin } : { kind: 'literal', json: value, origin }, origin };
  // Kyverno names kinds without a group (`Pod`): check the built-in kinds they name.
  const concrete: MatchSpec = { globs: match.globs, any: [...(match.any ?? []), ...(match.all ?? [])].map((c) => ({ ...c, ...(c.kinds ? { kinds: concreteKinds(c.kinds) } : {}) })) };
  const p = schemaProblem(op, concrete);
  return p ? cannot(`a write the API server rejects when it decodes the object (${p})`) : undefined;
}
