/**
 * Stage (a) of patchStrategicMerge for the patterns most policies use — nested maps whose anchors are
 * `+(k)` (any value) and `(k)` / `<(k)` with a scalar value — compiled once per pattern object and evaluated
 * per resource without building anchors.ts's editable tree. It gives PreProcessPattern's result
 * (strategicPreprocessing.go) because, for such patterns:
 * - the walk is depth-first: a map's `+(k)` keys are dropped (resource has k) or renamed to k in place, then
 *   its global conditions, then its conditions are checked (first failure wins), then its other keys recurse;
 * - the cleanup (deleteConditionElements) deletes every scalar condition and every map left empty, bottom up;
 * - nothing else can happen: there are no lists (processListOfMaps and its quirks), no condition with a map
 *   value (nested anchors, `+()` inside conditions), no key spelled differently from its anchor's canonical
 *   form (upstream looks fields up by anchor.String), and no two keys ending up with the same name.
 * Any other pattern returns `undefined` from `compileFastPattern` and goes through anchors.ts.
 */
import { anchorString, isConditionOrGlobal, parseAnchor } from '../../../grammars/kyverno-anchor.js';
import { defineOwn, hasOwn, isJsonObject, type JsonObject, type JsonScalar, type JsonValue } from '../../ir/json.js';
import type { PreprocessError, PreprocessOutcome } from './anchors.js';
import { scalarText } from './go-text.js';
import { matchesPattern, matchPattern } from './pattern-match.js';

const PLAIN = 0;
const ADD = 1;
const CONDITION = 2;
const GLOBAL = 3;

interface Entry {
  /** The key as written (for PLAIN) or the anchor's key. */
  key: string;
  kind: typeof PLAIN | typeof ADD | typeof CONDITION | typeof GLOBAL;
  /** A nested map to evaluate, or undefined when `value` is kept as it is. */
  plan: MapPlan | undefined;
  /** A one-element list of a conditional map (`- (name): x` ...), see evalList. */
  list: MapPlan | undefined;
  value: JsonValue;
}

interface MapPlan {
  entries: Entry[];
  /** Whether the map has conditions to check (most have none). */
  conditions: boolean;
}

/** The compiled pattern, or undefined when only anchors.ts reproduces it. */
export type FastPattern = MapPlan;

/** Compiles a pattern (callers cache the result per pattern object: index.ts). */
export function compileFastPattern(pattern: JsonValue): FastPattern | undefined {
  return isJsonObject(pattern) ? compileMap(pattern) : undefined;
}

function compileMap(m: JsonObject): MapPlan | undefined {
  const entries: Entry[] = [];
  const names = new Set<string>();
  let conditions = false;
  for (const raw of Object.keys(m)) {
    const value = m[raw]!;
    const a = parseAnchor(raw);
    if (Array.isArray(value)) {
      if (a !== undefined || names.has(raw)) return undefined;
      const list = compileListElement(value);
      if (list === undefined) return undefined;
      names.add(raw);
      entries.push({ key: raw, kind: PLAIN, plan: undefined, list, value });
      continue;
    }
    let kind: Entry['kind'] = PLAIN;
    let key = raw;
    if (a !== undefined) {
      if (a.modifier === 'addIfNotPresent') kind = ADD;
      else if (a.modifier === 'condition') kind = CONDITION;
      else if (a.modifier === 'global') kind = GLOBAL;
      else return undefined;
      if (anchorString(a) !== raw || parseAnchor(a.key) !== undefined) return undefined;
      key = a.key;
    }
    if (names.has(key)) return undefined;
    names.add(key);
    let plan: MapPlan | undefined;
    if (kind === CONDITION || kind === GLOBAL) {
      if (isJsonObject(value)) return undefined;
      conditions = true;
    } else if (isJsonObject(value) && !isPlainSubtree(value)) {
      plan = compileMap(value);
      if (plan === undefined) return undefined;
    }
    entries.push({ key, kind, plan, list: undefined, value });
  }
  return { entries, conditions };
}

/**
 * The one list shape compiled: a single map element with scalar conditions and plain keys whose values hold
 * nothing spelled like a condition (hasAnchors reads scalar VALUES too, and the cleanup would then drop the
 * re-emitted copies by their original index).
 */
function compileListElement(items: JsonValue[]): MapPlan | undefined {
  if (items.length !== 1 || !isJsonObject(items[0])) return undefined;
  const el = items[0];
  const entries: Entry[] = [];
  const names = new Set<string>();
  let conditions = false;
  for (const raw of Object.keys(el)) {
    const value = el[raw]!;
    if (Array.isArray(value)) return undefined;
    const a = parseAnchor(raw);
    let key = raw;
    if (a !== undefined) {
      if (a.modifier !== 'condition' || anchorString(a) !== raw || isJsonObject(value)) return undefined;
      key = a.key;
      conditions = true;
    } else if (isJsonObject(value) ? !isPlainSubtree(value) || holdsConditionText(value) : isConditionText(value)) return undefined;
    if (names.has(key)) return undefined;
    names.add(key);
    entries.push({ key, kind: a === undefined ? PLAIN : CONDITION, plan: undefined, list: undefined, value });
  }
  return conditions ? { entries, conditions } : undefined;
}

export function isConditionText(v: JsonValue): boolean {
  return v !== null && typeof v !== 'object' && isConditionOrGlobal(parseAnchor(scalarText(v)));
}

function holdsConditionText(m: JsonObject): boolean {
  for (const k of Object.keys(m)) {
    const v = m[k]!;
    if (isJsonObject(v) ? holdsConditionText(v) : isConditionText(v)) return true;
  }
  return false;
}

