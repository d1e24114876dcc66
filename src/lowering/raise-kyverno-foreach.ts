/**
 * A Kyverno `foreach` over a list of the object whose every iteration patches its own element, raised to
 * the path operations the loop means on the whole list (reference kyverno.md §1.12; upstream
 * pkg/engine/handlers/mutation/common.go mutateElements and the strategic merge of §1.8). Two shapes:
 *
 * 1. `list: request.object.<F>` with a strategic merge `{<F>: [{(name): "{{element.name}}", ...}]}`, order
 *    Descending (the default for a strategic merge), on a list the schema of every matched kind merges by
 *    `name` and whose elements always carry a name (containers, volumes...) → the rest of the element
 *    written at `<F>[name: *]`. Each iteration's anchor condition selects the element itself, its copy
 *    (named after it) is merged into it, and kyaml's Prepend moves it to the front: iterating from the last
 *    element to the first puts every element back in its place, so the list keeps its order and each
 *    element gets the patch. That needs every copy to survive the anchor cleanup, which drops an empty one
 *    (the element then stays where it is and the list comes out reordered): the patch must write some leaf
 *    unconditionally. A `+()` below the element is decided on that element (conditions are checked before
 *    the walk goes down), so it is raised per element (`!absent` below the glob). Not raised: order
 *    Ascending (it reverses the list), a condition below the element or a precondition on it (an element
 *    left out stays behind the patched ones), a `+()` at the element's top (the shared pattern copy resolves
 *    it on the list's first element), variables other than the element's name, and the plain `name:` form
 *    with any anchor (every resource element then passes the missing condition and gets a copy).
 *    The condition `(name): X` matches the element named X only: container and volume names are DNS labels,
 *    which hold no wildcard or operator; two names Kyverno's pattern reads as equal numbers, durations or
 *    quantities ("1h" and "60m", "1-2" and "1") would be patched together, which this raising does not model.
 *
 * 2. `list: request.object.<F>` with a JSON patch whose every step is `add` or `remove` at
 *    `/<F>/{{elementIndex}}/<fields>` with a constant value, optionally under the element precondition
 *    `{{ element.<k> || '' }} Equals <plain string>` (or `{{ element.name }}` on a list whose elements always
 *    have a name) → `set`/`remove` at `<F>[k == "v"].<fields>` (without a precondition, `<F>[key: *]`). No step changes the list's length, so the original indices stay right in
 *    any order, and each iteration writes inside its own element: the loop writes every (selected) element
 *    once. `add` creates missing maps below the element and replaces what is there, as `set` does. The
 *    precondition is the keyed selection: a missing or falsy field reads as `''`, which no plain string
 *    equals, and a non-string never equals one; Gatekeeper compares keys type-sensitively too.
 *
 * Both need the loop to run on every element: `request.object.<F>[]` (or `|| \`[]\``) tolerates a missing
 * list as a glob does, while the bare path fails the rule on a missing list, which only PodSpec.containers
 * (required by the API) makes harmless. Elements are assumed to be objects, as the schemas declare them
 * (a null element is skipped by the loop, where a glob would fail).
 */
import { parse as parseYaml } from 'yaml';
import { defineOwn, isJsonObject, type JsonObject, type JsonValue } from '../ir/json.js';
import type { ForEachOp, Guard, Op, Origin, Value } from '../ir/nodes.js';
import type { Segment } from '../ir/path.js';
import { readOpaque } from '../dialects/kyverno/opaque.js';
import { fieldPointer } from './raise-kyverno-json-patch.js';
import { ELEMENT, listStrategy, type KindRef } from './raise-kyverno-kinds.js';
import { assemble, NAMED_LISTS, raiseRuleOps, walkMap } from './raise-kyverno-smp.js';
import type { Raising } from './index.js';

const IDENT = /^[A-Za-z_][A-Za-z0-9_]*$/;
const ELEMENT_NAME = /^\{\{\s*element\.name\s*\}\}$/;
const ELEMENT_INDEX = /\{\{\s*elementIndex\s*\}\}/g;
const INDEX_SENTINEL = '__transmute_element_index__';
const PLAIN_STRING = /^[A-Za-z][^|&*?]*$/;

