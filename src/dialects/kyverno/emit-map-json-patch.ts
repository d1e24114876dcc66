/**
 * A MutatingAdmissionPolicy JSONPatch mutation as Kyverno rules with the same outcome on every object.
 *
 * kube-apiserver applies the patch with evanphx/json-patch v4 (src/jsonpatch/evanphx-v4.ts): every parent on
 * a path must be there, remove of a missing key fails, replace of a missing key adds, a failed `test` makes
 * the whole mutation a no-op, and any other failure fails the mutation (failurePolicy). Kyverno applies
 * patchesJson6902 with evanphx v5 and options that create parents and ignore missing removals, and fails the
 * rule on a failed test. The two agree wherever v4 succeeds, once `replace` of an object member is written as
 * `add` and `test` steps become preconditions; so the patch is analysed step by step into three exclusive
 * conditions on the object before the mutation:
 * - `ok`: v4 applies every step; the main rule runs the Kyverno patch under this precondition;
 * - `noop`: a test fails first; no rule changes anything then;
 * - `fails`: another step (or a value expression) fails first; a rule that fails under this condition
 *   reproduces kube-apiserver's denial where the failure policy is Fail (under Ignore, nothing happens in
 *   both engines).
 * Conditions are computed on the object as earlier steps of the same patch leave it: a step may read what an
 * earlier step wrote only where that write is a known literal, else the patch is not translated.
 * Paths must start with "/", go through object members only (the last step may index a list the schema
 * declares), and have no `{{` (Kyverno would substitute it). A `test` value must be a plain scalar or a map
 * of them (v4 compares scalars as JSON bytes and dereferences nil in arrays holding null).
 */
import { isJsonObject, jsonEqual, type JsonObject, type JsonValue } from '../../ir/json.js';
import type { KindSchema } from '../../engines/ssa.js';
import { and, atom, equals, FALSE, not, or, TRUE, type Cond } from '../../lowering/cel-kyverno/cond.js';
import type { Read, Term } from '../../lowering/cel-kyverno/compile.js';
import { declaredEverywhere, sameTypeEverywhere, shapeAt } from '../../lowering/cel-kyverno/schema-path.js';
import { ALWAYS, keyOf, type Facts } from '../../lowering/cel-guard.js';
import { notYet, type Refusal } from '../generate-report.js';
import type { PatchStep, PatchValue } from './emit-json-patch.js';
import { jmesField, jmesLiteral, pointerToken } from './emit-text.js';

export type StepValue = { kind: 'literal'; json: JsonValue } | { kind: 'computed'; term: Term };

/** One step as the MAP expression computes it. */
export interface MapStep {
  op: string;
  path: string;
  from?: string;
  value?: StepValue;
}

export interface MapPatchPlan {
  ok: Cond;
  fails: Cond;
  /** The Kyverno steps of the main rule. */
  steps: PatchStep[];
  /** The patch writes fields the kind does not declare: kube-apiserver rejects every successful application. */
  undeclared: boolean;
  /** What the conditions read: the parents and members the steps inspect. */
  reads: Read[];
  /** Object paths the patch writes (tokens; `[list, '-']` for an insert into or removal from a list, which stays), for the stability of later conditions. */
  writes: string[][];
}

class Refuse {
  constructor(readonly refusal: Refusal) {}
}

const yet = (why: string): never => {
  throw new Refuse(notYet(why));
};

const NUMERIC = /^(0|[1-9][0-9]*)$/;
const NEGATIVE = /^-[1-9][0-9]*$/;

/** v4's decodePatchKey: "~1" and "~0" in one left-to-right pass. */
function decodeToken(k: string): string {
  return k.replace(/~[01]/g, (m) => (m === '~1' ? '/' : '~'));
}

function tokensOf(path: string): string[] {
  if (!path.startsWith('/')) return yet(`the JSON patch path ${JSON.stringify(path)} (not absolute)`);
  const tokens = path.slice(1).split('/').map(decodeToken);
  for (const t of tokens) if (t.includes('{{')) yet(`the JSON patch path ${JSON.stringify(path)} (Kyverno would substitute "{{")`);
  tokens.slice(0, -1).forEach((t) => {
    if (t === '-' || NUMERIC.test(t) || NEGATIVE.test(t) || /^[+-]?\d+$/.test(t)) yet(`the JSON patch path ${JSON.stringify(path)} (a list index before its last step)`);
  });
  return tokens;
}

