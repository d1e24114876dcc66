/**
 * A patch list that kyaml merges by several keys (`x-kubernetes-list-map-keys`: a container's `ports` by
 * containerPort and protocol, a Service's by port and protocol, topologySpreadConstraints by topologyKey and
 * whenUnsatisfiable), reduced to the one-key merge smp.ts keyedList writes: each patch element merged into
 * the first resource element that has the element's key fields with the same text, or added; patch elements
 * first, in patch order, then the resource's others.
 *
 * kyaml's bookkeeping for such lists (walk/associative_sequence.go, reproduced in src/merge/smp/merge-full.ts
 * setAssociativeElements) is that merge only under conditions: it looks elements up by the key fields each
 * element *has* (a port without `protocol` is looked up by containerPort alone), then re-appends the
 * resource's elements by that one field (appendListNode), which collapses elements sharing it and drops
 * everything beside an element lacking it. The one-key merge is kyaml's when
 * - (checked here) every patch element is a map giving the first key a literal scalar, and any other key a
 *   literal scalar too or nothing;
 * - and (checked by the CEL, multiKeyGuard) either every element of both lists gives every key, no two alike
 *   in either list; or no two patch elements give the same first key, every resource element has the first
 *   key, as a scalar with a text of its own, its other keys are scalars or absent (null, "" and empty
 *   collections count as absent), and a resource element sharing a patch element's first key has each other
 *   key the patch element gives with the same text, or lacks it (the patch element is then merged into it,
 *   as kyaml ends up doing).
 * Objects as the API server stores them (protocol and whenUnsatisfiable defaulted) pass the guard unless a
 * patch element lacks some key and the object lists two elements sharing a first key (53/TCP beside 53/UDP),
 * or one sharing a patch element's first key with another value for a key that patch element gives; an
 * object that fails the guard makes the CEL fail with the reason.
 * Key texts are compared as kyaml compares them: as text (`8080` and `"8080"` are one key).
 */
import type { JsonObject, JsonValue } from '../../../ir/json.js';
import { notYet, type Refusal } from '../../generate-report.js';
import { celLiteral, hasField, select } from '../emit-cel.js';
import { and, celString, or, paren, type Cel } from './cel-patch.js';

/** A patch element's key fields: the ones it gives (the first key first), with their text. */
export interface ElementKeys {
  readonly given: readonly { readonly key: string; readonly text: string }[];
}

/** The patch list's elements' keys, and which of the guard's two cases (see the header) it can take. */
export interface PatchKeys {
  readonly elements: readonly ElementKeys[];
  /** No two elements give the same first key: the case of elements found by the keys they have. */
  readonly firstDistinct: boolean;
  /** Every element gives every key (no two alike): the case of a resource list giving them all too. */
  readonly complete: boolean;
}

/** The text kyaml reads for a scalar of the patch (its YAML text), or undefined for anything but a usable key. */
function keyText(v: JsonValue | undefined): string | undefined {
  if (typeof v === 'string') return v === '' || v.includes('{{') ? undefined : v;
  if (typeof v === 'number') return Number.isFinite(v) && celLiteral(v) !== undefined ? String(v) : undefined;
  if (typeof v === 'boolean') return String(v);
  return undefined;
}

/**
 * The key fields of each patch element, or why the one-key merge is not kyaml's for this patch list (see the
 * header). `where` names the list.
 */
export function multiKeyElements(elements: readonly JsonObject[], keys: readonly string[], where: string): PatchKeys | Refusal {
  const first = keys[0]!;
  const firsts = new Set<string>();
  const tuples = new Set<string>();
  let complete = true;
  const out: ElementKeys[] = [];
  for (const e of elements) {
    if (Object.keys(e).some((k) => k.startsWith('$'))) return notYet(`a directive in an element of the list at ${where}, which kyaml merges by the keys ${keys.join(', ')}`);
    const given: { key: string; text: string }[] = [];
    for (const key of keys) {
      const v = e[key];
      // A null or "" would be a key kyaml reads as absent but a value the merge writes: refused below.
      if (v === undefined) {
        if (key === first) return notYet(`an element of the list at ${where} without its first merge key ${first} (kyaml then merges by the keys it has)`);
        complete = false;
        continue;
      }
      const text = keyText(v);
      if (text === undefined) return notYet(`the value ${JSON.stringify(v)} of the merge key ${key} in the list at ${where}`);
      given.push({ key, text });
    }
    firsts.add(given[0]!.text);
    tuples.add(JSON.stringify(given.map((g) => g.text)));
    out.push({ given });
  }
  const firstDistinct = firsts.size === out.length;
  complete &&= tuples.size === out.length;
  if (!firstDistinct && !complete) return notYet(`two elements with the same ${first} in the list at ${where}, not both giving every key of ${keys.join(', ')}`);
  return { elements: out, firstDistinct, complete };
}

