/**
 * A Kyverno `patchStrategicMerge` as one JSONPatch expression over the object as the rule finds it
 * (kyverno.md §1.8; our reproduction, the judge: src/merge/smp/anchors.ts and merge.ts).
 *
 * Maps merge key by key: a scalar is written (`add` replaces), `null` removes, a map merges into an existing
 * map or is created whole where it is missing (with the null members dropped and `{}` pruned, as Kyverno's
 * cleanup and kyaml do), `+(k)` writes only where `k` is missing, `(k)` / `<(k)` conditions outside lists make
 * the whole patch apply or not (a failed condition empties Kyverno's patch). Kyverno substitutes `{{ }}`
 * values before it merges: a value whose type is not known to be a scalar is merged as what it comes out at
 * runtime (null removes, a map of scalars merges key by key, a list replaces where kyaml replaces lists), and
 * the CEL fails on the shapes it does not merge (mergedSubstitution, createdSubstitution).
 *
 * Lists follow kyaml's schema for the object's apiVersion/kind (list-strategy.ts): a list without a merge
 * strategy is replaced; a list merged by one key (or by several, as multi-key-list.ts reduces them to one)
 * takes the patch's elements first, in patch order (merged into their existing counterparts), then the
 * other elements in their order (Prepend). That order is
 * produced with JSONPatch `move`s, so an existing element keeps its content and moves to the front as it
 * does in Kyverno. A list element with condition anchors selects the resource elements it matches (each
 * re-emitted with the element's `name`), which therefore come first in resource order; its `+(k)` keys are
 * decided by the first resource element and apply to all (the shared-copy quirk of processListOfMaps).
 * A list element with a global anchor `<(k)` is a condition on the whole patch.
 *
 * Exactness holds for objects in the form the API server gives them: no explicit nulls along the patched
 * paths, keyed lists whose elements carry distinct keys, values of the JSON types the patch implies (kyaml
 * also normalises such objects, or refuses a scalar over a map, where a JSONPatch writes).
 */
import { parseAnchor } from '../../../../grammars/kyverno-anchor.js';
import { isJsonObject, type JsonObject, type JsonValue } from '../../../ir/json.js';
import type { MatchSpec } from '../../../ir/match.js';
import { notYet, type Refusal } from '../../generate-report.js';
import type { Ty } from '../../../lowering/jmes-cel/index.js';
import { celLiteral } from '../emit-cel.js';
import { and, celString, concat, cond, fieldPlace, has, indexPlace, NONE, not, one, or, paren, patch, renderPointer, ROOT, translationLimit, type Cel, type Place } from './cel-patch.js';
import { select } from '../emit-cel.js';
import { listStrategies, objectKindTest, type SchemaStep } from './list-strategy.js';
import { writeProblem } from './rule.js';
import { anchorConditionCel, isPlainPattern } from './pattern.js';
import { writeThroughElement, writeThroughPatches, writeThroughReplaced } from './write-through.js';
import { elementPredicate, multiKeyElements, multiKeyGuard, multiKeyLimit } from './multi-key-list.js';

export interface SmpEnv {
  /** The rule's match: the kinds whose schemas decide how lists merge. */
  match: MatchSpec;
  /** A string leaf holding `{{ }}` as CEL (the substituted value), or why not. */
  template(text: string): Cel | Refusal;
  /** The same, with the type of the substituted value. */
  templateTyped(text: string): { cel: Cel; type: Ty } | Refusal;
  /** Names for comprehension variables that do not clash with the caller's. */
  fresh(base: string): string;
  /** Records an assumption the translation rests on (a warning). */
  note(text: string): void;
}

export interface SmpPatches {
  patches: Cel;
  /** Conditions outside lists and global anchors: where false, Kyverno's patch is empty. */
  condition: Cel | undefined;
}

type R<T> = T | Refusal;

function refused(x: unknown): x is Refusal {
  return typeof x === 'object' && x !== null && 'why' in x && 'class' in x;
}

interface Walk {
  env: SmpEnv;
  /** Conditions that must hold for the patch to apply at all. */
  conditions: Cel[];
  /**
   * Inside an anchored list element, `+(k)` is decided once for every selected element: the CEL that says
   * "write k" for the key at this path below the element. Elsewhere undefined (each place decides by itself).
   */
  decide?: (key: string, rel: readonly string[]) => Cel;
}

const DIRECTIVE = /^\$/;

/** The value as JSON when it holds no variable (what the schema check can read), else undefined. */
function literalOf(v: JsonValue): JsonValue | undefined {
  return JSON.stringify(v).includes('{{') || JSON.stringify(v).includes('(') ? undefined : v;
}

/** Why the API server would reject a write of `v` at `steps.key` for a kind the rule matches. */
function rejected(w: Walk, steps: readonly SchemaStep[], key: string, v: JsonValue | undefined): Refusal | undefined {
  return writeProblem(w.env.match, [...steps, key], v === undefined ? undefined : literalOf(v));
}

/**
 * A leaf of the patch as CEL: a scalar, or a `{{ }}` string (`substituted`: Kyverno substitutes it before the
 * merge, so the merge sees whatever value it yields, which may be null, a map or a list, unless its type says
 * it is a scalar).
 */
export function leafValue(v: JsonValue, env: SmpEnv): R<{ cel: Cel; substituted: boolean }> {
  if (typeof v === 'string' && v.includes('{{')) {
    const t = env.templateTyped(v);
    if (refused(t)) return t;
    return { cel: t.cel, substituted: !SCALAR_KINDS.has(t.type.k) };
  }
  const lit = leafCel(v, env);
  return refused(lit) ? lit : { cel: lit, substituted: false };
}

const SCALAR_KINDS = new Set<Ty['k']>(['string', 'int', 'double', 'number', 'bool']);