function pointer(tokens: readonly string[]): string {
  return tokens.map((t) => `/${pointerToken(t)}`).join('');
}

function jmes(tokens: readonly string[]): string {
  return tokens.reduce((acc, t) => `${acc}.${jmesField(t)}`, 'request.object');
}

const key = (tokens: readonly string[]): string => JSON.stringify(tokens);

/** The write key `k` is strictly below `tokens`. */
function strictlyBelow(k: string, tokens: readonly string[]): boolean {
  const t = JSON.parse(k) as string[];
  return t.length > tokens.length && tokens.every((x, i) => t[i] === x);
}

type Known = { kind: 'literal'; json: JsonValue } | { kind: 'removed' } | { kind: 'opaque' };

/** The object as earlier steps of the patch leave it: known writes over the original. */
class State {
  private readonly writes = new Map<string, Known>();
  /** Lists changed by inserts or removals: positions in them are no longer the original ones. */
  private readonly shifted = new Set<string>();

  constructor(
    private readonly facts: Facts,
    private readonly kinds: readonly KindSchema[],
  ) {}

  /** The nearest write at or above `tokens`, with the rest of the path below it. */
  private covering(tokens: readonly string[]): { at: Known; rest: string[] } | undefined {
    for (let n = tokens.length; n >= 0; n--) {
      const w = this.writes.get(key(tokens.slice(0, n)));
      if (w) return { at: w, rest: tokens.slice(n) };
    }
    return undefined;
  }

  private touchedInside(tokens: readonly string[]): boolean {
    for (const k of this.writes.keys()) if (strictlyBelow(k, tokens)) return true;
    return false;
  }

  private throughShifted(tokens: readonly string[]): boolean {
    for (let n = 0; n < tokens.length; n++) if (this.shifted.has(key(tokens.slice(0, n)))) return true;
    return false;
  }

  /** The literal value at `tokens` when earlier writes decide it (undefined: missing), or 'original'. */
  private known(tokens: readonly string[]): { value: JsonValue | undefined } | 'original' {
    if (this.throughShifted(tokens)) yet('a JSON patch step that reads a list an earlier step changed');
    const c = this.covering(tokens);
    if (!c) return 'original';
    if (c.at.kind === 'opaque') return yet('a JSON patch step that reads what an earlier step wrote from the object');
    if (c.at.kind === 'removed') return { value: undefined };
    let v: JsonValue | undefined = c.at.json;
    for (const t of c.rest) v = isJsonObject(v) && Object.prototype.hasOwnProperty.call(v, t) ? v[t] : undefined;
    return { value: v };
  }

  private alwaysThere(tokens: readonly string[]): boolean {
    return tokens.length === 0 || this.facts.has(keyOf('object', tokens));
  }

  /** The node at `tokens` is there, not null, and of JSON type `type`. */
  isType(tokens: readonly string[], type: 'object' | 'array'): Cond {
    const k = this.known(tokens);
    if (k !== 'original') return { k: 'const', v: type === 'object' ? isJsonObject(k.value) : Array.isArray(k.value) };
    if (type === 'object' && this.alwaysThere(tokens)) return TRUE;
    return equals(`type(${jmes(tokens)})`, `'${type}'`);
  }

  /** The object at `tokens` (known to be one) has member `name`. */
  hasMember(tokens: readonly string[], name: string): Cond {
    const k = this.known([...tokens, name]);
    if (k !== 'original') return { k: 'const', v: k.value !== undefined };
    if (this.touchedInside([...tokens, name])) return TRUE;
    if (this.alwaysThere([...tokens, name])) return TRUE;
    return atom(`contains(keys(${jmes(tokens)}), ${jmesLiteral(name)})`, { risky: true });
  }