/** No anchors, lists or empty maps below: the preprocessing leaves it as it is, so it is shared. */
function isPlainSubtree(m: JsonObject): boolean {
  const keys = Object.keys(m);
  if (keys.length === 0) return false;
  for (const k of keys) {
    if (parseAnchor(k) !== undefined) return false;
    const v = m[k]!;
    if (Array.isArray(v) || (isJsonObject(v) && !isPlainSubtree(v))) return false;
  }
  return true;
}

const EMPTIED: unique symbol = Symbol('emptied');

class Failed {
  constructor(readonly error: PreprocessError) {}
}

/** The resource holds something only anchors.ts reproduces (a non-list under a list pattern, an odd name). */
const GIVE_UP: unique symbol = Symbol('give up');

/** PreProcessPattern of the compiled pattern against `resource` (undefined: no resource); undefined: use anchors.ts. */
export function runFastPattern(plan: FastPattern, resource: JsonValue | undefined): PreprocessOutcome | undefined {
  const out = evalMap(plan, resource);
  if (out === GIVE_UP) return undefined;
  if (out instanceof Failed) return { ok: false, error: out.error };
  return { ok: true, patch: out === EMPTIED ? {} : out };
}

/** The map's preprocessed, cleaned-up form; EMPTIED when the cleanup deletes it. */
function evalMap(plan: MapPlan, resource: JsonValue | undefined): JsonObject | typeof EMPTIED | Failed | typeof GIVE_UP {
  const r = isJsonObject(resource) ? resource : undefined;
  if (plan.conditions) {
    const global = checkConditions(plan, r, GLOBAL);
    if (global !== undefined) return new Failed({ kind: 'global', message: `global condition failed: ${global}` });
    const condition = checkConditions(plan, r, CONDITION);
    if (condition !== undefined) return new Failed({ kind: 'condition', message: `condition failed: ${condition}` });
  }
  let out: JsonObject | undefined;
  for (const e of plan.entries) {
    if (e.kind === CONDITION || e.kind === GLOBAL) continue; // a scalar condition: deleted by the cleanup
    const present = r !== undefined && hasOwn(r, e.key);
    if (e.kind === ADD && present) continue; // handleAddIfNotPresentAnchor clears it
    let value: JsonValue = e.value;
    if (e.plan !== undefined) {
      const inner = evalMap(e.plan, present ? r![e.key] : undefined);
      if (inner instanceof Failed || inner === GIVE_UP) return inner;
      if (inner === EMPTIED) continue;
      value = inner;
    } else if (e.list !== undefined) {
      const items = evalList(e.list, present ? r![e.key] : undefined);
      if (items === GIVE_UP) return items;
      if (items.length === 0) continue; // deleteAnchorsInList: a list emptied by the cleanup is deleted
      value = items;
    }
    defineOwn((out ??= {}), e.key, value);
  }
  return out ?? EMPTIED;
}

/**
 * processListOfMaps for the compiled element: one copy of it per resource element that meets its conditions
 * and has a name (handlePatternName), conditions removed and `name` set to the resource element's; the
 * anchored element itself is deleted by the cleanup.
 */
function evalList(element: MapPlan, resource: JsonValue | undefined): JsonValue[] | typeof GIVE_UP {
  const out: JsonValue[] = [];
  if (resource === undefined || resource === null) return out; // evaluated against nothing: a condition fails
  if (!Array.isArray(resource)) return GIVE_UP;
  for (const re of resource) {
    const r = isJsonObject(re) ? re : undefined;
    if (checkConditions(element, r, CONDITION) !== undefined) continue;
    const name = r !== undefined && hasOwn(r, 'name') ? r.name! : null;
    if (name === null) continue;
    if (typeof name === 'object') {
      if (Object.keys(name).length === 0) continue; // IsNilOrEmpty
      return GIVE_UP;
    }
    if (isConditionText(name)) return GIVE_UP;
    let copy: JsonObject | undefined;
    for (const e of element.entries) if (e.kind === PLAIN) defineOwn((copy ??= {}), e.key, e.value);
    if (copy === undefined) continue; // deleteAnchors left nothing: not re-emitted
    defineOwn(copy, 'name', name);
    out.push(copy);
  }
  return out;
}

function checkConditions(plan: MapPlan, r: JsonObject | undefined, kind: typeof CONDITION | typeof GLOBAL): string | undefined {
  for (const e of plan.entries) {
    if (e.kind !== kind) continue;
    const failure = scalarConditionFailure(r, e.key, scalarText(e.value as JsonScalar));
    if (failure !== undefined) return failure;
  }
  return undefined;
}

/** Whether the scalar condition `(key): expected` holds on the resource map `r` (scalarConditionFailure === undefined). */
export function scalarConditionHolds(r: JsonObject, key: string, expected: string): boolean {
  if (!hasOwn(r, key)) return false;
  const actual = r[key]!;
  return matchesPattern(actual === null || typeof actual !== 'object' ? scalarText(actual) : actual, expected);
}

/** Why the scalar condition `(key): expected` fails on the resource map `r` (undefined: it holds, or no map). */
export function scalarConditionFailure(r: JsonObject | undefined, key: string, expected: string): string | undefined {
  if (r === undefined || !hasOwn(r, key)) return `could not found "${key}" key in the resource`;
  // checkCondition: a scalar condition is compared as YAML text (convertRNodeToInterface).
  const actual = r[key]!;
  const text = actual === null || typeof actual !== 'object' ? scalarText(actual) : actual;
  return matchPattern(text, expected)?.message;
}