/** A scalar of the patch as CEL. */
export function leafCel(v: JsonValue, env: SmpEnv): R<Cel> {
  if (typeof v === 'string' && v.includes('{{')) return env.template(v);
  if (typeof v === 'string' && parseAnchor(v) && /^[(<]/.test(v.trim())) return notYet(`the anchor-like value ${JSON.stringify(v)} (Kyverno treats it as a condition)`);
  const lit = celLiteral(v);
  return lit === undefined ? notYet(`the value ${JSON.stringify(v)} (out of CEL's exact range)`) : lit;
}

/** A created value and the condition under which it holds anything (its `+()` decisions may empty it). */
interface Made {
  cel: Cel;
  /** Where false, Kyverno's cleanup leaves nothing to create. */
  live: Cel;
}

/**
 * The value a subtree of the patch creates where the resource has nothing (anchors resolved against nothing:
 * `+(k)` becomes `k`, or follows the shared decision in an anchored list element; conditions would fail and
 * are refused by the caller first). `undefined` when the subtree never writes anything; a map whose members
 * are all null is still created (kyaml creates it, then deletes the members from it).
 */
function materialize(v: JsonValue, w: Walk, rel: readonly string[]): R<Made | undefined> {
  if (v === null) return undefined;
  if (Array.isArray(v)) {
    const items: Cel[] = [];
    for (const e of v) {
      if (isJsonObject(e) && hasAnchors(e)) continue; // anchored elements vanish when the list is absent
      const m = materialize(e, w, rel);
      if (refused(m)) return m;
      if (m === undefined) {
        if (isJsonObject(e)) continue; // an element left empty is pruned
        return notYet('a null list element');
      }
      if (m.live !== 'true') return notYet('a list element whose content depends on +() anchors');
      items.push(m.cel);
    }
    if (items.length === 0 && v.length > 0) return undefined;
    return { cel: `[${items.join(', ')}]`, live: 'true' };
  }
  if (!isJsonObject(v)) {
    const leaf = leafValue(v, w.env);
    if (refused(leaf)) return leaf;
    return { cel: leaf.substituted ? createdSubstitution(leaf.cel, w, 'value') : leaf.cel, live: 'true' };
  }
  const entries: string[] = [];
  const lives: Cel[] = [];
  let hadNull = false;
  for (const [rawKey, x] of Object.entries(v)) {
    if (DIRECTIVE.test(rawKey)) return notYet(`the strategic-merge directive ${rawKey}`);
    const a = parseAnchor(rawKey);
    if (a && a.modifier !== 'addIfNotPresent') return notYet(`the anchor ${rawKey} below a place the resource does not have`);
    const key = a ? a.key : rawKey;
    let keyCel = celString(key);
    if (key.includes('{{')) {
      // Kyverno substitutes map keys too (the result must be a string).
      if (a) return notYet(`the variable in the anchored key ${JSON.stringify(rawKey)}`);
      const k = w.env.template(key);
      if (refused(k)) return k;
      keyCel = `string(${k})`;
    }
    if (x === null) {
      hadNull = true;
      continue;
    }
    const leaf = typeof x === 'string' ? leafValue(x, w.env) : undefined;
    if (leaf !== undefined && refused(leaf)) return leaf;
    if (leaf?.substituted) {
      // A null substitution is a null member: the map is still created, without it.
      const decision = a && w.decide ? w.decide(key, rel) : undefined;
      const member = createdSubstitution(leaf.cel, w, 'member');
      entries.push(decision === undefined ? `?${keyCel}: ${member}` : `?${keyCel}: ${paren(decision)} ? ${member} : optional.none()`);
      lives.push(decision ?? 'true');
      continue;
    }
    const m = materialize(x, w, [...rel, key]);
    if (refused(m)) return m;
    if (m === undefined) continue;
    const decision = a && w.decide ? w.decide(key, rel) : undefined;
    const live = and([decision, m.live]) ?? 'true';
    if (live === 'true') entries.push(`${keyCel}: ${m.cel}`);
    else entries.push(`?${keyCel}: ${paren(live)} ? optional.of(${m.cel}) : optional.none()`);
    lives.push(live);
  }
  if (entries.length === 0 && !hadNull) return undefined;
  return { cel: `{${entries.join(', ')}}`, live: hadNull ? 'true' : or(lives) };
}

/** A patch value without `{{ }}`, anchors or directives: merging it into its own result changes nothing. */
export function isPlainValue(v: JsonValue): boolean {
  if (Array.isArray(v)) return v.every(isPlainValue);
  if (!isJsonObject(v)) return typeof v !== 'string' || !v.includes('{{');
  return Object.entries(v).every(([k, x]) => !k.startsWith('$') && !k.includes('{{') && parseAnchor(k) === undefined && isPlainValue(x));
}

/** processListOfMaps hasAnchors: conditions, globals and add-if-not-present anywhere in the element. */
function hasAnchors(v: JsonValue): boolean {
  if (Array.isArray(v)) return v.some(hasAnchors);
  if (!isJsonObject(v)) return false;
  return Object.entries(v).some(([k, x]) => {
    const a = parseAnchor(k);
    if (a && (a.modifier === 'condition' || a.modifier === 'global' || a.modifier === 'addIfNotPresent')) return true;
    return hasAnchors(x);
  });
}

function hasConditions(v: JsonValue): boolean {
  if (Array.isArray(v)) return v.some(hasConditions);
  if (!isJsonObject(v)) return false;
  return Object.entries(v).some(([k, x]) => {
    const a = parseAnchor(k);
    return (a && (a.modifier === 'condition' || a.modifier === 'global')) || hasConditions(x);
  });
}

/** Whether a condition's map value is written back unchanged by Kyverno (its wrapper is stripped, not deleted). */
function conditionWritesNothing(v: JsonValue): boolean {
  // deleteAnchorsInList drops the elements holding anchors: a single one leaves the list empty and the
  // condition is deleted. An element without anchors is kept and merged, an empty list is written as it is,
  // and a second anchored element makes Kyverno index past the shrunk list (a panic).
  if (Array.isArray(v)) return v.length === 1 && isJsonObject(v[0]) && Object.keys(v[0]).some((k) => parseAnchor(k) !== undefined);
  if (!isJsonObject(v)) return true;
  // deleteAnchorsInMap keeps a condition whose value has plain content and renames it to the plain key: the
  // content is merged. Exact values merge into what they were compared equal to; wildcards would be written.
  return Object.values(v).every((x) => (isJsonObject(x) ? conditionWritesNothing(x) : typeof x === 'boolean' || (typeof x === 'string' && !/[*?]/.test(x))));
}

/** The patches of the map pattern `p` merged into the existing map at `at` (`rel`: the path below a list element). */
function mergeMap(at: Place, p: JsonObject, steps: readonly SchemaStep[], w: Walk, rel: readonly string[] = []): R<Cel> {
  const out: Cel[] = [];
  const keys = Object.keys(p);
  for (const rawKey of keys) {
    const v = p[rawKey]!;
    if (DIRECTIVE.test(rawKey)) return notYet(`the strategic-merge directive ${rawKey}`);
    const a = parseAnchor(rawKey);
    if (rawKey.includes('{{')) {
      if (a) return notYet(`the variable in the anchored key ${JSON.stringify(rawKey)}`);
      const written = templatedKey(at, rawKey, v, steps, w, rel);
      if (refused(written)) return written;
      out.push(written);
      continue;
    }
    if (a) {
      // A condition on a scalar is a test of the object, deleted from the patch whole (deleteAnchors with
      // deleteScalar): the plain key beside it is the patch's own write, merged where the test held.
      const onlyTest = (a.modifier === 'condition' || a.modifier === 'global') && (v === null || typeof v !== 'object');
      if (keys.some((k) => k !== rawKey && (parseAnchor(k)?.key === a.key || (k === a.key && !onlyTest)))) return notYet(`${rawKey} beside another key for ${a.key}`);
      if (a.modifier === 'condition' || a.modifier === 'global') {
        if (w.decide) return notYet(`the condition ${rawKey} below an anchored list element`);
        if (isJsonObject(v) && Object.keys(v).some((k) => parseAnchor(k)?.modifier === 'addIfNotPresent')) return notYet(`the +() anchor inside the condition ${rawKey}`);
        const test = anchorConditionCel(fieldPlace(at, a.key).cel, v);
        if (refused(test)) return test;
        if (!conditionWritesNothing(v)) return notYet(`the condition ${rawKey} whose value Kyverno also merges into the object (${Array.isArray(v) ? 'a list that is not one anchored element' : 'it holds wildcards'})`);
        w.conditions.push(and([has(at, a.key), test])!);
        continue;
      }
      if (a.modifier !== 'addIfNotPresent') return notYet(`the anchor ${rawKey} (Kyverno writes it into the object as a plain key)`);
      if (hasConditions(v)) return notYet(`conditions inside the +() value of ${rawKey}`);
      const bad = rejected(w, steps, a.key, v);
      if (bad) return bad;
      const leaf = typeof v === 'string' ? leafValue(v, w.env) : undefined;
      if (leaf !== undefined && refused(leaf)) return leaf;
      const m = leaf?.substituted ? undefined : materialize(v, w, [...rel, a.key]);
      if (refused(m)) return m;
      if (m === undefined && !leaf?.substituted) continue;
      // A substituted null adds nothing (kyaml drops a null it would create).
      const write = m !== undefined ? one(patch('add', fieldPlace(at, a.key).ptr, m.cel)) : createdWrite(fieldPlace(at, a.key), leaf!.cel, w);
      // In an anchored list element the shared copy decides once; a renamed key is then written over the element's.
      const decision = w.decide ? w.decide(a.key, rel) : not(has(at, a.key));
      out.push(cond(and([decision, m?.live]), write));
      continue;
    }
    const child = fieldPlace(at, rawKey);
    const childSteps = [...steps, rawKey];
    if (v === null) {
      out.push(cond(has(at, rawKey), one(patch('remove', child.ptr))));
      continue;
    }
    if (isJsonObject(v)) {
      const inner = mergeMap(child, v, childSteps, w, [...rel, rawKey]);
      if (refused(inner)) return inner;
      if (hasConditions(v)) {
        // A condition below makes the whole patch depend on this place existing (it fails where it does not).
        w.conditions.push(has(at, rawKey));
        out.push(inner);
        continue;
      }
      const m = materialize(v, w, [...rel, rawKey]);
      if (refused(m)) return m;
      if (m === undefined) continue;
      const bad = rejected(w, steps, rawKey, v);
      if (bad) return bad;
      out.push(cond(has(at, rawKey), inner, cond(m.live, one(patch('add', child.ptr, m.cel)))));
      continue;
    }
    if (Array.isArray(v)) {
      // The shared copy's decisions reach no further than anchors: a list without any merges into each element.
      if (w.decide && hasAnchors(v)) return notYet(`the list ${rawKey} with anchors inside an anchored list element`);
      const l = mergeList(at, rawKey, v, childSteps, w);
      if (refused(l)) return l;
      out.push(l);
      continue;
    }
    const bad = rejected(w, steps, rawKey, v);
    if (bad) return bad;
    const leaf = leafValue(v, w.env);
    if (refused(leaf)) return leaf;
    out.push(leaf.substituted ? mergedSubstitution(child, has(at, rawKey), leaf.cel, w, listReplaced(w, childSteps)) : one(patch('add', child.ptr, leaf.cel)));
  }
  return concat(out);
}

/**
 * A key holding `{{ }}`: Kyverno substitutes it (it must come out a string), so the place is computed. Only
 * a scalar or a map value is written under such a key (the schema of a computed key is unknown).
 */
function templatedKey(at: Place, rawKey: string, v: JsonValue, steps: readonly SchemaStep[], w: Walk, rel: readonly string[]): R<Cel> {
  if (Array.isArray(v) || hasAnchors(v) || w.decide) return notYet(`the variable in the key ${JSON.stringify(rawKey)} above a list or an anchor`);
  const k = w.env.template(rawKey);
  if (refused(k)) return k;
  const key = `string(${k})`;
  const child: Place = { cel: `${at.cel}[${key}]`, ptr: [...at.ptr, '/', { cel: `jsonpatch.escapeKey(${key})` }] };
  const present = `${key} in ${at.cel}`;
  if (v === null) return cond(present, one(patch('remove', child.ptr)));
  if (isJsonObject(v)) {
    const inner = mergeMap(child, v, [...steps, rawKey], w, [...rel, rawKey]);
    if (refused(inner)) return inner;
    const m = materialize(v, w, [...rel, rawKey]);
    if (refused(m)) return m;
    if (m === undefined) return NONE;
    return cond(present, inner, cond(m.live, one(patch('add', child.ptr, m.cel))));
  }
  const leaf = leafValue(v, w.env);
  if (refused(leaf)) return leaf;
  return leaf.substituted ? mergedSubstitution(child, present, leaf.cel, w, false) : one(patch('add', child.ptr, leaf.cel));
}

/** Whether kyaml replaces a list at `steps` for every kind the rule matches (mergeList's `replaced`). */
function listReplaced(w: Walk, steps: readonly SchemaStep[]): boolean {
  const s = listStrategies(w.env.match, steps);
  return !s.mixed && (s.known === undefined || s.known.kind === 'replace');
}

const SUBSTITUTED_NOTE =
  'a `{{ }}` value of the strategic merge that may not be a scalar is merged as Kyverno merges what it substitutes: null removes the member, a map of scalars merges key by key (a null member removes its key), a list of scalars replaces a list kyaml replaces; the CEL fails on a map holding maps or lists and on other lists, which Kyverno merges too';

/** Whether the list `list` holds scalars only (`e`: a fresh name). */
function plainItems(list: Cel, e: string): Cel {
  return `!${list}.exists(${e}, ${e} == null || type(${e}) == map || type(${e}) == list)`;
}

/**
 * The patches writing the substituted `value` at `child`, an existing map's member (`present`: whether it is
 * there), as kyaml merges it: null removes it, a map merges into it (created where it is missing, not when
 * the map is empty), a list replaces it where kyaml replaces the lists there (`replacedList`), anything else
 * replaces it.
 */
function mergedSubstitution(child: Place, present: Cel, value: Cel, w: Walk, replacedList: boolean): Cel {
  w.env.note(SUBSTITUTED_NOTE);
  const [x, k] = [w.env.fresh('x'), w.env.fresh('k')];
  const member = renderPointer([...child.ptr, '/', { cel: `jsonpatch.escapeKey(${k})` }]);
  const isMap = and([present, `type(${child.cel}) == map`])!;
  const merge = concat([
    cond(isMap, NONE, cond(`size(${x}) > 0`, one(patch('add', child.ptr, '{}')))),
    `${x}.filter(${k}, ${x}[${k}] != null).map(${k}, JSONPatch{op: "add", path: ${member}, value: ${x}[${k}]})`,
    cond(isMap, `${x}.filter(${k}, ${x}[${k}] == null && ${k} in ${child.cel}).map(${k}, JSONPatch{op: "remove", path: ${member}})`),
  ]);
  const nested = `${x}.exists(${k}, type(${x}[${k}]) == map || type(${x}[${k}]) == list)`;
  const body = cond(
    `${x} == null`,
    cond(present, one(patch('remove', child.ptr))),
    cond(
      `type(${x}) == map`,
      cond(nested, translationLimit('a substituted map holding a map or a list, which Kyverno merges into the resource, is not translated'), merge),
      cond(
        `type(${x}) == list`,
        replacedList
          ? cond(plainItems(x, k), one(patch('add', child.ptr, x)), translationLimit('a substituted list holding null, a map or a list, which Kyverno cleans up, is not translated'))
          : translationLimit('a substituted list, which Kyverno merges into the resource by its list strategy, is not translated'),
        one(patch('add', child.ptr, x)),
      ),
    ),
  );
  return `[dyn(${value})].map(${x}, ${body})[0]`;
}

/**
 * What a substituted `value` creates where the resource has nothing: the value for a scalar, a non-empty map
 * or a list without null members, maps or lists (Kyverno creates those as they are); the CEL fails on the
 * others (kyaml prunes their empty maps and null members). As a map's `member`, an optional: none for null
 * (a null member is not created); as a `value` (a list item, the whole value at a place), null fails too.
 */
function createdSubstitution(value: Cel, w: Walk, as: 'member' | 'value'): Cel {
  const x = w.env.fresh('x');
  const checked = createdChecked(x, w);
  if (as === 'value') return `[dyn(${value})].map(${x}, ${x} == null ? ${translationLimit('a substituted null where the resource has nothing, which Kyverno drops, is not translated')} : ${paren(checked)})[0]`;
  return `[dyn(${value})].map(${x}, ${x} == null ? optional.none() : optional.of(${paren(checked)}))[0]`;
}

/** The patch creating `place` with the substituted `value` (createdSubstitution's checks), none for null. */
function createdWrite(place: Place, value: Cel, w: Walk): Cel {
  const x = w.env.fresh('x');
  return `[dyn(${value})].map(${x}, ${x} == null ? [] : ${one(patch('add', place.ptr, paren(createdChecked(x, w))))})[0]`;
}

/** The substituted value `x` where kyaml creates it as it is, or a failure (see createdSubstitution). */
function createdChecked(x: Cel, w: Walk): Cel {
  w.env.note(SUBSTITUTED_NOTE);
  const k = w.env.fresh('k');
  const plain = (c: Cel): Cel => plainItems(c, k);
  const plainMap = `size(${x}) > 0 && !${x}.exists(${k}, ${x}[${k}] == null || type(${x}[${k}]) == map || type(${x}[${k}]) == list)`;
  return cond(
    `type(${x}) == map`,
    cond(plainMap, x, translationLimit('a substituted map created where the resource has none, empty or holding null, a map or a list, is not translated')),
    cond(`type(${x}) == list`, cond(plain(x), x, translationLimit('a substituted list created where the resource has none, holding null, a map or a list, is not translated')), x),
  );
}

/** The list of the patch at `at.key`, merged as kyaml does for the object's kind. */
function mergeList(at: Place, key: string, list: readonly JsonValue[], steps: readonly SchemaStep[], w: Walk): R<Cel> {
  // A list of one element holding global anchors is a condition on the whole patch, whatever the list's strategy.
  const only = list.length === 1 && isJsonObject(list[0]) ? (list[0] as JsonObject) : undefined;
  if (only && hasGlobals(only)) return anchoredElement(at, key, only, 'name', steps, w);
  const s = listStrategies(w.env.match, steps);
  const where = steps.filter((x) => x !== '[]').join('.');
  if (s.mixed) return notYet(`the list at ${where}, which kyaml merges differently for the kinds this rule matches`);
  const replaced = (): R<Cel> => {
    const anchoredElements = list.filter((e) => isJsonObject(e) && hasAnchors(e));
    if (anchoredElements.length === 1 && list.length === 1) return anchoredElement(at, key, anchoredElements[0] as JsonObject, 'name', steps, w, true);
    if (anchoredElements.length > 0) return notYet(`anchors in the list at ${where}, which Kyverno replaces`);
    const m = materialize(list as JsonValue[], w, []);
    if (refused(m)) return m;
    const bad = rejected(w, steps.slice(0, -1), key, list as JsonValue[]);
    if (bad) return bad;
    return m === undefined ? NONE : one(patch('add', fieldPlace(at, key).ptr, m.cel));
  };
  const known = s.known;
  if (!known || known.kind === 'replace') return replaced();
  if (known.kind === 'set') return notYet(`the list at ${where}, which kyaml merges as a set of values`);
  const keyed = keyedList(at, key, list, known.kind === 'keyed' ? [known.key] : known.keys, steps, w);
  if (refused(keyed)) return keyed;
  if (!s.others) return keyed;
  // Kinds kyaml does not know (a CRD with the same kind name) get the patch's list instead.
  const other = replaced();
  if (refused(other)) return other;
  return cond(objectKindTest(s.knownKinds), keyed, other);
}

/** The place of a list's element chosen by a predicate: existence, index, and the value. */
function finder(list: Cel, item: string, index: string, predicate: Cel): { exists: Cel; index: Cel; value: Cel } {
  const idx = `${list}.transformList(${index}, ${item}, ${predicate}, ${index})[0]`;
  return { exists: `${list}.exists(${item}, ${predicate})`, index: idx, value: `${list}[${idx}]` };
}

const MAX_UPSERTS = 4;

/**
 * A list merged by `mergeKeys` (one key, or several: multi-key-list.ts): plain elements upserted to the front,
 * or one anchored element's selection.
 */
function keyedList(at: Place, key: string, list: readonly JsonValue[], mergeKeys: readonly string[], steps: readonly SchemaStep[], w: Walk): R<Cel> {
  const where = steps.filter((x) => x !== '[]').join('.');
  const place = fieldPlace(at, key);
  const elements = list.filter(isJsonObject);
  if (elements.length !== list.length) return notYet(`the list at ${where}, whose elements are not all maps`);
  const anchored = elements.filter(hasAnchors);
  if (anchored.length > 0) {
    if (anchored.length > 1 || elements.length > 1) return notYet(`the list at ${where} with several elements beside an anchored one (Kyverno's cleanup deletes by shifting indices)`);
    if (mergeKeys.length > 1) return notYet(`condition anchors in the list at ${where}, which kyaml merges by the keys ${mergeKeys.join(', ')}`);
    return anchoredElement(at, key, anchored[0]!, mergeKeys[0]!, steps, w);
  }
  const missing = materialize(list as JsonValue[], w, []);
  if (refused(missing)) return missing;
  const created = missing === undefined ? NONE : one(patch('add', place.ptr, missing.cel));
  if (elements.length === 0) return cond(has(at, key), NONE, created);
  if (elements.length > MAX_UPSERTS) return notYet(`more than ${MAX_UPSERTS} elements in the keyed list at ${where}`);
  const chosen = elementChoices(elements, mergeKeys, where, w);
  if (refused(chosen)) return chosen;
  const L = place.cel;
  const c = w.env.fresh('c');
  const i = w.env.fresh('i');
  const found = chosen.predicates(c).map((p) => finder(L, c, i, p));
  const steps2 = [...steps, '[]'];
  // Elements are placed from the last to the first, each moved (or added) to the front: the patch's order
  // ends up first. Where element j is found when its turn comes: its index, plus one for every later element
  // that was added or that sat after it (those now stand in front of it).
  const placing: Cel[] = [];
  for (let j = elements.length - 1; j >= 0; j--) {
    const shift = found.slice(j + 1).map((f) => cond(f.exists, cond(`${f.index} > ${found[j]!.index}`, '1', '0'), '1'));
    const current = shift.length === 0 ? found[j]!.index : `${paren(found[j]!.index)} + ${shift.map(paren).join(' + ')}`;
    const add = materialize(elements[j]!, w, []);
    if (refused(add)) return add;
    const moved = one(patch('move', [...place.ptr, '/0'], undefined, [...place.ptr, '/', { cel: `string(${current})` }]));
    placing.push(cond(found[j]!.exists, moved, add === undefined ? NONE : one(patch('add', [...place.ptr, '/0'], add.cel))));
  }
  const merging: Cel[] = [];
  for (const [j, e] of elements.entries()) {
    const rest: JsonObject = {};
    // Another merge key is written: the counterpart may lack it (multi-key-list.ts elementPredicate).
    for (const [k, x] of Object.entries(e)) if (k !== mergeKeys[0]) rest[k] = x;
    const inner = mergeMap({ cel: found[j]!.value, ptr: [...place.ptr, `/${j}`] }, rest, steps2, w);
    if (refused(inner)) return inner;
    merging.push(cond(found[j]!.exists, inner));
  }
  const merged = concat([...placing, ...merging]);
  const guarded = chosen.guard === undefined ? merged : cond(chosen.guard(L), merged, translationLimit(multiKeyLimit(where, mergeKeys)));
  return cond(has(at, key), guarded, created);
}

/** How the patch elements of a keyed list find their resource counterparts (elementChoices). */
interface ElementChoices {
  /** Per element, the test that the resource element `c` is its counterpart. */
  predicates(c: Cel): Cel[];
  /** The condition on the resource list under which these choices are kyaml's, when not always. */
  guard: ((list: Cel) => Cel) | undefined;
}

/**
 * By the merge key's value, or by the keys each element gives of several (multi-key-list.ts, with the guard
 * on the resource list that makes that kyaml's merge).
 */
function elementChoices(elements: readonly JsonObject[], mergeKeys: readonly string[], where: string, w: Walk): R<ElementChoices> {
  if (mergeKeys.length > 1) {
    const keyed = multiKeyElements(elements, mergeKeys, where);
    if (refused(keyed)) return keyed;
    return {
      predicates: (c) => keyed.elements.map((e) => elementPredicate(c, e)),
      guard: (list) => multiKeyGuard(list, mergeKeys, keyed, w.env.fresh),
    };
  }
  const mergeKey = mergeKeys[0]!;
  const keys: Cel[] = [];
  for (const e of elements) {
    if (!(mergeKey in e) || e[mergeKey] === null || isJsonObject(e[mergeKey]) || Array.isArray(e[mergeKey])) return notYet(`an element of the list at ${where} without its merge key ${mergeKey} (kyaml appends it)`);
    const k = leafCel(e[mergeKey]!, w.env);
    if (refused(k)) return k;
    keys.push(k);
  }
  if (new Set(keys).size !== keys.length) return notYet(`two elements with the same ${mergeKey} in the list at ${where}`);
  return {
    predicates: (c) => keys.map((k) => and([has({ cel: c, ptr: [] }, mergeKey), `${select(c, mergeKey)} == ${paren(k)}`])!),
    guard: undefined,
  };
}

/**
 * One list element with condition anchors (kyverno.md §1.8 (a) 2): the resource elements whose conditions
 * hold (and that have a `name`) are re-emitted as plain patch elements, so they come first, in resource
 * order, each merged with the element's other keys. `+(k)` keys are decided once, by the first resource
 * element (top-level keys) or the first element passing the conditions (keys below), because upstream
 * evaluates one shared copy of the element. A global anchor makes the element a condition on the whole patch.
 */
function anchoredElement(at: Place, key: string, e: JsonObject, mergeKey: string, steps: readonly SchemaStep[], w: Walk, replace = false): R<Cel> {
  const where = steps.filter((x) => x !== '[]').join('.');
  const listPlace = fieldPlace(at, key);
  const through = writeThroughElement(e);
  if (through !== undefined) {
    if (refused(through)) return through;
    if (!replace && mergeKey !== 'name') return notYet(`condition anchors in the list at ${where}, which is merged by ${mergeKey}: Kyverno re-emits the matched elements by name`);
    let nameSubstitutes: Cel | undefined;
    if (through.name?.includes('{{')) {
      const t = w.env.template(through.name);
      if (refused(t)) return t;
      nameSubstitutes = `[${t}].size() == 1`;
    }
    const env = { fresh: w.env.fresh, ...(nameSubstitutes ? { nameSubstitutes } : {}) };
    const r = replace ? writeThroughReplaced(listPlace, through, env, '1') : writeThroughPatches(listPlace, through, env, '1');
    return refused(r) ? r : cond(has(at, key), r);
  }
  const L = listPlace.cel;
  const c = w.env.fresh('c');
  const item: Place = { cel: c, ptr: [] };
  for (const rawKey of Object.keys(e)) if (rawKey.includes('{{')) return notYet(`the variable in the key ${JSON.stringify(rawKey)}`);
  const v = elementVerdict(item, e, w.env, where, hasGlobals(e));
  if (refused(v)) return v;
  const nested = Object.entries(e).some(([k, x]) => !parseAnchor(k) && hasConditions(x));
  if (hasGlobals(e)) {
    const stray = Object.entries(e).find(([k, x]) => !isCondition(k) && !(isJsonObject(x) && hasConditions(x)) && containsList(x));
    if (stray) return notYet(`the list below ${stray[0]} beside a global anchor in an element of the list at ${where}`);
    // processListOfMaps: the patch is skipped when no element passes every condition while one fails a
    // global one (walkMap checks a map's global anchors, then its conditions, then its plain keys in order:
    // the first failure decides the error); an absent list is walked as nothing, an empty one never is. The
    // element itself, anchored, is deleted by the cleanup whatever it holds.
    const absent = absentOutcome(e);
    w.conditions.push(cond(has(at, key), or([`${L}.exists(${c}, ${v.ok})`, `!${L}.exists(${c}, ${v.global})`]), absent === 'global' ? 'false' : 'true'));
    return NONE;
  }
  const body: JsonObject = {};
  for (const [rawKey, x] of Object.entries(e)) {
    const a = parseAnchor(rawKey);
    if (a && (a.modifier === 'condition' || a.modifier === 'global')) continue;
    if (a && hasConditions(x)) return notYet(`a condition below ${rawKey} in an element of the list at ${where}`);
    // The shared copy's +() keys below the top are decided by the first element whose walk reaches them.
    if (nested && containsAddIfNotPresent(x)) return notYet(`the +() anchor below ${rawKey} beside conditions below the top of an element of the list at ${where}`);
    if (!a && hasConditions(x)) {
      // The re-emitted copy loses the conditions (deleteAnchors): what is left of the map is merged.
      const s = stripConditions(x as JsonObject, where);
      if (refused(s)) return s;
      if (s !== undefined) body[rawKey] = s;
      continue;
    }
    body[rawKey] = x;
  }
  if (mergeKey !== 'name') return notYet(`condition anchors in the list at ${where}, which is merged by ${mergeKey}: Kyverno re-emits the matched elements by name`);
  const passes = v.top;
  const selected = and([v.ok, has(item, 'name'), `${c}.name != null`])!;
  // The decisions of the shared copy: top-level +(k) by the first element, deeper ones by the first element
  // that passes the conditions (walkMap recurses into plain keys only after the conditions held).
  const decide = (k: string, rel: readonly string[]): Cel => {
    if (rel.length === 0) return not(has({ cel: `${L}[0]`, ptr: [] }, k));
    const first = `${L}.filter(${c}, ${passes})[0]`;
    let at2: Place = { cel: first, ptr: [] };
    const tests: Cel[] = [];
    for (const seg of [...rel, k]) {
      tests.push(has(at2, seg));
      at2 = fieldPlace(at2, seg);
    }
    return not(and(tests)!);
  };
  const k = w.env.fresh('k');
  const i = w.env.fresh('i');
  const inner: Walk = { env: w.env, conditions: [], decide };
  if (replace) {
    // A list kyaml replaces becomes the re-emitted copies alone: the pattern's content and the element's name.
    const made = materialize(body, inner, []);
    if (refused(made)) return made;
    const content = made === undefined || made.cel === '{}' ? '' : `, ${made.cel.slice(1, -1)}`;
    const copies = `${L}.filter(${c}, ${selected}).map(${c}, {"name": ${c}.name${content}})`;
    return cond(and([has(at, key), `${L}.exists(${c}, ${selected})`, liveOf(body, decide, [])]), one(patch('add', listPlace.ptr, copies)));
  }
  const elementPlace = indexPlace(listPlace, k, `${L}[${i}]`);
  const perElement = mergeMap(elementPlace, body, [...steps, '[]'], inner);
  if (refused(perElement)) return perElement;
  if (inner.conditions.length > 0) return notYet(`conditions below the anchored element of the list at ${where}`);
  // The re-emitted copy must hold something once its +() anchors are decided, or nothing is merged (and nothing moves).
  const live = liveOf(body, decide, []);
  const indices = `${L}.transformList(${i}, ${c}, ${selected}, ${i})`;
  const moves = `${indices}.transformList(${k}, ${i}, ${k} != ${i}, ${patch('move', [...listPlace.ptr, '/', { cel: `string(${k})` }], undefined, [...listPlace.ptr, '/', { cel: `string(${i})` }])})`;
  const edits = perElement === NONE ? NONE : `${indices}.transformList(${k}, ${i}, true, ${perElement}).flatten()`;
  // No selected element: nothing is re-emitted (and the decisions, which read the first elements, are moot).
  return cond(and([has(at, key), `${L}.exists(${c}, ${selected})`, live]), concat([moves, edits]));
}

type Outcome = 'ok' | 'condition' | 'global';

/** How one resource element fares against an anchored pattern element (walkMap): passes, or which error. */
interface Verdict {
  /** Every condition and global anchor holds, at every depth. */
  ok: Cel;
  /** The walk fails with a GlobalConditionError (the first failure met is a global anchor's). */
  global: Cel;
  /** The anchors at the element's top hold. */
  top: Cel;
}

function isCondition(rawKey: string): boolean {
  const m = parseAnchor(rawKey)?.modifier;
  return m === 'condition' || m === 'global';
}

/** hasAnchors(…, anchor.IsGlobal): a global anchor anywhere in the value. */
function hasGlobals(v: JsonValue): boolean {
  if (Array.isArray(v)) return v.some(hasGlobals);
  if (!isJsonObject(v)) return false;
  return Object.entries(v).some(([k, x]) => parseAnchor(k)?.modifier === 'global' || hasGlobals(x));
}

function containsList(v: JsonValue): boolean {
  return Array.isArray(v) || (isJsonObject(v) && Object.values(v).some(containsList));
}

function containsAddIfNotPresent(v: JsonValue): boolean {
  if (Array.isArray(v)) return v.some(containsAddIfNotPresent);
  if (!isJsonObject(v)) return false;
  return Object.entries(v).some(([k, x]) => parseAnchor(k)?.modifier === 'addIfNotPresent' || containsAddIfNotPresent(x));
}

/** The walk of a pattern map against no resource value: its anchors fail, globals first, then its plain keys in order. */
function absentOutcome(p: JsonObject): Outcome {
  const mods = Object.keys(p).map((k) => parseAnchor(k)?.modifier);
  if (mods.includes('global')) return 'global';
  if (mods.includes('condition')) return 'condition';
  for (const [k, x] of Object.entries(p)) {
    if (parseAnchor(k) || !isJsonObject(x) || !hasConditions(x)) continue;
    const o = absentOutcome(x);
    if (o !== 'ok') return o;
  }
  return 'ok';
}

/** The test of one condition anchor `(key): v` of the map at `at`. */
function conditionTest(at: Place, key: string, v: JsonValue, env: SmpEnv): R<Cel> {
  if (typeof v === 'string' && v.includes('{{')) {
    // A templated pattern (`(name): "{{ element.name }}"`) is compared as the text it substitutes to: exact
    // for values without wildcard or operator characters that are not two spellings of one duration or
    // quantity, which names of containers and volumes (DNS labels) never are.
    const t = env.template(v);
    if (refused(t)) return t;
    return `${paren(fieldPlace(at, key).cel)} == ${paren(t)}`;
  }
  return anchorConditionCel(fieldPlace(at, key).cel, v);
}

/**
 * The walk of the pattern map `p` against the resource map at `at` (strategicPreprocessing.go walkMap):
 * global anchors, then conditions (validateConditions), then the plain keys holding conditions, in order,
 * each against the resource's value or nothing. `+()` keys hold no conditions (the caller refuses them).
 */
function elementVerdict(at: Place, p: JsonObject, env: SmpEnv, where: string, deleted: boolean): R<Verdict> {
  const globals: Cel[] = [];
  const conds: Cel[] = [];
  const kids: { ok: Cel; global: Cel }[] = [];
  for (const [rawKey, x] of Object.entries(p)) {
    const a = parseAnchor(rawKey);
    if (a && (a.modifier === 'condition' || a.modifier === 'global')) {
      const test = conditionTest(at, a.key, x, env);
      if (refused(test)) return test;
      // An element with a global anchor is deleted whole by the cleanup; another one is re-emitted stripped.
      if (!deleted && !conditionWritesNothing(x)) return notYet(`the condition ${rawKey} whose map value Kyverno also merges into the object`);
      (a.modifier === 'global' ? globals : conds).push(and([has(at, a.key), test])!);
      continue;
    }
    if (a && a.modifier !== 'addIfNotPresent') return notYet(`the anchor ${rawKey} in the list at ${where}`);
    if (!hasConditions(x)) continue;
    if (a) return notYet(`a condition below ${rawKey} in an element of the list at ${where}`);
    if (!isJsonObject(x) || containsList(x)) return notYet(`a list holding conditions below ${rawKey} in an element of the list at ${where}`);
    const inner = elementVerdict(fieldPlace(at, rawKey), x, env, where, deleted);
    if (refused(inner)) return inner;
    const absent = absentOutcome(x);
    kids.push({
      ok: cond(has(at, rawKey), inner.ok, absent === 'ok' ? 'true' : 'false'),
      global: cond(has(at, rawKey), inner.global, absent === 'global' ? 'true' : 'false'),
    });
  }
  const top = and([...globals, ...conds]) ?? 'true';
  const ok = and([top, ...kids.map((k) => k.ok)]) ?? 'true';
  // The first plain key whose walk fails decides the error; a condition error stops the walk.
  let rest = 'false';
  for (const k of [...kids].reverse()) rest = or([k.global, and([k.ok, rest]) ?? 'true']);
  const global = or([not(and(globals) ?? 'true'), and([and(conds) ?? 'true', rest]) ?? 'true']);
  return { ok, global, top };
}

/**
 * The copy Kyverno re-emits of a pattern map below an anchored element (deleteAnchors): conditions dropped
 * (their values are checked to write nothing), maps left empty deleted; undefined when nothing is left.
 */
function stripConditions(p: JsonObject, where: string): R<JsonObject | undefined> {
  const out: JsonObject = {};
  for (const [rawKey, x] of Object.entries(p)) {
    if (isCondition(rawKey)) continue;
    if (isJsonObject(x)) {
      const s = stripConditions(x, where);
      if (refused(s)) return s;
      if (s !== undefined) out[rawKey] = s;
      continue;
    }
    if (Array.isArray(x) && hasAnchors(x)) return notYet(`a list holding anchors below ${rawKey} in an element of the list at ${where}`);
    out[rawKey] = x;
  }
  return Object.keys(out).length === 0 ? undefined : out;
}

/** Whether the copy of an anchored element keeps anything once its +() keys are decided (deleteAnchors). */
function liveOf(p: JsonObject, decide: (key: string, rel: readonly string[]) => Cel, rel: readonly string[]): Cel {
  const parts: Cel[] = [];
  for (const [rawKey, v] of Object.entries(p)) {
    const a = parseAnchor(rawKey);
    const key = a ? a.key : rawKey;
    const here = a?.modifier === 'addIfNotPresent' ? decide(key, rel) : 'true';
    if (isJsonObject(v)) parts.push(and([here, liveOf(v, decide, [...rel, key])]) ?? 'true');
    else parts.push(here);
  }
  return or(parts);
}

/** The patches and the applying condition of a whole strategic-merge patch at the object root. */
export function smpPatches(pattern: JsonValue, env: SmpEnv): R<SmpPatches> {
  if (!isJsonObject(pattern)) return notYet('a strategic merge patch that is not a map');
  const w: Walk = { env, conditions: [] };
  const patches = mergeMap(ROOT, pattern, [], w);
  if (refused(patches)) return patches;
  return { patches, condition: and(w.conditions) };
}

export { isPlainPattern };

/**
 * The patches of a list element's pattern merged into the element at `at`, for a foreach that selects that
 * one element: its `+(k)` keys below the top are decided by the element itself (the first, and only, element
 * passing the selection). Top-level `+(k)` and conditions are the caller's to refuse.
 */
export function smpElementPatches(body: JsonObject, at: Place, steps: readonly SchemaStep[], env: SmpEnv): R<SmpPatches> {
  const decide = (k: string, rel: readonly string[]): Cel => {
    let p: Place = { cel: at.cel, ptr: [] };
    const tests: Cel[] = [];
    for (const seg of [...rel, k]) {
      tests.push(has(p, seg));
      p = fieldPlace(p, seg);
    }
    return not(and(tests)!);
  };
  const w: Walk = { env, conditions: [], decide };
  const patches = mergeMap(at, body, steps, w);
  if (refused(patches)) return patches;
  if (w.conditions.length > 0) return notYet('conditions inside a foreach list element');
  return { patches, condition: undefined };
}

/** Whether the element's copy keeps anything once its +() keys are decided by the element `element` itself. */
export function elementLive(body: JsonObject, element: Cel): Cel {
  return liveOf(
    body,
    (k, rel) => {
      let p: Place = { cel: element, ptr: [] };
      const tests: Cel[] = [];
      for (const seg of [...rel, k]) {
        tests.push(has(p, seg));
        p = fieldPlace(p, seg);
      }
      return not(and(tests)!);
    },
    [],
  );
}

/**
 * Whether the element's copy still holds something once every `+(k)` key of it is present in the element
 * (after it was merged once): a plain leaf is merged again at every turn, a `+(k)` key never.
 */
export function liveOnceMerged(body: JsonObject): boolean {
  return liveOf(body, () => 'false', []) === 'true';
}
