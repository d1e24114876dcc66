/**
 * Gatekeeper-style path operations (`set`, `setMembers`, `image` on field / keyed / glob paths with segment
 * tests) as Kyverno rules, exactly as Gatekeeper's walk (core/mutation_function.go) would apply them once.
 *
 * The walk, at each keyed segment, either visits every element whose key equals the value (type-sensitive)
 * or, when none does, appends `{key: value}` and continues into it; a glob visits every element and never
 * creates. Kyverno has no such walk, so one op becomes a few mutually exclusive *scenarios*, one rule each:
 * - `update`: every list level matched: nested `foreach` over the lists (original indices, no filter in
 *   `list`, so `elementIndex<N>` are real positions), the key and test conditions in the innermost entry's
 *   preconditions, and a `patchesJson6902` on `/…/{{elementIndex0}}/…`;
 * - `create-<i>`: levels before i matched and no element with the key at level i: append the element that
 *   the walk would build (`add …/-`, which creates a missing list and its parents).
 * Strategic merge is never used here: kyaml's merge rewrites every associative list of the resource, even
 * those the patch does not touch (duplicate keys collapse, elements without their merge key are dropped:
 * src/merge/smp/merge.ts), and reorders the lists it touches (Prepend), so it is not exact on arbitrary
 * objects; JSON patch with preconditions is.
 */
import type { JsonObject, JsonValue } from '../../ir/json.js';
import type { ImageOp, SetMembersOp, SetOp, Value } from '../../ir/nodes.js';
import type { Segment, SegmentTest } from '../../ir/path.js';
import { joinImage, splitImage } from '../../k8s/image-ref.js';
import { jsonPatchText, type PatchStep, type PatchValue } from './emit-json-patch.js';
import { hasField, keyEquals, lacksField, noElementWithKey, notMember, preconditionsBlock, type Condition } from './emit-preconditions.js';
import { jmesField, jmesLiteral, pointerToken } from './emit-text.js';

export interface EmittedRule {
  /** Appended to the rule's base name (`''` for the main rule). */
  suffix: string;
  preconditions?: JsonObject;
  mutate: JsonObject;
}

export type PathOp = SetOp | SetMembersOp | ImageOp;

interface FieldStep {
  name: string;
  test?: SegmentTest;
}

interface ListStep {
  kind: 'keyed' | 'glob';
  key: string;
  value?: JsonValue;
  create: boolean;
  test?: SegmentTest;
}

/** `F0 L1 F1 … Lk Fk`: field runs between list segments. */
interface Shape {
  fields: FieldStep[][];
  lists: ListStep[];
}

function shapeOf(segments: readonly Segment[]): Shape | string {
  const shape: Shape = { fields: [[]], lists: [] };
  for (const s of segments) {
    if (s.kind === 'field') shape.fields[shape.fields.length - 1]!.push({ name: s.name, ...(s.test ? { test: s.test } : {}) });
    else if (s.kind === 'keyed') {
      shape.lists.push({ kind: 'keyed', key: s.key, value: s.value, create: s.create, ...(s.test ? { test: s.test } : {}) });
      shape.fields.push([]);
    } else if (s.kind === 'keyedGlob') {
      shape.lists.push({ kind: 'glob', key: s.key, create: false, ...(s.test ? { test: s.test } : {}) });
      shape.fields.push([]);
    } else return `a path segment of kind ${s.kind}`;
  }
  return shape;
}

/** What the leaf write is, in the two situations the walk meets: the leaf present, or missing. */
interface LeafPlan {
  /** Steps when the leaf exists (conditions on the leaf added by the caller). */
  present: { conds: (leafParent: string, leaf: string) => Condition[]; patch: (pointer: string, leafExpr: string) => PatchStep[] }[];
  /** The value the walk writes at a missing leaf; `touch` writes nothing but keeps the created parents. */
  missing: { value: JsonValue } | 'touch' | 'computed';
  /** For `missing: 'computed'` (fromMetadata): the patch value. */
  missingValue?: PatchValue;
  /** The leaf's value does not depend on its current value (a set): no need to split present/missing. */
  blind?: PatchValue;
}

const IMAGE_REGEX = '^((?:[^/]*[.:][^/]*|localhost)/)?([^:@]*)(.*)$';

/** Writes a value the IR computes with an expression (a MAP CEL value compiled to JMESPath), or says why not. */
export type ComputedValue = (v: Value) => PatchValue | string;