/** `x`'s text equals `text`, for a resource value that may be any JSON value (false for null and collections). */
function textIs(x: Cel, text: string): Cel {
  return `${x} != null && type(${x}) != map && type(${x}) != list && string(${x}) == ${celString(text)}`;
}

/**
 * The predicate choosing the resource element `c` a patch element merges into: its first key, by text, and
 * every other key it gives, by text or absent from `c`. kyaml does not find such an element by the patch
 * element's keys; it creates the patch element, then finds it by the resource element's own keys and puts
 * their merge in its place: the same list.
 */
export function elementPredicate(c: Cel, element: ElementKeys): Cel {
  const [first, ...others] = element.given;
  return and([hasField(c, first!.key), paren(textIs(select(c, first!.key), first!.text)), ...others.map((g) => paren(givenOrAbsent(c, g)))])!;
}

/** The resource element `x` has `given`'s key with its text, or lacks that key as kyaml reads keys. */
function givenOrAbsent(x: Cel, given: { readonly key: string; readonly text: string }): Cel {
  const v = select(x, given.key);
  return or([`!${hasField(x, given.key)}`, paren(absentKey(v)), paren(textIs(v, given.text))]);
}

/** A resource key field kyaml reads as a usable key: a scalar whose text is not empty. */
function usableKey(x: Cel): Cel {
  return `${x} != null && type(${x}) != map && type(${x}) != list && string(${x}) != ""`;
}

/** A resource key field kyaml reads as absent: null, "", or an empty map or list. */
function absentKey(x: Cel): Cel {
  return `${x} == null || ((type(${x}) == map || type(${x}) == list) && size(${x}) == 0) || (type(${x}) == string && ${x} == "")`;
}

/**
 * The CEL condition on the resource list `list` under which the one-key merge is kyaml's (see the header);
 * `fresh` makes variable names.
 */
export function multiKeyGuard(list: Cel, keys: readonly string[], patch: PatchKeys, fresh: (base: string) => string): Cel {
  return or([patch.complete ? completeGuard(list, keys, fresh) : 'false', patch.firstDistinct ? firstKeyGuard(list, keys, patch.elements, fresh) : 'false']);
}

/**
 * Every resource element gives every key, no two alike: with the patch elements doing the same, kyaml finds
 * each element by all its keys and never re-appends by one of them (appendListNode skips several keys).
 */
function completeGuard(list: Cel, keys: readonly string[], fresh: (base: string) => string): Cel {
  const [d, o] = [fresh('d'), fresh('o')];
  const usable = (x: Cel): Cel => and([`type(${x}) == map`, ...keys.map((k) => paren(and([hasField(x, k), paren(usableKey(select(x, k)))])!))])!;
  const same = and(keys.map((k) => `string(${select(o, k)}) == string(${select(d, k)})`))!;
  return `${list}.all(${d}, ${paren(usable(d))} && ${list}.exists_one(${o}, ${paren(usable(o))} && ${paren(same)}))`;
}

/**
 * Every resource element gives the first key, each with its own text, and its other keys as scalars or not
 * at all; one sharing a patch element's first key agrees with it on the others the patch element gives, or
 * lacks them. kyaml's re-appending by the first key (appendListNode, for the elements found by it alone) then
 * puts each element back in its own place.
 */
function firstKeyGuard(list: Cel, keys: readonly string[], elements: readonly ElementKeys[], fresh: (base: string) => string): Cel {
  const first = keys[0]!;
  const [d, o] = [fresh('d'), fresh('o')];
  const firstOf = (x: Cel): Cel => select(x, first);
  const shape = and([
    `type(${d}) == map`,
    hasField(d, first),
    paren(usableKey(firstOf(d))),
    ...keys.slice(1).map((k) => paren(or([`!${hasField(d, k)}`, paren(absentKey(select(d, k))), paren(usableKey(select(d, k)))]))),
  ])!;
  const distinct = `${list}.exists_one(${o}, type(${o}) == map && ${hasField(o, first)} && ${paren(usableKey(firstOf(o)))} && string(${firstOf(o)}) == string(${firstOf(d)}))`;
  const agreeing = elements
    .filter((e) => e.given.length > 1)
    .map((e) => {
      const [k0, ...others] = e.given;
      return or([`!(${textIs(firstOf(d), k0!.text)})`, paren(and(others.map((g) => paren(givenOrAbsent(d, g))))!)]);
    });
  return `${list}.all(${d}, ${and([shape, distinct, ...agreeing.map(paren)])})`;
}

/** Why the CEL fails on a resource list the guard refuses. */
export function multiKeyLimit(where: string, keys: readonly string[]): string {
  return `the list at ${where}, which kyaml merges by the keys ${keys.join(', ')}, has an element without a distinct ${keys[0]} or with a key that is not a scalar, or one sharing a patch element's ${keys[0]} but not its other keys: kyaml's merge of it is not translated`;
}