  /** `length` of the list at `tokens` (known to be one) compared with `n`. */
  length(tokens: readonly string[], op: '>=' | '>', n: number): Cond {
    if (this.shifted.has(key(tokens))) return yet('a JSON patch step that indexes a list an earlier step changed');
    const k = this.known(tokens);
    if (k !== 'original') {
      const len = Array.isArray(k.value) ? k.value.length : 0;
      return { k: 'const', v: op === '>=' ? len >= n : len > n };
    }
    if (op === '>=' && n <= 0) return TRUE;
    // length() of something else than a list fails: written after the type test (risky).
    return atom(`length(${jmes(tokens)}) ${op} \`${n}\``, { neg: `length(${jmes(tokens)}) ${op === '>' ? '<=' : '<'} \`${n}\``, risky: true });
  }

  /** The member `name` of the object at `tokens` equals the literal (missing and null never do). */
  memberEquals(tokens: readonly string[], name: string, value: JsonValue): Cond {
    const k = this.known([...tokens, name]);
    if (k !== 'original') return { k: 'const', v: k.value !== undefined && k.value !== null && jsonEqual(k.value, value) };
    if (this.touchedInside([...tokens, name])) return yet('a JSON patch test of a value an earlier step changed');
    return equals(jmes([...tokens, name]), jmesLiteral(value));
  }

  /** Records a write of a known literal (or of unknown content) at `tokens`, inside an object. */
  write(tokens: readonly string[], value: Known): void {
    const c = this.covering(tokens.slice(0, -1));
    if (c && c.at.kind === 'literal') {
      // Inside a literal written earlier: update that literal.
      if (value.kind === 'opaque') {
        this.writes.set(key(tokens), value);
        return;
      }
      const root = structuredClone(c.at.json) as JsonValue;
      let parent: JsonValue | undefined = root;
      for (const t of c.rest) parent = isJsonObject(parent) ? parent[t] : undefined;
      const last = tokens[tokens.length - 1]!;
      if (!isJsonObject(parent)) return yet('a JSON patch step inside a list an earlier step wrote');
      if (value.kind === 'removed') delete (parent as JsonObject)[last];
      else Object.defineProperty(parent, last, { value: value.json, enumerable: true, writable: true, configurable: true });
      this.writes.set(key(tokens.slice(0, tokens.length - 1 - c.rest.length)), { kind: 'literal', json: root });
      return;
    }
    // A write replaces whatever was recorded below it.
    for (const k of [...this.writes.keys()]) if (strictlyBelow(k, tokens)) this.writes.delete(k);
    this.writes.set(key(tokens), value);
  }

  /** Records an insert into or removal from the list at `tokens`. */
  shift(tokens: readonly string[]): void {
    this.shifted.add(key(tokens));
  }

  get schemaKinds(): readonly KindSchema[] {
    return this.kinds;
  }
}

type Container = 'object' | 'array';

/** What the parent of the last token is: an object for a member name, the schema's list for an index or "-". */
function parentType(state: State, tokens: readonly string[]): Container {
  const last = tokens[tokens.length - 1]!;
  if (!(last === '-' || NUMERIC.test(last) || NEGATIVE.test(last) || /^[+-]?\d+$/.test(last))) return 'object';
  if (!NUMERIC.test(last) && !NEGATIVE.test(last) && last !== '-') return yet(`the list index ${JSON.stringify(last)}`);
  const shape = shapeAt(state.schemaKinds, tokens.slice(0, -1));
  if (shape === 'list') return 'array';
  return yet(`a JSON patch index into ${pointer(tokens.slice(0, -1))}, which the kind's schema does not declare as a list`);
}

/** v4's findObject: every member on the way is there and not null, and the parent has the expected type. */
function resolves(state: State, parent: readonly string[], type: Container): Cond {
  return state.isType(parent, type);
}

/** The index `token` is valid in the list at `parent` (insert: 0..len, or "-"; access: 0..len-1), negatives from the end. */
function indexValid(state: State, parent: readonly string[], token: string, insert: boolean, removedBefore = 0): Cond {
  if (token === '-') return insert ? TRUE : FALSE;
  const n = Number(token);
  // With `removedBefore` elements taken out earlier in the same step (move within one list).
  if (n >= 0) return insert ? state.length(parent, '>=', n + removedBefore) : state.length(parent, '>', n + removedBefore);
  return insert ? state.length(parent, '>=', -n - 1 + removedBefore) : state.length(parent, '>=', -n + removedBefore);
}

const PLAIN_STRING = /^[ -~]*$/;