function valuePlan(v: Value, computed?: ComputedValue): PatchValue | string {
  switch (v.kind) {
    case 'cel':
      return computed ? computed(v) : `a value of kind ${v.kind}`;
    case 'literal':
      return { kind: 'literal', json: v.json };
    case 'fromMetadata':
      // Gatekeeper reads the object's own metadata, "" when unset (assign_mutator.go).
      return { kind: 'computed', expr: `request.object.metadata.${v.field} || ''`, string: true };
    default:
      return `a value of kind ${v.kind}`;
  }
}

function leafPlan(op: PathOp, computed?: ComputedValue): LeafPlan | string {
  if (op.kind === 'set') {
    const v = valuePlan(op.value, computed);
    if (typeof v === 'string') return v;
    return {
      present: [],
      missing: v.kind === 'literal' ? { value: v.json } : 'computed',
      missingValue: v,
      blind: v,
    };
  }
  if (op.kind === 'setMembers') {
    const values: JsonValue[] = [];
    for (const x of op.values) {
      if (x.kind !== 'literal') return `a set member of kind ${x.kind}`;
      values.push(x.json);
    }
    if (op.mode === 'merge') {
      // modify_set_mutator.go: each value not yet present is appended, values appended in this pass included.
      const distinct: JsonValue[] = [];
      for (const v of values) if (!distinct.some((d) => JSON.stringify(d) === JSON.stringify(v))) distinct.push(v);
      return {
        present: distinct.map((v) => ({
          conds: (_p: string, leaf: string) => [notMember(leaf, v)],
          patch: (pointer: string) => [{ op: 'add' as const, path: `${pointer}/-`, value: { kind: 'literal' as const, json: v } }],
        })),
        // Merging into a missing list stores the values verbatim, duplicates and all.
        missing: { value: values },
      };
    }
    const list = jmesLiteral(values);
    return {
      present: [
        {
          conds: (_p: string, leaf: string) => [`length((${leaf} || \`[]\`)[?contains(${list}, @)]) > \`0\``],
          patch: (pointer: string, leaf: string) => [{ op: 'add' as const, path: pointer, value: { kind: 'computed' as const, expr: `${leaf}[?!contains(${list}, @)]`, string: false } }],
        },
      ],
      missing: 'touch',
    };
  }
  const replacement = `${op.domain !== undefined ? `${op.domain}/` : '${1}'}${op.repo ?? '${2}'}${op.tag ?? '${3}'}`;
  const empty = splitImage('');
  const constant = joinImage({ domain: op.domain ?? empty.domain, path: op.repo ?? empty.path, tag: op.tag ?? empty.tag });
  return {
    present: [
      {
        conds: () => [],
        patch: (pointer: string, leaf: string) => [
          { op: 'add' as const, path: pointer, value: { kind: 'computed' as const, expr: `regex_replace_all('${IMAGE_REGEX}', ${leaf}, '${replacement}')`, string: true } },
        ],
      },
    ],
    missing: { value: constant },
  };
}

/** The element variable of list level `d` (0-based). */
const elementVar = (d: number): string => `element${d}`;
const indexVar = (d: number): string => `{{elementIndex${d}}}`;

function jmesOf(base: string, fields: readonly FieldStep[]): string {
  return fields.reduce((acc, f) => `${acc}.${jmesField(f.name)}`, base);
}

function pointerOf(base: string, fields: readonly FieldStep[]): string {
  return fields.reduce((acc, f) => `${acc}/${pointerToken(f.name)}`, base);
}

/** Conditions for the tests on a field run starting at `base` (stopping before `upTo` fields). */
function fieldRunConds(base: string, fields: readonly FieldStep[], upTo = fields.length): Condition[] {
  const conds: Condition[] = [];
  for (let j = 0; j < upTo; j++) {
    const f = fields[j]!;
    if (!f.test) continue;
    const parent = jmesOf(base, fields.slice(0, j));
    conds.push(f.test === 'exist' ? hasField(parent, f.name) : lacksField(parent, f.name));
  }
  return conds;
}

/** Base expression and pointer of field run `i` when levels 1..i are bound to loop elements. */
function runBase(i: number): { expr: string; pointer: string } {
  return i === 0 ? { expr: 'request.object', pointer: '' } : { expr: elementVar(i - 1), pointer: '' };
}

interface Walk {
  /** JMESPath of the list of level `d` (0-based), evaluated where elements 0..d-1 are bound. */
  listExpr: string[];
  /** JSON pointer prefix of the list of level d and of the last run. */
  listPointer: string[];
  conds: Condition[];
}