/** The fields of `request.object.<F>` and whether the expression tolerates a missing list. */
export function objectList(expr: string): { fields: string[]; tolerant: boolean } | undefined {
  let text = expr.trim();
  let tolerant = false;
  const orEmpty = /\s*\|\|\s*`\[\]`$/.exec(text);
  if (orEmpty) {
    text = text.slice(0, orEmpty.index).trim();
    tolerant = true;
  }
  if (text.endsWith('[]')) {
    text = text.slice(0, -2).trim();
    tolerant = true;
  }
  const m = /^request\.object((?:\.(?:[A-Za-z_][A-Za-z0-9_]*|"(?:[^"\\]|\\.)*"))+)$/.exec(text);
  if (!m) return undefined;
  const fields: string[] = [];
  for (const s of m[1]!.matchAll(/\.([A-Za-z_][A-Za-z0-9_]*|"(?:[^"\\]|\\.)*")/g)) {
    const raw = s[1]!;
    if (IDENT.test(raw)) fields.push(raw);
    else {
      try {
        fields.push(JSON.parse(raw) as string);
      } catch {
        return undefined;
      }
    }
  }
  return { fields, tolerant };
}

/** The loop's body inside `when neq vars.element null`, when the loop has Kyverno's foreach shape. */
function loopBody(op: ForEachOp): Op[] | undefined {
  if (op.bind !== 'element' || op.indexBind !== 'elementIndex' || op.body.length !== 1) return undefined;
  const w = op.body[0]!;
  if (w.kind !== 'when' || w.else?.length) return undefined;
  const g = w.guard;
  if (g.kind !== 'neq' || g.path.root !== 'vars' || g.path.segments.length !== 1 || g.value.kind !== 'literal' || g.value.json !== null) return undefined;
  return w.then;
}

/** Whether a missing list makes no difference: tolerated, or a list the API requires (PodSpec.containers). */
export function runsOnEveryObject(list: { fields: string[]; tolerant: boolean }, kinds: readonly KindRef[]): boolean {
  if (list.tolerant) return true;
  const strategy = listStrategy(kinds, list.fields);
  return list.fields[list.fields.length - 1] === 'containers' && Array.isArray(strategy) && strategy.join() === 'name';
}

function objectSegments(fields: readonly string[]): Segment[] {
  return fields.map((name) => ({ kind: 'field', name }));
}

/** Shape 1: the element's own strategic merge patch. */
function raiseElementMerge(op: ForEachOp, list: { fields: string[] }, body: Op[], kinds: readonly KindRef[]): Op[] | undefined {
  if (op.order !== 'desc' || body.length !== 1) return undefined;
  const merge = body[0]!;
  if (merge.kind !== 'merge' || merge.strategy !== 'smp' || merge.path.root !== 'object' || merge.path.segments.length > 0) return undefined;
  if (merge.value.kind !== 'templated' && merge.value.kind !== 'literal') return undefined;
  const key = list.fields[list.fields.length - 1]!;
  const strategy = listStrategy(kinds, list.fields);
  if (!Array.isArray(strategy) || strategy.join() !== 'name' || !NAMED_LISTS.has(key)) return undefined;
  // The patch is exactly the list path down to one element.
  let at: JsonValue = merge.value.json;
  for (const f of list.fields) {
    if (!isJsonObject(at) || Object.keys(at).length !== 1 || !Object.hasOwn(at, f)) return undefined;
    at = at[f]!;
  }
  if (!Array.isArray(at) || at.length !== 1 || !isJsonObject(at[0])) return undefined;
  const element = at[0];
  const anchored = typeof element['(name)'] === 'string' && ELEMENT_NAME.test(element['(name)']);
  const plain = typeof element.name === 'string' && ELEMENT_NAME.test(element.name);
  if (anchored === plain) return undefined;
  const rest: JsonObject = {};
  for (const [k, v] of Object.entries(element)) {
    if (k === '(name)' || k === 'name') continue;
    // A `+()` at the element's top is resolved on the list's first element; no other anchor belongs here.
    if (/^\s*[+<=X^]?\(.*\)\s*$/.test(k)) return undefined;
    defineOwn(rest, k, v);
  }
  const text = JSON.stringify(rest);
  if (text.includes('{{')) return undefined;
  if (plain && /"\s*[+<=X^]?\([^"]*\)\s*"\s*:/.test(text)) return undefined;
  const out: { ensure: Segment[][]; ops: Op[]; guards: Guard[] } = { ensure: [], ops: [], guards: [] };
  const bail = walkMap(rest, [...objectSegments(list.fields), { kind: 'keyedGlob', key: 'name' }], [...list.fields, ELEMENT], merge.origin, out, { kinds, anchors: 'add' });
  if (bail || out.guards.length > 0) return undefined;
  // An element whose `+()` keys all exist gets an empty copy, which the expansion drops: it is not moved
  // to the front, and the list comes out reordered. A leaf written unconditionally keeps every copy.
  if (!out.ops.some((o) => o.kind === 'set' && o.path.segments.every((x) => !('test' in x) || x.test === undefined))) return undefined;
  return assemble(out, merge.origin);
}

/**
 * `{{ element.<k> || '' }} Equals <plain>` as the key and value selecting the element, if that is all. The
 * default may be left out for `name` on a list whose elements always carry one (`requiredName`): the
 * variable then never fails.
 */