/** A test value v4 compares the way JMESPath's `==` does: plain scalars and maps of them. */
function comparable(v: JsonValue): boolean {
  if (typeof v === 'string') return PLAIN_STRING.test(v) && !/[<>&]/.test(v);
  if (typeof v === 'number') return Number.isSafeInteger(v);
  if (typeof v === 'boolean') return true;
  if (isJsonObject(v)) return Object.keys(v).every((k) => comparable(v[k]!));
  return false;
}

function patchValue(v: StepValue): PatchValue {
  if (v.kind === 'literal') return { kind: 'literal', json: v.json };
  const t = v.term;
  if (t.ty === 'string' && !t.plain) return yet('a computed string that may need escaping in the patch');
  return { kind: 'computed', expr: t.j, string: t.ty === 'string' };
}

function computedShape(t: Term): 'string' | 'int' | 'bool' | undefined {
  return t.ty === 'string' || t.ty === 'int' || t.ty === 'bool' ? t.ty : undefined;
}

/**
 * The plan for a patch, or why it is not translated. `kinds` are the schemas of every kind the policy can
 * mutate (the typed decode needs them); `facts` the paths always present.
 */
export function planMapJsonPatch(steps: readonly MapStep[], kinds: readonly KindSchema[], facts: Facts = ALWAYS): MapPatchPlan | Refusal {
  try {
    return plan(steps, kinds, facts);
  } catch (e) {
    if (e instanceof Refuse) return e.refusal;
    throw e;
  }
}