/** Loops, pointers and conditions for levels 0..n-1 all matched (update-like descent). */
function descend(shape: Shape, n: number): Walk {
  const w: Walk = { listExpr: [], listPointer: [], conds: [] };
  let pointer = '';
  for (let d = 0; d < n; d++) {
    const run = shape.fields[d]!;
    const base = runBase(d).expr;
    w.conds.push(...fieldRunConds(base, run));
    pointer = pointerOf(pointer, run);
    w.listExpr.push(`${jmesOf(base, run)} || \`[]\``);
    w.listPointer.push(pointer);
    const list = shape.lists[d]!;
    if (list.kind === 'keyed') w.conds.push(keyEquals(elementVar(d), list.key, list.value!));
    else w.conds.push(`type(${elementVar(d)}) == 'object'`);
    pointer = `${pointer}/${indexVar(d)}`;
  }
  w.listPointer.push(pointer);
  return w;
}

/** Wraps steps in `n` nested foreach levels; the innermost entry carries conditions and patch. */
function nest(w: Walk, n: number, steps: { conds: Condition[]; patch: PatchStep[] }[]): JsonObject {
  const entries: JsonObject[] = steps.map((s) => {
    let entry: JsonObject = { list: w.listExpr[n - 1]! };
    const pre = preconditionsBlock([...w.conds, ...s.conds]);
    if (pre) entry.preconditions = pre;
    entry.patchesJson6902 = jsonPatchText(s.patch);
    for (let d = n - 2; d >= 0; d--) entry = { list: w.listExpr[d]!, foreach: [entry] };
    return entry;
  });
  return { foreach: entries };
}

type RestSeg = { f: FieldStep } | { l: ListStep };

/** The segments after list level `i` (its field run, then the deeper levels). */
function restAfter(shape: Shape, i: number): RestSeg[] {
  const segs: RestSeg[] = [];
  for (let r = i; r < shape.fields.length; r++) {
    if (r > i) segs.push({ l: shape.lists[r - 1]! });
    for (const f of shape.fields[r]!) segs.push({ f });
  }
  return segs;
}

/**
 * The map the walk builds from nothing for `segs[j..]` (a field segment applies to it), or undefined when the
 * walk would attach nothing (a glob, a keyed segment that does not create, a MustExist test).
 */
function buildMap(segs: readonly RestSeg[], j: number, leaf: JsonValue | 'touch'): JsonObject | undefined {
  const s = segs[j]!;
  if (!('f' in s)) return undefined;
  if (s.f.test === 'exist') return undefined;
  if (j === segs.length - 1) return leaf === 'touch' ? {} : { [s.f.name]: leaf };
  const next = segs[j + 1]!;
  if ('f' in next) {
    const inner = buildMap(segs, j + 1, leaf);
    return inner === undefined ? undefined : { [s.f.name]: inner };
  }
  const l = next.l;
  if (l.kind === 'glob' || !l.create || l.test === 'exist') return undefined;
  if (j + 1 === segs.length - 1) return leaf === 'touch' ? undefined : { [s.f.name]: [leaf] };
  const inner = buildMap(segs, j + 2, leaf);
  return inner === undefined ? undefined : { [s.f.name]: [{ [l.key]: l.value!, ...inner }] };
}

function patchValueOf(v: JsonValue): PatchValue {
  return { kind: 'literal', json: v };
}

/**
 * The rules for one op; a string result is the reason Kyverno cannot express it.
 */
