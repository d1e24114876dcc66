/**
 * A Kyverno foreach over joined lists whose strategic merge writes lists of the object through a condition
 * anchor on the iterated element's name (kyverno/policies add-default-resources: the loop runs over
 * `request.object.spec.[ephemeralContainers, initContainers, containers][]` and merges
 * `spec.containers: [{(name): "{{element.name}}", resources: {requests: {+(memory): …}}}]`), each list on its
 * own, and constant keys beside them (nirmata's Pod Security remediations), merged once.
 *
 * At each turn Kyverno re-emits the containers of that name (the condition holds) as plain patch elements,
 * merged with the element's other keys and, by kyaml's Prepend, moved to the front (smp.ts anchoredElement),
 * unless the copy holds nothing once its `+(k)` keys are decided. A turn whose name no container has changes
 * nothing. With the element's other keys constant, a container's content is its merge with them once, and
 * its place is decided by the last turn that moved it:
 * - where every leaf of the element is below a `+(k)` key, the container moves once, at the first turn of its
 *   name, if its copy held something then (after that merge its copy is empty);
 * - where a plain leaf is left, it moves at every turn of its name: the last one decides.
 * The moved containers end in front, the one moved last first, the others after them in their order. As one
 * JSONPatch: the moves that put them there, then each one's edits at its new index, read from the object as
 * the loop found it (no turn renames a container: the element may not write `name`).
 *
 * Names must be unique in the written list (the API server refuses a Pod whose containers share a name);
 * where they are not, the CEL fails, with a note.
 */
import { parseAnchor } from '../../../../grammars/kyverno-anchor.js';
import { isJsonObject, type JsonObject, type JsonValue } from '../../../ir/json.js';
import { notYet, type Refusal } from '../../generate-report.js';
import { and, concat, cond, fieldPlace, has, indexPlace, NONE, paren, patch, ROOT, translationLimit, type Cel, type Place } from './cel-patch.js';
import { listStrategies, objectKindTest } from './list-strategy.js';
import { refused, smpEnv, type RuleCompiler } from './rule.js';
import type { RuleScope } from './scope.js';
import { elementLive, isPlainValue, liveOnceMerged, smpElementPatches, smpPatches } from './smp.js';
import { anchorConditionCel } from './pattern.js';

type R<T> = T | Refusal;

/** Why the CEL fails where the written list holds two elements of one name. */
export const DUPLICATE_NAMES_NOTE =
  'a foreach over joined lists that merges into a list by a condition on the element name is translated for lists whose names are unique (as the API server requires of containers); where two elements of the written list share a name, the CEL fails';

/** Why the CEL fails on an object of a kind kyaml has no schema for, where the rule's kinds admit one. */
export const UNKNOWN_KIND_NOTE =
  'a foreach over joined lists that merges into a list by a condition on the element name is translated for the built-in kinds, whose list kyaml merges by name; on an object of another kind the rule matches (kyaml replaces its list), the CEL fails';

/** Why the CEL fails where two turns of a loop whose element holds conditions merge one name. */
export const REPEATED_TURN_NOTE =
  'a foreach over joined lists whose list element holds conditions is translated where the turns merge distinct names (the API server requires it of a Pod\'s containers, init and ephemeral containers together); where two turns merge one name, the CEL fails';

/** The selector of the element: the condition `(name)` on the iterated element's name. */
const SELECTOR = /^\{\{-?\s*element\.name\s*-?\}\}$/;

/** A list the pattern writes: its path of map keys, and its one element. */
interface WrittenList {
  readonly path: readonly string[];
  readonly element: JsonObject;
}

function containsList(v: JsonValue): boolean {
  return Array.isArray(v) || (isJsonObject(v) && Object.values(v).some(containsList));
}

/**
 * The lists the pattern writes (each of one element, below map keys) and what it writes beside them, which
 * must be plain (smp.ts isPlainValue: merged at every turn, it gives what one merge gives; `rest`, the pattern
 * without its lists; undefined when nothing is left).
 */
function splitPattern(pattern: JsonObject, path: readonly string[] = []): R<{ lists: WrittenList[]; rest: JsonObject | undefined }> {
  const lists: WrittenList[] = [];
  let rest: JsonObject | undefined;
  for (const [key, v] of Object.entries(pattern)) {
    if (!containsList(v)) {
      if (!isPlainValue(v)) return notYet('a foreach strategic merge over joined lists that writes, beside a list, a value with variables, anchors or directives');
      (rest ??= {})[key] = v;
      continue;
    }
    if (key.startsWith('$') || key.includes('{{') || parseAnchor(key) !== undefined || /^\d+$/.test(key)) return notYet(`the key ${JSON.stringify(key)} above the list a foreach strategic merge over joined lists writes`);
    const at = [...path, key];
    if (Array.isArray(v)) {
      if (v.length !== 1 || !isJsonObject(v[0])) return notYet('a foreach strategic merge over joined lists whose list holds other than one element');
      lists.push({ path: at, element: v[0] });
      continue;
    }
    const below = splitPattern(v as JsonObject, at);
    if (refused(below)) return below;
    lists.push(...below.lists);
    if (below.rest !== undefined) (rest ??= {})[key] = below.rest;
  }
  return { lists, rest };
}

