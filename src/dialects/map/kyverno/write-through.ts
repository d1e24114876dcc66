/**
 * A keyed-list element whose condition anchor's map value holds `+()` anchors, Kyverno's idiom for "give
 * every volume that has an emptyDir a size limit":
 *
 *     volumes:
 *     - (emptyDir):
 *         +(sizeLimit): 20Mi
 *
 * strategicPreprocessing.go processListOfMaps evaluates one shared copy of the element against each resource
 * element in turn. For the first element that has the condition key (F), validateConditionsInternal decides
 * the `+(k)` keys on the copy itself (handleAddIfNotPresentAnchor: kept where F's value lacks k, cleared where
 * it has it) and the condition holds by the key's presence alone. Every later element is then checked against
 * what is left (checkCondition: each kept k must match the element's value as a pattern), so it is re-emitted
 * only when it already holds those values. Each re-emitted copy (handlePatternName: elements with a name)
 * carries the condition key's value (deleteAnchors strips the wrapper, keeps the map) and is merged by name:
 * it moves to the front (Prepend) and the kept keys are written into it. In short: F gets the missing keys,
 * the others only move.
 *
 * Inside a `foreach`, the element's `name` is overwritten by handlePatternName, so each iteration applies the
 * same patch to the object the previous one left: the first adds the keys to F; from the second on F holds
 * them all, nothing is kept, and every named element with the key is re-emitted, so moves to the front in
 * its current order. A third iteration changes nothing more.
 *
 * Handled: exactly one condition anchor, whose value holds only top-level `+(k)` keys with string or boolean
 * values, beside at most a `name` key; lists merged by name whose elements with the key all have a name (the
 * API server requires names of containers and volumes; an element without one fails the mutation here).
 */
import { parseAnchor } from '../../../../grammars/kyverno-anchor.js';
import { isJsonObject, type JsonObject } from '../../../ir/json.js';
import { notYet, type Refusal } from '../../generate-report.js';
import { celLiteral } from '../emit-cel.js';
import { and, celString, concat, cond, fieldPlace, has, indexPlace, not, one, or, paren, patch, translationLimit, type Cel, type Place } from './cel-patch.js';
import { anchorConditionCel } from './pattern.js';

/** The recognised element: the condition key, its `+(k)` writes, and the element's `name` (literal or template). */
export interface WriteThroughElement {
  key: string;
  adds: readonly (readonly [string, string | boolean])[];
  name: string | undefined;
}

type R<T> = T | Refusal;

function refused(x: unknown): x is Refusal {
  return typeof x === 'object' && x !== null && 'why' in x && 'class' in x;
}

/** The element as a write-through condition, undefined when no condition anchor's value holds `+()` keys. */
export function writeThroughElement(e: JsonObject): R<WriteThroughElement> | undefined {
  const conditions = Object.entries(e).filter(([k]) => parseAnchor(k)?.modifier === 'condition');
  const writing = conditions.filter(([, v]) => isJsonObject(v) && Object.keys(v).some((k) => parseAnchor(k)?.modifier === 'addIfNotPresent'));
  if (writing.length === 0) return undefined;
  const [rawKey, value] = writing[0]!;
  if (conditions.length > 1) return notYet(`the condition ${rawKey}, whose +() keys Kyverno writes, beside other conditions in one list element`);
  const others = Object.keys(e).filter((k) => k !== rawKey);
  if (others.some((k) => k !== 'name') || (e.name !== undefined && typeof e.name !== 'string')) return notYet(`keys beside the condition ${rawKey}, whose +() keys Kyverno writes, in one list element`);
  const adds: [string, string | boolean][] = [];
  for (const [k, v] of Object.entries(value as JsonObject)) {
    const a = parseAnchor(k);
    if (a?.modifier !== 'addIfNotPresent' || k.includes('{{')) return notYet(`the key ${k} beside +() keys in the condition ${rawKey}`);
    if (typeof v !== 'string' && typeof v !== 'boolean') return notYet(`the +() value ${JSON.stringify(v)} in the condition ${rawKey} (Kyverno then also compares it as a pattern)`);
    if (typeof v === 'string' && v.includes('{{')) return notYet(`the variable in the +() value of the condition ${rawKey}`);
    adds.push([a.key, v]);
  }
  return { key: parseAnchor(rawKey)!.key, adds, name: e.name as string | undefined };
}