function plan(steps: readonly MapStep[], kinds: readonly KindSchema[], facts: Facts): MapPatchPlan {
  if (kinds.length === 0) return yet("a JSON patch on kinds whose schema is not known (kube-apiserver decodes the result into the kind's type)");
  const state = new State(facts, kinds);
  // MAP computes every step's value before applying any: a failing value fails the mutation first.
  let valueFails: Cond = FALSE;
  for (const s of steps) if (s.value?.kind === 'computed') valueFails = or(valueFails, s.value.term.err);
  let okSoFar: Cond = not(valueFails);
  let fails: Cond = valueFails;
  let undeclared = false;
  const out: PatchStep[] = [];
  const writes: string[][] = [];
  const checkWrite = (tokens: string[], v: StepValue | undefined): void => {
    if (!v) return;
    if (v.kind === 'literal') {
      if (!declaredEverywhere(kinds, tokens, v.json)) undeclared = true;
      return;
    }
    const shape = shapeAt(kinds, tokens);
    if (shape === undefined || shape !== computedShape(v.term)) yet(`a computed value at ${pointer(tokens)} whose type is not the schema's`);
  };
  for (const s of steps) {
    const tokens = tokensOf(s.path);
    if (tokens.length === 0) return yet('a JSON patch step on the whole object');
    const parent = tokens.slice(0, -1);
    const last = tokens[tokens.length - 1]!;
    let stepOk: Cond;
    let testFails: Cond = FALSE;
    switch (s.op) {
      case 'add': {
        if (!s.value) return yet('an add without a value');
        const t = parentType(state, tokens);
        stepOk = and(resolves(state, parent, t), t === 'array' ? indexValid(state, parent, last, true) : TRUE);
        checkWrite(tokens, s.value);
        out.push({ op: 'add', path: pointer(tokens), value: patchValue(s.value) });
        if (t === 'array') state.shift(parent);
        else state.write(tokens, s.value.kind === 'literal' ? { kind: 'literal', json: s.value.json } : { kind: 'opaque' });
        writes.push(t === 'array' ? [...parent, '-'] : tokens);
        break;
      }
      case 'remove': {
        const t = parentType(state, tokens);
        stepOk = and(resolves(state, parent, t), t === 'array' ? indexValid(state, parent, last, false) : state.hasMember(parent, last));
        out.push({ op: 'remove', path: pointer(tokens) });
        if (t === 'array') state.shift(parent);
        else state.write(tokens, { kind: 'removed' });
        writes.push(t === 'array' ? [...parent, '-'] : tokens);
        break;
      }
      case 'replace': {
        if (!s.value) return yet('a replace without a value');
        const t = parentType(state, tokens);
        // v4 adds a missing object member; Kyverno's replace would fail there, its add does the same as v4.
        stepOk = and(resolves(state, parent, t), t === 'array' ? indexValid(state, parent, last, false) : TRUE);
        checkWrite(tokens, s.value);
        out.push({ op: t === 'array' ? 'replace' : 'add', path: pointer(tokens), value: patchValue(s.value) });
        if (t === 'array') state.shift(parent);
        else state.write(tokens, s.value.kind === 'literal' ? { kind: 'literal', json: s.value.json } : { kind: 'opaque' });
        writes.push(t === 'array' ? [...parent, '-'] : tokens);
        break;
      }
      case 'test': {
        if (!s.value || s.value.kind !== 'literal' || !comparable(s.value.json)) return yet('a JSON patch test of a value other than a plain scalar or a map of them');
        const t = parentType(state, tokens);
        if (t === 'array') return yet('a JSON patch test of a list element');
        stepOk = resolves(state, parent, t);
        testFails = not(state.memberEquals(parent, last, s.value.json));
        // Later steps run only when the test held: the member is known from here on.
        state.write(tokens, { kind: 'literal', json: s.value.json });
        break;
      }
      case 'copy':
      case 'move': {
        if (s.from === undefined) return yet(`a ${s.op} without from`);
        const from = tokensOf(s.from);
        if (from.length === 0) return yet(`a ${s.op} from the whole object`);
        const fromParent = from.slice(0, -1);
        const fromLast = from[from.length - 1]!;
        const prefixOf = (a: readonly string[], b: readonly string[]): boolean => a.length <= b.length && a.every((x, i) => b[i] === x);
        if (prefixOf(from, tokens) || prefixOf(tokens, from)) return yet(`a ${s.op} between nested paths`);
        if (!sameTypeEverywhere(kinds, fromParent.concat(fromLast === '-' ? ['0'] : [fromLast]), parent.concat([last === '-' ? '0' : last]))) {
          return yet(`a ${s.op} between positions of different types`);
        }
        const ft = parentType(state, from);
        const t = parentType(state, tokens);
        // v4 copies null for a missing object member (and its move fails on it); Kyverno fails on both: only
        // a present member is translated.
        const source = ft === 'array' ? indexValid(state, fromParent, fromLast, false) : state.hasMember(fromParent, fromLast);
        const sameList = s.op === 'move' && ft === 'array' && t === 'array' && key(fromParent) === key(parent);
        const target = t === 'array' ? indexValid(state, parent, last, true, sameList ? 1 : 0) : TRUE;
        stepOk = and(resolves(state, fromParent, ft), source, resolves(state, parent, t), target);
        const missingMember = ft === 'object' ? and(resolves(state, fromParent, ft), not(source), resolves(state, parent, t)) : FALSE;
        if (s.op === 'copy' && missingMember.k !== 'const') return yet('a copy from an object member that may be missing (kube-apiserver copies null)');
        if (s.op === 'copy' && missingMember.k === 'const' && missingMember.v) return yet('a copy from an object member that is missing (kube-apiserver copies null)');
        out.push({ op: s.op, path: pointer(tokens), from: pointer(from) });
        const moved = state;
        if (s.op === 'move') {
          if (ft === 'array') moved.shift(fromParent);
          else moved.write(from, { kind: 'removed' });
          writes.push(ft === 'array' ? [...fromParent, '-'] : from);
        }
        if (t === 'array') moved.shift(parent);
        else moved.write(tokens, { kind: 'opaque' });
        writes.push(t === 'array' ? [...parent, '-'] : tokens);
        break;
      }
      default:
        return yet(`the JSON patch operation ${JSON.stringify(s.op)}`);
    }
    fails = or(fails, and(okSoFar, not(stepOk)));
    okSoFar = and(okSoFar, stepOk, not(testFails));
  }
  const reads: Read[] = [];
  for (const s of steps) {
    for (const path of [s.path, s.from]) {
      if (path === undefined) continue;
      const t = path.slice(1).split('/').map(decodeToken);
      reads.push({ root: 'object', fields: t.slice(0, -1) }, { root: 'object', fields: t });
    }
  }
  for (const s of steps) if (s.value?.kind === 'computed') reads.push(...s.value.term.reads);
  return { ok: okSoFar, fails, steps: out, undeclared, writes, reads };
}