/** The element's keys other than its `(name)` condition, or a refusal. */
function elementBody(element: JsonObject, where: string): R<JsonObject> {
  let selected = false;
  const body: JsonObject = {};
  for (const [k, v] of Object.entries(element)) {
    const a = parseAnchor(k);
    if (a?.modifier === 'condition' && a.key === 'name' && typeof v === 'string' && SELECTOR.test(v.trim()) && !selected) {
      selected = true;
      continue;
    }
    if (a !== undefined) return notYet(`the anchor ${k} at the top of an element of the list at ${where} in a foreach over joined lists (only the (name) condition on {{element.name}} is translated there)`);
    if (k === 'name' && typeof v === 'string' && SELECTOR.test(v.trim())) return notYet(`an element of the list at ${where} in a foreach over joined lists selected by a plain name: "{{element.name}}" (not selected by the condition (name): each turn whose name no element has adds one)`);
    if (k === 'name') return notYet(`an element of the list at ${where} that writes its name in a foreach over joined lists`);
    body[k] = v;
  }
  if (!selected) return notYet(`an element of the list at ${where} in a foreach over joined lists not selected by the condition (name): "{{element.name}}"`);
  if (Object.keys(body).length === 0) return notYet(`an element of the list at ${where} in a foreach over joined lists that writes nothing`);
  if (JSON.stringify(body).includes('{{')) return notYet(`a variable in an element of the list at ${where} in a foreach over joined lists (the turn that merges it last would decide its value)`);
  return body;
}

/**
 * The conditions on scalars below the element's maps (`securityContext: {(runAsNonRoot): "false", ...}`), as
 * tests of the list element `at` (a CEL variable), and the element without them. Kyverno checks them on each
 * list element when it picks the ones the pattern element is for (processListOfMaps: a failed condition skips
 * that element; a map the element lacks fails the conditions below it) and deletes them from the patch whole
 * (deleteAnchors with deleteScalar). With one turn per name, a container is tested as the loop found it.
 * Other anchors stay in the body (smp.ts decides them); conditions on maps or lists are left `yet`.
 */
function liftedConditions(element: JsonObject, at: Place): R<{ body: JsonObject; tests: Cel[] }> {
  const body: JsonObject = {};
  const tests: Cel[] = [];
  for (const [key, v] of Object.entries(element)) {
    const a = parseAnchor(key);
    if (a?.modifier === 'condition') {
      if (v !== null && typeof v === 'object') return notYet(`the condition ${key} on a map or list inside an element of a list a foreach over joined lists writes`);
      const test = anchorConditionCel(fieldPlace(at, a.key).cel, v);
      if (refused(test)) return test;
      tests.push(and([has(at, a.key), test])!);
      continue;
    }
    if (a === undefined && isJsonObject(v) && Object.keys(v).some((k) => parseAnchor(k)?.modifier === 'condition' || isJsonObject(v[k]))) {
      const inner = liftedConditions(v, fieldPlace(at, key));
      if (refused(inner)) return inner;
      if (inner.tests.length > 0) tests.push(and([has(at, key), ...inner.tests])!);
      // A map left empty once its conditions are deleted is deleted too (deleteAnchorsInMap).
      if (Object.keys(inner.body).length > 0 || Object.keys(v).length === 0) body[key] = inner.body;
      continue;
    }
    body[key] = v;
  }
  return { body, tests };
}

/**
 * The loop's patches, or undefined where the pattern writes no list (foreach-leaves.ts takes those). `list`
 * is the joined list, `e` and `i` its element and index in `scope`, `guards` the element's tests. Each list the
 * pattern writes is merged as the loop merges it (its own places: the turns move and edit only its elements);
 * what the pattern writes beside them is constant, so merged once where some turn passes its tests, as merging
 * it at every such turn leaves it.
 */
export function joinedListMergeLoop(rc: RuleCompiler, order: 'asc' | 'desc', list: Cel, e: string, i: string, scope: RuleScope, guards: readonly Cel[], pattern: JsonValue): R<Cel> | undefined {
  if (!isJsonObject(pattern) || !containsList(pattern)) return undefined;
  const split = splitPattern(pattern);
  if (refused(split)) return split;
  // The name each turn that passes its tests merges, in the joined list's order; made at the first list.
  let names: Cel | undefined;
  const turnNames = (): R<Cel> => {
    if (names !== undefined) return names;
    const name = rc.template('{{element.name}}', scope);
    if (refused(name)) return name;
    return (names = bind(rc, 'turnNames', `${paren(list)}.transformList(${i}, ${e}, ${and(guards) ?? 'true'}, ${name})`));
  };
  const parts: Cel[] = [];
  if (split.rest !== undefined) {
    const once = smpPatches(split.rest, smpEnv(rc, scope));
    if (refused(once)) return once;
    parts.push(cond(`${paren(list)}.exists(${e}, ${and(guards) ?? 'true'})`, cond(once.condition, once.patches)));
  }
  for (const written of split.lists) {
    const loop = listLoop(rc, order, scope, written, turnNames);
    if (refused(loop)) return loop;
    parts.push(loop);
  }
  return concat(parts);
}