export interface WriteThroughEnv {
  fresh(base: string): string;
  /**
   * A test that holds where Kyverno's substitution of the element's templated name succeeds (in a foreach,
   * for every iteration's element) and fails the evaluation where it fails.
   */
  nameSubstitutes?: Cel;
}

/** The CEL pieces both merges share: the first element with the key, which `+(k)` keys the copy keeps. */
function common(list: Place, w: WriteThroughElement, env: WriteThroughEnv): R<{ L: Cel; c: Cel; i: Cel; hasKey: (x: Cel) => Cel; named: (x: Cel) => Cel; first: Cel; kept: (k: string) => Cel; selected: Cel }> {
  const L = paren(list.cel);
  const c = env.fresh('c');
  const i = env.fresh('i');
  const item = (x: Cel): Place => ({ cel: x, ptr: [] });
  const hasKey = (x: Cel): Cel => has(item(x), w.key);
  const named = (x: Cel): Cel => and([has(item(x), 'name'), `${x}.name != null`])!;
  const first = `${L}.transformList(${i}, ${c}, ${hasKey(c)}, ${i})[0]`;
  const F = fieldPlace(item(`${L}[${first}]`), w.key);
  const kept = (name: string): Cel => not(has(F, name));
  // A later element passes when it matches every key the copy kept (checkCondition on the kept map).
  const matchesKept: Cel[] = [];
  for (const [name, value] of w.adds) {
    const m = anchorConditionCel(fieldPlace(item(c), w.key).cel, { [name]: value });
    if (refused(m)) return m;
    matchesKept.push(or([not(kept(name)), m]));
  }
  const selected = and([named(c), hasKey(c), or([`${i} == ${first}`, and(matchesKept) ?? 'true'])])!;
  return { L, c, i, hasKey, named, first, kept, selected };
}

/** The guards every result shares: some element has the key, all such elements are named, the name substitutes. */
function guarded(list: Place, w: WriteThroughElement, env: WriteThroughEnv, x: { L: Cel; c: Cel; hasKey: (x: Cel) => Cel; named: (x: Cel) => Cel }, iterations: '1' | Cel, patches: Cel): Cel {
  const { L, c } = x;
  const unnamed = `${L}.exists(${c}, ${and([x.hasKey(c), not(x.named(c))])})`;
  const where = list.ptr.filter((s) => typeof s === 'string').join('');
  const failure = translationLimit(`an element of ${where} has ${w.key} but no name, which the translation does not model`);
  let out = cond(`${L}.exists(${c}, ${x.hasKey(c)})`, cond(unnamed, failure, patches));
  // Kyverno substitutes the name before anything else: a failing substitution fails the rule.
  if (env.nameSubstitutes !== undefined) out = cond(env.nameSubstitutes, out);
  if (iterations !== '1') out = cond(`${iterations} >= 1`, out);
  return out;
}

/**
 * The patches of the element merged into the list at `list`, a list merged by `name`. `iterations`: how
 * many times Kyverno applies the patch: '1' for a plain patch, the CEL count of a foreach's iterations.
 */