function elementSelector(g: Guard, requiredName: boolean): { key: string; value: string } | undefined {
  if (g.kind !== 'jmes') return undefined;
  const opaque = readOpaque(g.expr.text);
  if (!opaque || opaque.kind !== 'conditions') return undefined;
  let list: JsonValue | undefined = opaque.json;
  if (isJsonObject(list)) {
    const keys = Object.keys(list).filter((k) => list !== undefined && isJsonObject(list) && list[k] !== null);
    if (keys.length !== 1) return undefined;
    list = list[keys[0]!];
  }
  if (!Array.isArray(list) || list.length !== 1 || !isJsonObject(list[0])) return undefined;
  const c = list[0];
  if (typeof c.operator !== 'string' || !['equals', 'equal'].includes(c.operator.toLowerCase())) return undefined;
  const v = c.value;
  if (typeof v !== 'string' || !PLAIN_STRING.test(v) || v.trim() !== v || v === 'true' || v === 'false') return undefined;
  if (typeof c.key !== 'string') return undefined;
  const m = /^\{\{\s*element\.([A-Za-z_][A-Za-z0-9_]*)\s*\|\|\s*''\s*\}\}$/.exec(c.key);
  if (m) return { key: m[1]!, value: v };
  if (requiredName && /^\{\{\s*element\.name\s*\}\}$/.test(c.key)) return { key: 'name', value: v };
  return undefined;
}

/** The JSON patch steps of a `$patch` text whose only variable is `{{elementIndex}}`. */
function indexedSteps(text: string): JsonValue[] | undefined {
  const replaced = text.replace(ELEMENT_INDEX, INDEX_SENTINEL);
  if (replaced.includes('{{')) return undefined;
  let parsed: unknown;
  try {
    parsed = replaced.trimStart().startsWith('[') ? JSON.parse(replaced) : parseYaml(replaced);
  } catch {
    return undefined;
  }
  return Array.isArray(parsed) ? (parsed as JsonValue[]) : undefined;
}

/** Shape 2: JSON patch steps inside the element at `{{elementIndex}}`. */
function raiseElementJsonPatch(list: { fields: string[] }, body: Op[], kinds: readonly KindRef[]): Op[] | undefined {
  let ops = body;
  let selector: { key: string; value: string } | undefined;
  const strategy = listStrategy(kinds, list.fields);
  const requiredName = Array.isArray(strategy) && strategy.join() === 'name' && NAMED_LISTS.has(list.fields[list.fields.length - 1]!);
  if (ops.length === 1 && ops[0]!.kind === 'when' && !ops[0]!.else?.length) {
    selector = elementSelector(ops[0]!.guard, requiredName);
    if (!selector) return undefined;
    ops = ops[0]!.then;
  }
  if (ops.length !== 2) return undefined;
  const [bind, patch] = ops as [Op, Op];
  if (bind.kind !== 'let' || bind.name !== '$patch' || bind.value.kind !== 'templated' || typeof bind.value.json !== 'string') return undefined;
  if (patch.kind !== 'jsonPatch' || patch.profile !== 'kyverno' || patch.steps.length > 0 || patch.stepsFrom?.kind !== 'jmes' || patch.stepsFrom.expr.text !== 'parse_yaml("$patch")') return undefined;
  const steps = indexedSteps(bind.value.json);
  if (!steps || steps.length === 0) return undefined;
  const prefix = `/${list.fields.map((f) => f.replaceAll('~', '~0').replaceAll('/', '~1')).join('/')}/${INDEX_SENTINEL}/`;
  const globKey = Array.isArray(strategy) && strategy.length === 1 ? strategy[0]! : 'name';
  const element: Segment = selector ? { kind: 'keyed', key: selector.key, value: selector.value, create: false } : { kind: 'keyedGlob', key: globKey };
  const origin: Origin = patch.origin;
  const out: Op[] = [];
  for (const s of steps) {
    if (!isJsonObject(s) || typeof s.op !== 'string' || typeof s.path !== 'string' || !s.path.startsWith(prefix)) return undefined;
    if (Object.keys(s).some((k) => k !== 'op' && k !== 'path' && k !== 'value')) return undefined;
    const below = fieldPointer(`/${s.path.slice(prefix.length)}`);
    if (!below || below.length === 0 || below.some((x) => x.kind === 'field' && x.name.includes(INDEX_SENTINEL))) return undefined;
    const path = { root: 'object' as const, segments: [...objectSegments(list.fields), element, ...below], origin };
    if (s.op === 'add') {
      if (s.value === undefined || JSON.stringify(s.value).includes(INDEX_SENTINEL)) return undefined;
      const value: Value = { kind: 'literal', json: s.value, origin };
      out.push({ kind: 'set', path, value, origin });
    } else if (s.op === 'remove') {
      if (s.value !== undefined) return undefined;
      out.push({ kind: 'remove', path, origin });
    } else return undefined;
  }
  return out;
}

/** The ops a Kyverno foreach means, or undefined to keep it. */
export function raiseForEachOp(op: ForEachOp, kinds: readonly KindRef[] | undefined): Op[] | undefined {
  if (!kinds || !('kind' in op.list) || op.list.kind !== 'jmes') return undefined;
  const list = objectList(op.list.expr.text);
  if (!list || !runsOnEveryObject(list, kinds)) return undefined;
  const body = loopBody(op);
  if (!body) return undefined;
  return raiseElementMerge(op, list, body, kinds) ?? raiseElementJsonPatch(list, body, kinds);
}

export const raiseKyvernoForEach: Raising = (policies) => raiseRuleOps(policies, (op, kinds) => (op.kind === 'forEach' ? raiseForEachOp(op, kinds) : undefined));