export function emitPathOp(op: PathOp, computed?: ComputedValue): EmittedRule[] | string {
  if (op.path.root !== 'object') return `a write outside the object (${op.path.root})`;
  if (op.path.segments.length === 0) return 'a write to the whole object';
  const shape = shapeOf(op.path.segments);
  if (typeof shape === 'string') return shape;
  for (const run of shape.fields) for (const f of run) if (f.name.includes('{{')) return `a field name containing "{{" (${f.name})`;
  const plan = leafPlan(op, computed);
  if (typeof plan === 'string') return plan;
  // A glob with MustNotExist is never satisfied (the walk returns before visiting elements): nothing to emit.
  if (shape.lists.some((l) => l.kind === 'glob' && l.test === 'notExist')) return [];

  const k = shape.lists.length;
  const lastRun = shape.fields[k]!;
  const terminalList = lastRun.length === 0;
  if (terminalList && op.kind !== 'set') return `a ${op.kind} on a list element`;
  const rules: EmittedRule[] = [];

  // update: every level matched, leaf reached.
  const updateBlocked = shape.lists.some((l) => l.kind === 'keyed' && l.test === 'notExist');
  if (!updateBlocked) {
    const w = descend(shape, k);
    const base = runBase(k).expr;
    const leafPointer = w.listPointer[k]!;
    const steps: { conds: Condition[]; patch: PatchStep[] }[] = [];
    if (terminalList) {
      // setListElementToValue: the first element with the key is replaced whole.
      const list = shape.lists[k - 1]!;
      // No earlier element has the key. The index is compared inside a JSON literal, not sliced with
      // (`[:{{elementIndex}}]`): Kyverno's webhook dry-runs variables as null, and `[:null]` does not parse.
      const earlier = `items(${w.listExpr[k - 1]!}, 'index', 'value')[?index < \`${indexVar(k - 1)}\` && value.${jmesField(list.key)} == ${jmesLiteral(list.value!)}]`;
      steps.push({
        conds: [`length(${earlier}) == \`0\``],
        patch: [{ op: 'replace', path: w.listPointer[k - 1]! + `/${indexVar(k - 1)}`, value: plan.blind! }],
      });
    } else {
      const parentFields = lastRun.slice(0, -1);
      const leaf = lastRun[lastRun.length - 1]!;
      const parent = jmesOf(base, parentFields);
      const leafExpr = `${parent}.${jmesField(leaf.name)}`;
      const runConds = fieldRunConds(base, lastRun, lastRun.length - 1);
      const pointer = pointerOf(leafPointer, lastRun);
      const present = [hasField(parent, leaf.name)];
      const missing = [lacksField(parent, leaf.name)];
      if (plan.blind) {
        const conds = leaf.test === 'exist' ? present : leaf.test === 'notExist' ? missing : [];
        steps.push({ conds: [...runConds, ...conds], patch: [{ op: 'add', path: pointer, value: plan.blind }] });
      } else {
        if (leaf.test !== 'notExist') {
          for (const p of plan.present) steps.push({ conds: [...runConds, ...present, ...p.conds(parent, leafExpr)], patch: p.patch(pointer, leafExpr) });
        }
        if (leaf.test !== 'exist') {
          if (plan.missing === 'touch') {
            // The walk attaches the parents it created even though nothing is written at the leaf.
            if (parentFields.length > 0) {
              const parentPointer = pointerOf(leafPointer, parentFields);
              const grand = jmesOf(base, parentFields.slice(0, -1));
              const last = parentFields[parentFields.length - 1]!;
              steps.push({ conds: [...runConds, lacksField(grand, last.name)], patch: [{ op: 'add', path: parentPointer, value: patchValueOf({}) }] });
            }
          } else if (plan.missing !== 'computed') {
            steps.push({ conds: [...runConds, ...missing], patch: [{ op: 'add', path: pointer, value: patchValueOf(plan.missing.value) }] });
          }
        }
      }
    }
    if (steps.length > 0) {
      if (k === 0) steps.forEach((s, i) => rules.push(plainRule(i === 0 ? '' : `-${i + 1}`, s)));
      else rules.push({ suffix: '', mutate: nest(w, k, steps) });
    }
  }

  // create-i: levels before i matched, no element with the key at level i.
  for (let i = k; i >= 1; i--) {
    const list = shape.lists[i - 1]!;
    if (list.kind !== 'keyed' || !list.create || list.test === 'exist') continue;
    const w = descend(shape, i - 1);
    const base = runBase(i - 1).expr;
    const run = shape.fields[i - 1]!;
    const listExpr = jmesOf(base, run);
    const conds = [...w.conds, ...fieldRunConds(base, run), noElementWithKey(listExpr, list.key, list.value!)];
    let leafValue: JsonValue | 'touch';
    if (plan.missing === 'touch') leafValue = 'touch';
    else if (plan.missing === 'computed') return 'a value computed from metadata inside a list element the walk creates';
    else leafValue = plan.missing.value;
    let element: JsonValue | 'touch' | undefined;
    if (terminalList && i === k) element = leafValue;
    else {
      const inner = buildMap(restAfter(shape, i), 0, leafValue);
      if (inner === undefined) continue;
      element = { [list.key]: list.value!, ...inner };
    }
    if (element === 'touch' || element === undefined) element = { [list.key]: list.value! };
    const pointer = `${pointerOf(w.listPointer[i - 1]!, run)}/-`;
    const step = { conds, patch: [{ op: 'add' as const, path: pointer, value: patchValueOf(element) }] };
    const suffix = `-create${k > 1 ? `-${i}` : ''}`;
    if (i === 1) rules.push(plainRule(suffix, step));
    else rules.push({ suffix, mutate: nest(w, i - 1, [step]) });
  }
  return rules;
}

function plainRule(suffix: string, s: { conds: Condition[]; patch: PatchStep[] }): EmittedRule {
  const pre = preconditionsBlock(s.conds);
  return { suffix, ...(pre ? { preconditions: pre } : {}), mutate: { patchesJson6902: jsonPatchText(s.patch) } };
}