export function writeThroughPatches(list: Place, w: WriteThroughElement, env: WriteThroughEnv, iterations: '1' | Cel): R<Cel> {
  const x = common(list, w, env);
  if (refused(x)) return x;
  const { L, c, i, kept, selected } = x;
  const k = env.fresh('k');
  const indices = `${L}.transformList(${i}, ${c}, ${selected}, ${i})`;
  const movesOf = (order: Cel): Cel =>
    `${order}.transformList(${k}, ${i}, ${k} != ${i}, ${patch('move', [...list.ptr, '/', { cel: `string(${k})` }], undefined, [...list.ptr, '/', { cel: `string(${i})` }])})`;
  // The moves of the first application: element i (in original order) reaches position k; the ones before it
  // in the selection were taken from in front of it, so it is still at i.
  const writes = w.adds.map(([name, value]) =>
    cond(kept(name), `${indices}.transformList(${k}, ${i}, true, ${patch('add', [...fieldPlace(indexPlace(list, k), w.key).ptr, `/${name.replaceAll('~', '~0').replaceAll('/', '~1')}`], celLiteral(value)!)})`),
  );
  // A copy holding nothing once its +() keys are decided is not re-emitted (handlePatternName: deleteAnchors
  // finds it empty): with nothing kept, only the element's own `name` key keeps it.
  const keptAny = or(w.adds.map(([name]) => kept(name)));
  const live = w.name !== undefined ? 'true' : keptAny;
  let patches = cond(live, concat([movesOf(indices), ...writes]));
  if (iterations !== '1' && w.name !== undefined) {
    // The order the first application left, as original indices; from the second on, every named element
    // with the key comes to the front in that order (its positions p are increasing, as for the first moves).
    const p = env.fresh('p');
    const after = `(${indices} + ${L}.transformList(${i}, ${c}, !(${selected}), ${i}))`;
    const again = `${after}.transformList(${p}, ${i}, ${and([x.named(`${L}[${i}]`), x.hasKey(`${L}[${i}]`)])}, ${p})`;
    patches = concat([patches, cond(`${iterations} >= 2`, movesOf(again))]);
  }
  return guarded(list, w, env, x, iterations, patches);
}

/**
 * The element merged into a list kyaml replaces (a kind it has no schema for): the list becomes the
 * re-emitted copies, `{name, <key>: kept}`. Applied again (a foreach), the first copy decides anew from
 * what the previous application left: with A the keys the first element had, the second application keeps
 * A's values and re-emits only the first copy when A is not empty (every copy, with an empty map, when it
 * is); from then on one copy remains, its map alternating between the values outside A and those in A
 * (between all values and none when A is empty).
 */
export function writeThroughReplaced(list: Place, w: WriteThroughElement, env: WriteThroughEnv, iterations: '1' | Cel): R<Cel> {
  if (w.adds.length > 3) return notYet(`more than three +() keys in the condition (${w.key}) of a list Kyverno replaces`);
  const x = common(list, w, env);
  if (refused(x)) return x;
  const { L, c, i, first, kept, selected } = x;
  const entries = w.adds.map(([name, value]) => ({ name, value: celLiteral(value)!, kept: kept(name) }));
  // The copy `{name, <key>: the values whose test holds}` (each test a boolean of the original object); an
  // empty map is pruned, as Kyverno's cleanup does with the copy's `{}`.
  const copyWhere = (name: Cel, test: (e: (typeof entries)[number]) => Cel): Cel => {
    const build = (n: number, acc: string[]): Cel => {
      if (n === entries.length) return acc.length === 0 ? `{"name": ${name}}` : `{"name": ${name}, ${celString(w.key)}: {${acc.join(', ')}}}`;
      const e = entries[n]!;
      return cond(test(e), build(n + 1, [...acc, `${celString(e.name)}: ${e.value}`]), build(n + 1, acc));
    };
    return build(0, []);
  };
  const firstName = `${L}[${first}].name`;
  const once = `${L}.transformList(${i}, ${c}, ${selected}, ${copyWhere(`${c}.name`, (e) => e.kept)})`;
  const keptAny = or(entries.map((e) => e.kept));
  let copies = once;
  let live = w.name !== undefined ? 'true' : keptAny;
  if (iterations !== '1') {
    const none = and(entries.map((e) => e.kept)) ?? 'true';
    const n = iterations;
    // With A empty (the first element had none of the keys) the second application keeps nothing: each copy
    // is re-emitted bare (the empty map pruned) when the element has its own name, none is when it has not;
    // either way no element holds the key any more, and later applications find nothing to do.
    const emptyA = w.name !== undefined ? `${once}.map(${c}, {"name": ${c}.name})` : once;
    const someA = `[${cond(`${n} % 2 == 0`, copyWhere(firstName, (e) => not(e.kept)), copyWhere(firstName, (e) => e.kept))}]`;
    // A first application that kept nothing left no element with the key: nothing changes after it.
    copies = cond(or([`${n} == 1`, not(keptAny)]), once, cond(none, emptyA, someA));
    // Without a name of its own, a first application that kept nothing leaves the list as it was, and so
    // does every later one.
    if (w.name === undefined) live = keptAny;
  }
  return guarded(list, w, env, x, iterations, cond(live, one(patch('add', list.ptr, copies))));
}