/** A lazily evaluated policy variable holding `expression` (read several times), as `variables.<name>`. */
function bind(rc: RuleCompiler, base: string, expression: Cel): Cel {
  const bound = rc.variableName(base);
  rc.variables.push({ name: bound, expression });
  return `variables.${bound}`;
}

/** The patches of one written list (see the header); `turnNames` gives the names the turns merge. */
function listLoop(rc: RuleCompiler, order: 'asc' | 'desc', scope: RuleScope, written: WrittenList, turnNames: () => R<Cel>): R<Cel> {
  const where = written.path.join('.');
  const s = listStrategies(rc.env.match, written.path);
  if (s.mixed || s.known?.kind !== 'keyed' || s.known.key !== 'name') return notYet(`a foreach over joined lists that merges into the list at ${where}, which kyaml does not merge by name for every kind the rule matches`);
  const fresh = (b: string): string => rc.fresh.next(b);
  const [c, d, k, j, m, p, x] = ['c', 'd', 'k', 'j', 'm', 'p', 'x'].map(fresh) as [string, string, string, string, string, string, string];
  const element = elementBody(written.element, where);
  if (refused(element)) return element;
  const lifted = liftedConditions(element, { cel: c, ptr: [] });
  if (refused(lifted)) return lifted;
  const body = lifted.body;
  if (Object.keys(body).length === 0) return notYet(`an element of the list at ${where} in a foreach over joined lists that writes nothing but conditions`);
  const everyTurn = liveOnceMerged(body);
  // Merged again at each turn, a list inside the element would be merged (and its elements moved) again.
  if (everyTurn && containsList(body)) return notYet(`a list in an element of the list at ${where} merged at every turn of a foreach over joined lists`);

  let at: Place = ROOT;
  const present: Cel[] = [];
  for (const key of written.path) {
    present.push(has(at, key));
    at = fieldPlace(at, key);
  }
  const C = paren(at.cel);

  const names = turnNames();
  if (refused(names)) return names;
  // Each moved container's edits at its new index k, read from where it stood (j) before the loop.
  const env = smpEnv(rc, scope);
  const patches = smpElementPatches(body, indexPlace(at, k, `${C}[${j}]`), [...written.path, '[]'], env);
  if (refused(patches)) return patches;
  // Turns from the last one Kyverno runs to the first (Descending runs the joined list backwards).
  const lastFirst = order === 'asc' ? `lists.range(size(${names})).reverse()` : `lists.range(size(${names}))`;
  // The turn that decides a container's place: the first turn of its name, or the last one.
  const decidingFirst = order === 'asc' ? !everyTurn : everyTurn;
  const deciding = `${names}.${decidingFirst ? 'indexOf' : 'lastIndexOf'}(${names}[${p}]) == ${p}`;
  const live = and([everyTurn ? 'true' : elementLive(body, c), ...lifted.tests])!;
  // Bound as policy variables (each read several times): evaluated lazily, against the object this rule's mutation sees.
  const moved = bind(rc, 'movedToFront', `${lastFirst}.filter(${p}, ${deciding}).map(${p}, ${C}.transformList(${m}, ${c}, ${and([`has(${c}.name)`, `${c}.name == ${names}[${p}]`, live])}, ${m})).flatten()`);
  // Element j moves to index k; the k moved before it that stood after it pushed it back by one each.
  const from = `${j} + ${moved}.slice(0, ${k}).filter(${x}, ${x} > ${j}).size()`;
  const listPtr = at.ptr;
  const moves = `${moved}.transformList(${k}, ${j}, ${from} != ${k}, ${patch('move', [...listPtr, '/', { cel: `string(${k})` }], undefined, [...listPtr, '/', { cel: `string(${from})` }])})`;
  const edits = patches.patches === NONE ? NONE : `${moved}.transformList(${k}, ${j}, true, ${patches.patches}).flatten()`;
  const unique = `${C}.all(${c}, !has(${c}.name) || ${C}.filter(${d}, has(${d}.name) && ${d}.name == ${c}.name).size() == 1)`;
  rc.notes.add(DUPLICATE_NAMES_NOTE);
  let merged = cond(and(present), cond(unique, concat([moves, edits]), translationLimit(DUPLICATE_NAMES_NOTE)));
  if (lifted.tests.length > 0) {
    // Each container is then met by one turn, which tests it as the loop found it (see liftedConditions).
    rc.notes.add(REPEATED_TURN_NOTE);
    merged = cond(`${names}.all(${x}, ${names}.filter(${d}, ${d} == ${x}).size() == 1)`, merged, translationLimit(REPEATED_TURN_NOTE));
  }
  if (!s.others) return merged;
  rc.notes.add(UNKNOWN_KIND_NOTE);
  return cond(objectKindTest(s.knownKinds), merged, translationLimit(UNKNOWN_KIND_NOTE));
}
