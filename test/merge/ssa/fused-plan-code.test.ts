/**
 * Differential test of the generated planned merge (src/merge/ssa/fused-plan-code.ts, issue 17) against the
 * walk's reference loop (FusedWalk.mergePlannedByLoop, `new FusedWalk(true)`): random PatchTemplates over the
 * v1 Pod schema (built directly, or read from random `Object{...}` CEL text by apply-template.ts), random
 * patches that follow them or break them, random live Pods; the same over a small schema with what no Pod merge
 * meets (element types of structs, deduced values); and hand-picked edges. Both must give the same document
 * (key order included), the same sharing of live and patch subtrees, the same give-ups, and with an owned set
 * the same writes in place, the same `inPlace` and the same maps handed over to `owned`.
 */
import { describe, expect, it } from 'vitest';
import { makePods } from '../../../bench/pods.js';
import { parse } from '../../../src/cel/program.js';
import { applyConfigurationTemplate } from '../../../src/compile/apply-template.js';
import { kindSchema } from '../../../src/engines/ssa.js';
import { newEpoch } from '../../../src/interpreter/walk.js';
import { hasOwn, type JsonObject, type JsonValue } from '../../../src/ir/json.js';
import { CheckedSubtrees } from '../../../src/merge/ssa/checked.js';
import { applyFused, FusedWalk, type InPlaceMaps } from '../../../src/merge/ssa/fused-apply.js';
import { type MapPlan, type PatchTemplate, PatchShape, planMap } from '../../../src/merge/ssa/fused-plan.js';
import { loadSmdSchema } from '../../../src/merge/ssa/schema-load.js';
import type { Schema, TypeRef } from '../../../src/merge/ssa/schema.js';
import type { TypeNode } from '../../../src/merge/ssa/type-nodes.js';
import { mulberry32, pick } from '../../support/random.js';

/** The seeded generator, with the fields its schema's templates reach for more often than the rest (by weight). */
interface Next {
  (): number;
  readonly preferred: ReadonlyMap<string, number>;
  /** Fields taken now and then: a Pod's atomic ones, which the atomic guard refuses in a patch (the merge gives up). */
  readonly occasional: ReadonlySet<string>;
}

const POD = kindSchema({ group: '', version: 'v1', kind: 'Pod' })!;

const string = { scalar: 'string' };
const deduced = { namedType: 'deduced' };
/**
 * What a Pod's merge never meets: an open map of structs (the atomic guard stops at its element type, and a
 * struct below it may set atomic lists and maps), deduced values (a node both scalar, map and list), an open
 * struct with declared fields, an atomic override of a struct.
 */
const WIDGET = (() => {
  const r = loadSmdSchema({
    types: [
      { name: 'root', map: { fields: [{ name: 'apiVersion', type: string }, { name: 'kind', type: string }, { name: 'metadata', type: { namedType: 'meta' } }, { name: 'spec', type: { namedType: 'spec' } }] } },
      { name: 'meta', map: { fields: [{ name: 'name', type: string }, { name: 'labels', type: { map: { elementType: string } } }] } },
      {
        name: 'spec',
        map: {
          fields: [
            { name: 'replicas', type: { scalar: 'numeric' } },
            { name: 'paused', type: { scalar: 'boolean' } },
            { name: 'port', type: { scalar: 'untyped' } },
            { name: 'selector', type: { map: { elementType: string, elementRelationship: 'atomic' } } },
            { name: 'args', type: { list: { elementType: string, elementRelationship: 'atomic' } } },
            { name: 'tags', type: { list: { elementType: string, elementRelationship: 'associative' } } },
            { name: 'items', type: { list: { elementType: { namedType: 'item' }, elementRelationship: 'associative', keys: ['name'] } } },
            { name: 'ports', type: { list: { elementType: { namedType: 'port' }, elementRelationship: 'associative', keys: ['port', 'protocol'] } } },
            { name: 'byName', type: { map: { elementType: { namedType: 'item' } } } },
            { name: 'extra', type: deduced },
            { name: 'open', type: { map: { fields: [{ name: 'fixed', type: string }, { name: 'sub', type: { namedType: 'item' } }], elementType: deduced } } },
            { name: 'ref', type: { namedType: 'item', elementRelationship: 'atomic' } },
            { name: 'nested', type: { namedType: 'spec' } },
          ],
        },
      },
      {
        name: 'item',
        map: {
          fields: [
            { name: 'name', type: string },
            { name: 'value', type: string },
            { name: 'flags', type: { list: { elementType: string, elementRelationship: 'atomic' } } },
            { name: 'conf', type: { map: { elementType: string, elementRelationship: 'atomic' } } },
            { name: 'limits', type: { map: { elementType: { scalar: 'untyped' } } } },
            { name: 'ports', type: { list: { elementType: { namedType: 'port' }, elementRelationship: 'associative', keys: ['port', 'protocol'] } } },
            { name: 'any', type: deduced },
          ],
        },
      },
      { name: 'port', map: { fields: [{ name: 'port', type: { scalar: 'numeric' } }, { name: 'protocol', type: string }, { name: 'name', type: string }] } },
      { name: 'deduced', scalar: 'untyped', list: { elementType: { namedType: 'atomic' }, elementRelationship: 'atomic' }, map: { elementType: deduced } },
      { name: 'atomic', scalar: 'untyped', list: { elementType: { namedType: 'atomic' }, elementRelationship: 'atomic' }, map: { elementType: { namedType: 'atomic' }, elementRelationship: 'atomic' } },
    ],
  });
  if (!r.ok) throw new Error(r.diagnostics.map((d) => d.message).join('\n'));
  return r.value;
})();
const WIDGET_ROOT: TypeRef = { namedType: 'root' };
const WIDGET_PREFERRED = new Map(Object.entries({ spec: 3, byName: 3, extra: 2, open: 1, any: 1, flags: 2, conf: 2, ref: 1, items: 2, ports: 1, port: 1, protocol: 1, name: 1, limits: 1 }));

/** One map level of a random template, with the schema node it lands on (undefined: no schema there). */
interface Level {
  readonly node: TypeNode | undefined;
  readonly entries: readonly Entry[];
}

interface Entry {
  readonly key: string;
  readonly node: TypeNode | undefined;
  /** A key field of an associative list's items. */
  readonly keyField: boolean;
  /** The template of a literal map value. */
  readonly child?: Level;
  /** The template of every item of a list of literal maps. */
  readonly items?: Level;
  /** A deep-frozen value reused by the template's patches (a compiled constant: the plan memoizes its typing). */
  readonly constant?: JsonValue;
}

/** Fields the templates reach for more often than the rest of the Pod schema. */
const POD_PREFERRED = new Map(
  Object.entries({
    metadata: 1, spec: 2, labels: 2, annotations: 1, name: 1, containers: 4, image: 2, ports: 1, containerPort: 1, protocol: 1,
    securityContext: 1, seccompProfile: 1, type: 1, runAsNonRoot: 1, runAsUser: 1, restartPolicy: 1, hostNetwork: 1, resources: 1,
    limits: 1, env: 1, value: 1, imagePullPolicy: 1, activeDeadlineSeconds: 1, finalizers: 1,
  }),
);
const POD_ATOMIC = new Set(['args', 'command', 'nodeSelector', 'tolerations']);
/** Keys of open maps (labels, annotations, nodeSelector, limits): odd ones included, none an array index. */
const MAP_KEYS = ['app', 'tier', 'team', 'zone', 'a.b/c', '-', '0x', '', 'constructor', 'example.com/build', 'a"b', 'é', 'zz'];
const UNDECLARED = 'zzUndeclared';
const STRINGS: JsonValue[] = ['v', 'w', 'app', 'side-1', 'TCP', 'frontend', ''];
const NUMBERS: JsonValue[] = [8000, 8001, 0, 1, 1.5];
const ODD: JsonValue[] = [null, 7, 'x', true, {}, [], { x: 'y' }, ['a'], { [UNDECLARED]: 1 }, [{ name: 'app' }]];

const chance = (next: () => number, p: number): boolean => next() < p;
const isMap = (v: unknown): v is JsonObject => v !== null && typeof v === 'object' && !Array.isArray(v);
const fresh = (v: JsonValue): JsonValue => JSON.parse(JSON.stringify(v)) as JsonValue;

function deepFreeze<T extends JsonValue>(v: T): T {
  if (v !== null && typeof v === 'object') {
    for (const x of Object.values(v)) deepFreeze(x);
    Object.freeze(v);
  }
  return v;
}

/** A deep copy that freezes what was frozen, so that two runs get equal but unshared inputs. */
function copyDeep(v: JsonValue): JsonValue {
  if (v === null || typeof v !== 'object') return v;
  let out: JsonValue;
  if (Array.isArray(v)) out = v.map(copyDeep);
  else {
    const o: JsonObject = {};
    for (const k of Object.keys(v)) o[k] = copyDeep(v[k]!);
    out = o;
  }
  return Object.isFrozen(v) ? (Object.freeze(out) as JsonValue) : out;
}

function childNode(n: TypeNode | undefined, key: string): TypeNode | undefined {
  if (n?.map === undefined) return undefined;
  return n.declaredNode(key) ?? (n.closed ? undefined : n.elementNode);
}

function chooseKeys(next: Next, n: TypeNode | undefined, count: number, undeclared: number): string[] {
  const declared = n?.map !== undefined ? [...n.map.fieldIndex.keys()] : [];
  const preferred = declared.filter((k) => next.preferred.has(k));
  const occasional = declared.filter((k) => next.occasional.has(k));
  const keys = new Set<string>();
  for (let i = 0; i < count; i++) {
    if (chance(next, undeclared)) keys.add(UNDECLARED);
    else if (declared.length > 0 && (n!.closed || chance(next, 0.5))) {
      const r = next();
      keys.add(occasional.length > 0 && r < 0.06 ? pick(next, occasional) : preferred.length > 0 && r < 0.9 ? weightedPick(next, preferred) : pick(next, declared));
    } else keys.add(pick(next, MAP_KEYS));
  }
  return [...keys];
}

/** Item keys, mostly those of the live Pods' containers and ports, so that patch and live items meet. */
function keyValues(kind: string | undefined): readonly JsonValue[] | undefined {
  if (kind === 'string') return ['app', 'side-1', 'side-2', 'TCP'];
  return kind === 'numeric' ? [8000, 8001, 8002, 9000] : undefined;
}

function keyValue(next: Next, kind: string | undefined): JsonValue {
  const pool = keyValues(kind);
  return pool !== undefined ? pick(next, pool) : scalarValue(next, kind);
}

/** Mostly gives the items distinct keys (a repeated key makes the walk give up), keeping their order random. */
function distinctKeys(next: Next, list: JsonValue[], items: Level): void {
  for (const e of items.entries) {
    const pool = e.keyField ? keyValues(e.node?.scalar) : undefined;
    if (pool === undefined) continue;
    const offset = Math.floor(next() * pool.length);
    list.forEach((item, i) => {
      if (isMap(item) && !Object.isFrozen(item) && hasOwn(item, e.key)) item[e.key] = pool[(offset + i) % pool.length]!;
    });
  }
}

function weightedPick(next: Next, keys: readonly string[]): string {
  const total = keys.reduce((sum, k) => sum + next.preferred.get(k)!, 0);
  let r = next() * total;
  for (const k of keys) if ((r -= next.preferred.get(k)!) < 0) return k;
  return keys[keys.length - 1]!;
}

function scalarValue(next: Next, kind: string | undefined): JsonValue {
  switch (kind) {
    case 'string':
      return pick(next, STRINGS);
    case 'numeric':
      return pick(next, NUMBERS);
    case 'boolean':
      return chance(next, 0.5);
    default:
      return pick(next, [...STRINGS, ...NUMBERS, true]);
  }
}

/** A value that mostly types at `n` (no template below it): what a dynamic leaf of an ApplyConfiguration gives. */
function valueAt(next: Next, n: TypeNode | undefined, depth: number): JsonValue {
  if (n === undefined || n.atom === undefined) return fresh(pick(next, ODD));
  if (n.scalar !== undefined && (n.map === undefined || chance(next, 0.5))) return scalarValue(next, n.scalar);
  if (n.map !== undefined) {
    const out: JsonObject = {};
    if (depth > 4) return out;
    for (const key of chooseKeys(next, n, 1 + Math.floor(next() * 2), 0)) out[key] = valueAt(next, childNode(n, key), depth + 1);
    return out;
  }
  if (n.list !== undefined) {
    const item = n.item;
    const out: JsonValue[] = [];
    const length = Math.floor(next() * 3);
    for (let i = 0; i < length; i++) {
      if (n.list.keys.length > 0) {
        const o: JsonObject = {};
        for (const key of n.list.keys) o[key] = keyValue(next, childNode(item, key)?.scalar);
        if (chance(next, 0.4) && depth <= 4) for (const key of chooseKeys(next, item, 1, 0)) if (!hasOwn(o, key)) o[key] = valueAt(next, childNode(item, key), depth + 1);
        out.push(o);
      } else out.push(valueAt(next, item, depth + 1));
    }
    return out;
  }
  return null;
}

/** `keyFields`: an associative list's item keys, which its items' template nearly always has (else the walk cannot pair items, and gives up). */
function makeLevel(next: Next, n: TypeNode | undefined, depth: number, keyFields: readonly string[] = []): Level {
  const keys = chooseKeys(next, n, 1 + Math.floor(next() * (depth === 0 ? 2 : 4)), depth === 0 ? 0.01 : 0.04);
  for (const k of keyFields) if (!keys.includes(k) && chance(next, 0.9)) keys.unshift(k);
  return { node: n, entries: keys.map((key) => makeEntry(next, key, childNode(n, key), depth, keyFields.includes(key))) };
}

function makeEntry(next: Next, key: string, c: TypeNode | undefined, depth: number, keyField: boolean): Entry {
  let child: Level | undefined;
  let items: Level | undefined;
  if (depth < 4 && c?.map !== undefined && chance(next, 0.75)) child = makeLevel(next, c, depth + 1);
  // A literal map where the schema has a scalar, a list or nothing: the plan has no sub-plan there.
  else if (depth < 4 && chance(next, 0.03)) child = makeLevel(next, c?.map !== undefined ? c : undefined, depth + 1);
  if (depth < 4 && c?.list !== undefined && c.item.map !== undefined && chance(next, 0.65)) items = makeLevel(next, c.item, depth + 1, c.list.keys);
  const constant = chance(next, 0.25) ? deepFreeze(child !== undefined ? levelValue(next, child, 0) : valueAt(next, c, depth + 1)) : undefined;
  return { key, node: c, keyField, child, items, constant };
}

function templateOf(level: Level): PatchTemplate {
  return {
    keys: level.entries.map((e) => e.key),
    children: level.entries.map((e) => (e.child !== undefined ? templateOf(e.child) : undefined)),
    items: level.entries.map((e) => (e.items !== undefined ? templateOf(e.items) : undefined)),
  };
}

/** The level as CEL: `Object.x{f: ...}` for a struct, `{"k": ...}` for a map, `[T{...}, T{...}]` or `.map()` for items. */
function celOf(next: Next, level: Level, typeName: string): string {
  const asStruct = level.node?.map !== undefined && level.node.closed;
  const fields = level.entries.map((e) => {
    // The type name is taken as written (apply-template.ts only asks that it starts with `Object`).
    const fieldType = `${typeName}.${/^[a-zA-Z_][a-zA-Z0-9_]*$/.test(e.key) ? e.key : 'entry'}`;
    let value: string;
    if (e.child !== undefined) value = celOf(next, e.child, fieldType);
    else if (e.items !== undefined) {
      const item = (): string => celOf(next, e.items!, fieldType);
      value = chance(next, 0.5) ? `[${item()}, ${item()}]` : `x.map(c, ${item()})`;
    } else value = pick(next, ['x', '"v"', '7', '[y]', 'object.metadata']);
    return `${asStruct ? e.key : JSON.stringify(e.key)}: ${value}`;
  });
  return asStruct ? `${typeName}{${fields.join(', ')}}` : `{${fields.join(', ')}}`;
}

/** CEL has no value that is both a literal map and a list (a deduced node's template may say both). */
function celExpressible(level: Level): boolean {
  return level.entries.every((e) => (e.child === undefined || e.items === undefined) && (e.child === undefined || celExpressible(e.child)) && (e.items === undefined || celExpressible(e.items)));
}

function templateOfCel(text: string): PatchTemplate | undefined {
  const r = parse(text);
  return applyConfigurationTemplate(r.ok ? r.value : undefined);
}

/** A patch of the level: mostly as its template says; with probability `breaks`, a key missing or a value of another type. */
function levelValue(next: Next, level: Level, breaks: number): JsonObject {
  const out: JsonObject = {};
  for (const e of level.entries) {
    if (chance(next, breaks / 2)) continue;
    out[e.key] = entryValue(next, e, breaks);
  }
  return chance(next, 0.15) ? deepFreeze(out) : out;
}

function entryValue(next: Next, e: Entry, breaks: number): JsonValue {
  if (chance(next, breaks)) return fresh(pick(next, ODD));
  if (e.constant !== undefined && chance(next, 0.4)) return e.constant;
  if (e.child !== undefined) return levelValue(next, e.child, breaks);
  if (e.items !== undefined) {
    const length = Math.floor(next() * 3.5);
    const list: JsonValue[] = Array.from({ length }, () => (chance(next, breaks) ? fresh(pick(next, ODD)) : levelValue(next, e.items!, breaks)));
    if (chance(next, 0.75)) distinctKeys(next, list, e.items);
    return chance(next, 0.15) ? deepFreeze(list) : list;
  }
  const v = e.keyField ? keyValue(next, e.node?.scalar) : valueAt(next, e.node, 2);
  return chance(next, 0.15) ? deepFreeze(v) : v;
}

/** A live value for the level's place: absent, equal to the patch's, another value, of another type, null, or partly each. */
function overlay(next: Next, live: JsonObject, level: Level, patch: JsonValue | undefined): void {
  for (const e of level.entries) {
    const pv = isMap(patch) && hasOwn(patch, e.key) ? patch[e.key] : undefined;
    const r = next();
    if (r < 0.2) delete live[e.key];
    else if (r < 0.45 && pv !== undefined) live[e.key] = Object.isFrozen(pv) && chance(next, 0.5) ? pv : copyDeep(pv);
    else if (r < 0.5) live[e.key] = chance(next, 0.5) ? null : fresh(pick(next, ODD));
    else if (r < 0.65) live[e.key] = entryValue(next, e, 0);
    else if (e.child !== undefined) {
      const old = live[e.key];
      const into = isMap(old) && !Object.isFrozen(old) ? old : {};
      overlay(next, into, e.child, pv);
      live[e.key] = into;
    } else if (e.items !== undefined && Array.isArray(pv) && chance(next, 0.6)) {
      // The patch's items again (the same ids in the same order: merged pairwise), each partly equal.
      live[e.key] = pv.map((item) => {
        if (!isMap(item)) return copyDeep(item);
        const into = copyDeep(item) as JsonObject;
        overlay(next, Object.isFrozen(into) ? {} : into, e.items!, item);
        return into;
      });
    }
  }
}

function makeLive(next: Next, kind: Kind, level: Level, patch: JsonObject): JsonObject {
  const live = chance(next, 0.85) ? kind.base(next) : {};
  overlay(next, live, level, patch);
  return live;
}

/** Whether planMap should plan `level` at `n`, checked level by level against the plan it made. */
function expectPlanOf(plan: MapPlan | undefined, level: Level, n: TypeNode | undefined, where: string): void {
  const plannable = n?.atom !== undefined && n.map !== undefined && n.map.elementRelationship !== 'atomic' && level.entries.every((e) => e.node !== undefined);
  if (!plannable) {
    expect(plan, `${where}: no plan`).toBeUndefined();
    return;
  }
  expect(plan, `${where}: a plan`).toBeDefined();
  expect(plan!.keys).toEqual(level.entries.map((e) => e.key));
  level.entries.forEach((e, i) => {
    if (e.child !== undefined) expectPlanOf(plan!.subPlans[i], e.child, e.node, `${where}.${e.key}`);
    else expect(plan!.subPlans[i]).toBeUndefined();
    const associative = e.node?.atom !== undefined && e.node.list?.elementRelationship === 'associative';
    if (e.items !== undefined && associative) expectPlanOf(plan!.itemPlans[i], e.items, e.node!.item, `${where}.${e.key}[]`);
    else expect(plan!.itemPlans[i]).toBeUndefined();
  });
}

/** A walk that tells how its outermost planned merge ended. */
class ObservedWalk extends FusedWalk {
  private depth = 0;
  outcome: 'none' | 'merged' | 'gaveUp' = 'none';

  override mergePlanned(plan: MapPlan, lv: JsonValue, r: JsonObject, guard: boolean): ReturnType<FusedWalk['mergePlanned']> {
    const outer = this.depth === 0;
    this.depth++;
    try {
      const merged = super.mergePlanned(plan, lv, r, guard);
      if (outer) this.outcome = typeof merged === 'symbol' ? 'gaveUp' : 'merged';
      return merged;
    } finally {
      this.depth--;
    }
  }
}

/** The owned set of an evaluation, recording the maps a merge hands over. */
function recordingOwned(): InPlaceMaps & { readonly added: object[] } {
  const owned = newEpoch();
  const added: object[] = [];
  return {
    added,
    has: (v) => owned.has(v),
    add: (v) => {
      added.push(v);
      owned.add(v);
    },
  };
}

/** Every container of `v` by the first path it is reached at. */
function containers(v: JsonValue, path = '$', out = new Map<object, string>()): Map<object, string> {
  if (v === null || typeof v !== 'object' || out.has(v)) return out;
  out.set(v, path);
  if (Array.isArray(v)) v.forEach((x, i) => containers(x, `${path}[${i}]`, out));
  else for (const k of Object.keys(v)) containers(v[k]!, `${path}[${JSON.stringify(k)}]`, out);
  return out;
}

/**
 * Where each container of the result comes from: the live object's (and at which path), the patch's, a map
 * handed to `owned`, or made by the merge. Two runs that share alike give the same lines.
 */
function sharing(result: JsonValue | undefined, live: JsonValue, patch: JsonValue, added: readonly object[] = []): string {
  if (result === undefined) return 'gave up';
  const fromLive = containers(live);
  const fromPatch = containers(patch);
  const lines: string[] = [];
  for (const [o, path] of containers(result)) {
    const source = fromLive.has(o) ? `live ${fromLive.get(o)!}` : fromPatch.has(o) ? `patch ${fromPatch.get(o)!}` : added.includes(o) ? 'owned' : 'new';
    lines.push(`${path} <- ${source}${Object.isFrozen(o) ? ' (frozen)' : ''}`);
  }
  return lines.join('\n');
}

function ownedPaths(live: JsonObject, next: Next): string[] {
  const paths: string[] = [];
  for (const [o, path] of containers(live)) if (!Array.isArray(o) && !Object.isFrozen(o) && chance(next, path === '$' ? 0.5 : 0.35)) paths.push(path);
  return paths;
}

function atPaths(live: JsonObject, paths: readonly string[]): object[] {
  const byPath = new Map([...containers(live)].map(([o, p]) => [p, o]));
  return paths.map((p) => byPath.get(p)!);
}

/** What a run over seeds saw, so that each schema's test can require its cases. */
interface Counts {
  cases: number;
  noPlan: number;
  merged: number;
  gaveUp: number;
  missingKeyGaveUp: number;
  identity: number;
  ownedInPlace: number;
  ownedAdded: number;
  fromCel: number;
}

interface Kind {
  readonly schema: Schema;
  readonly typeRef: TypeRef;
  /** A live object to overlay the template's places on. */
  readonly base: (next: Next) => JsonObject;
  readonly preferred: ReadonlyMap<string, number>;
  readonly occasional: ReadonlySet<string>;
}

/** The patch with one key of a planned level deleted (the levels on the way copied). */
function withoutOneKey(next: Next, value: JsonObject, level: Level): JsonObject {
  const out = { ...value };
  const deeper = level.entries.filter((e) => (e.child !== undefined && isMap(value[e.key])) || (e.items !== undefined && Array.isArray(value[e.key]) && (value[e.key] as JsonValue[]).some(isMap)));
  if (deeper.length > 0 && chance(next, 0.7)) {
    const e = pick(next, deeper);
    const v = value[e.key]!;
    if (e.child !== undefined && isMap(v)) out[e.key] = withoutOneKey(next, v, e.child);
    else {
      const list = [...(v as JsonValue[])];
      const maps = list.flatMap((x, i) => (isMap(x) ? [i] : []));
      const i = pick(next, maps);
      list[i] = withoutOneKey(next, list[i] as JsonObject, e.items!);
      out[e.key] = list;
    }
  } else delete out[pick(next, level.entries).key];
  return out;
}

/** One template's merges by the generated code and by the loop, each with its own walk and shape. */
class Comparison {
  // One shape per walk, kept over the template's patches as a merge op keeps it (its plans memoize constants).
  private readonly codeShape: PatchShape;
  private readonly loopShape: PatchShape;

  constructor(
    private readonly kind: Kind,
    private readonly template: PatchTemplate,
    private readonly walks: { readonly code: ObservedWalk; readonly loop: ObservedWalk },
    private readonly counts: Counts,
  ) {
    this.codeShape = new PatchShape(template);
    this.loopShape = new PatchShape(template);
  }

  private merge(byLoop: boolean, live: JsonValue, patch: JsonObject, owned?: InPlaceMaps): JsonValue | undefined {
    const { schema, typeRef } = this.kind;
    return applyFused(schema, typeRef, live, patch, new CheckedSubtrees(schema), owned, byLoop ? this.walks.loop : this.walks.code, byLoop ? this.loopShape : this.codeShape);
  }

  /** How the outermost planned merge of both walks ended (the same, asserted), and reset. */
  private outcome(info: string): ObservedWalk['outcome'] {
    const { code, loop } = this.walks;
    expect(code.outcome, info).toBe(loop.outcome);
    const outcome = code.outcome;
    code.outcome = loop.outcome = 'none';
    return outcome;
  }

  /** Both merges of `patch` into `live` (unowned): the same result, sharing, give-up; inputs unchanged. */
  unowned(label: string, live: JsonObject, patch: JsonObject): { result: JsonValue | undefined; outcome: ObservedWalk['outcome'] } {
    const patchBefore = JSON.stringify(patch);
    const liveBefore = JSON.stringify(live);
    const byCode = this.merge(false, live, patch);
    const byLoop = this.merge(true, live, patch);
    const info = `${label}: template ${JSON.stringify(this.template)}\npatch ${patchBefore}\nlive ${liveBefore}`;
    const outcome = this.outcome(info);
    expect(JSON.stringify(byCode), info).toBe(JSON.stringify(byLoop));
    expect(byCode === live, info).toBe(byLoop === live);
    expect(sharing(byCode, live, patch), info).toBe(sharing(byLoop, live, patch));
    // inPlace tells of the last result (an early give-up leaves it as it was).
    if (byCode !== undefined) expect(this.walks.code.inPlace || this.walks.loop.inPlace, info).toBe(false);
    expect(JSON.stringify(live), `${info}: live left as it was`).toBe(liveBefore);
    expect(JSON.stringify(patch), `${info}: patch left as it was`).toBe(patchBefore);

    // Merged again into its own result, a patch changes nothing: the result itself, or a give-up (a list appended to).
    if (byCode !== undefined && byLoop !== undefined) {
      const again = this.merge(false, byCode, patch);
      const againByLoop = this.merge(true, byLoop, patch);
      this.outcome(`${info}: merged again`);
      expect(again === undefined ? 'gave up' : again === byCode, `${info}: merged again`).toBe(againByLoop === undefined ? 'gave up' : againByLoop === byLoop);
      if (again !== undefined) expect(again, `${info}: merged again`).toBe(byCode);
      if (again === byCode) this.counts.identity++;
    }
    return { result: byCode, outcome };
  }

  /** Both merges with the maps at `paths` owned (as if earlier merges made them), each on its own copy of `live`. */
  owned(label: string, live: JsonObject, patch: JsonObject, paths: readonly string[]): void {
    const patchBefore = JSON.stringify(patch);
    const liveBefore = JSON.stringify(live);
    const liveForCode = copyDeep(live) as JsonObject;
    const liveForLoop = copyDeep(live) as JsonObject;
    const ownedForCode = recordingOwned();
    const ownedForLoop = recordingOwned();
    for (const m of atPaths(liveForCode, paths)) ownedForCode.add(m);
    for (const m of atPaths(liveForLoop, paths)) ownedForLoop.add(m);
    ownedForCode.added.length = ownedForLoop.added.length = 0;
    const byCode = this.merge(false, liveForCode, patch, ownedForCode);
    const byLoop = this.merge(true, liveForLoop, patch, ownedForLoop);
    const info = `${label}: template ${JSON.stringify(this.template)}\npatch ${patchBefore}\nlive ${liveBefore}\nowned ${paths.join(' ')}`;
    this.outcome(info);
    expect(JSON.stringify(byCode), info).toBe(JSON.stringify(byLoop));
    expect(JSON.stringify(liveForCode), `${info}: writes in place`).toBe(JSON.stringify(liveForLoop));
    expect(byCode === liveForCode, info).toBe(byLoop === liveForLoop);
    if (byCode !== undefined) expect(this.walks.code.inPlace, `${info}: inPlace`).toBe(this.walks.loop.inPlace);
    expect(ownedForCode.added.length, `${info}: maps handed over`).toBe(ownedForLoop.added.length);
    expect(sharing(byCode, liveForCode, patch, ownedForCode.added), info).toBe(sharing(byLoop, liveForLoop, patch, ownedForLoop.added));
    expect(JSON.stringify(patch), `${info}: patch left as it was`).toBe(patchBefore);
    if (byCode === undefined) {
      // A give-up changes nothing, owned maps included, and hands nothing over.
      expect(JSON.stringify(liveForCode), `${info}: gave up`).toBe(liveBefore);
      expect(ownedForCode.added, `${info}: gave up`).toHaveLength(0);
    }
    if (byCode !== undefined && this.walks.code.inPlace) this.counts.ownedInPlace++;
    if (ownedForCode.added.length > 0) this.counts.ownedAdded++;
  }
}

/** The two walks over `seeds` templates of `kind`, four patches and live objects each. */
function compareWalks(kind: Kind, seeds: number, salt: number): Counts {
  const root = kind.schema.node(kind.typeRef);
  // One walk each for the whole run, as an evaluation keeps its walk over its merges (stale scratch lists included).
  const walks = { code: new ObservedWalk(), loop: new ObservedWalk(true) };
  const counts: Counts = { cases: 0, noPlan: 0, merged: 0, gaveUp: 0, missingKeyGaveUp: 0, identity: 0, ownedInPlace: 0, ownedAdded: 0, fromCel: 0 };
  for (let seed = 1; seed <= seeds; seed++) {
    const next: Next = Object.assign(mulberry32(seed * 977 + salt), { preferred: kind.preferred, occasional: kind.occasional });
    const level = makeLevel(next, root, 0);
    let template = templateOf(level);
    if (chance(next, 0.45) && celExpressible(level)) {
      const text = celOf(next, level, 'Object');
      expect(templateOfCel(text), `seed ${seed}: template of ${text}`).toEqual(template);
      template = templateOfCel(text)!;
      counts.fromCel++;
    }
    expectPlanOf(planMap(template, root), level, root, `seed ${seed} $`);
    const planned = planMap(template, root) !== undefined;
    const comparison = new Comparison(kind, template, walks, counts);
    for (let c = 0; c < 4; c++) {
      const label = `seed ${seed}.${c}`;
      counts.cases++;
      const patch = levelValue(next, level, chance(next, 0.5) ? 0 : 0.08);
      const live = makeLive(next, kind, level, patch);
      const { outcome } = comparison.unowned(label, live, patch);
      if (!planned) counts.noPlan++;
      else if (outcome === 'merged') counts.merged++;
      else if (outcome === 'gaveUp') counts.gaveUp++;
      comparison.owned(label, live, patch, ownedPaths(live, next));
      // A patch that merged, with a key of its template missing: the plan must give up as the loop does.
      if (outcome === 'merged') {
        const missing = withoutOneKey(next, patch, level);
        if (comparison.unowned(`${label} (a key missing)`, live, missing).outcome === 'gaveUp') counts.missingKeyGaveUp++;
        comparison.owned(`${label} (a key missing)`, live, missing, ownedPaths(live, next));
      }
    }
  }
  return counts;
}

describe('the generated planned merge (fused-plan-code.ts)', () => {
  it('does what the walk loop does over random Pod templates, patches and live Pods, with and without owned maps', () => {
    const pods = makePods(12);
    const counts = compareWalks({ ...POD, base: (next) => fresh(pick(next, pods)) as JsonObject, preferred: POD_PREFERRED, occasional: POD_ATOMIC }, 320, 0);
    // Not vacuous: plans merged and plans that gave up, under both ownerships, and templates with no plan.
    expect(counts.merged, JSON.stringify(counts)).toBeGreaterThan(400);
    expect(counts.gaveUp, JSON.stringify(counts)).toBeGreaterThan(250);
    expect(counts.noPlan, JSON.stringify(counts)).toBeGreaterThan(10);
    expect(counts.missingKeyGaveUp, JSON.stringify(counts)).toBeGreaterThan(400);
    expect(counts.identity, JSON.stringify(counts)).toBeGreaterThan(300);
    expect(counts.ownedInPlace, JSON.stringify(counts)).toBeGreaterThan(150);
    expect(counts.ownedAdded, JSON.stringify(counts)).toBeGreaterThan(150);
    expect(counts.fromCel, JSON.stringify(counts)).toBeGreaterThan(100);
  });

  it('does what the walk loop does where the Pod schema cannot tell: guards below element types, deduced and mixed nodes', () => {
    const root = WIDGET.node(WIDGET_ROOT);
    const counts = compareWalks({ schema: WIDGET, typeRef: WIDGET_ROOT, base: (next) => ({ apiVersion: 'v1', kind: 'Widget', ...(valueAt(next, root, 1) as JsonObject) }), preferred: WIDGET_PREFERRED, occasional: new Set() }, 250, 1);
    expect(counts.merged, JSON.stringify(counts)).toBeGreaterThan(200);
    expect(counts.gaveUp, JSON.stringify(counts)).toBeGreaterThan(300);
    expect(counts.missingKeyGaveUp, JSON.stringify(counts)).toBeGreaterThan(150);
    expect(counts.identity, JSON.stringify(counts)).toBeGreaterThan(100);
    expect(counts.ownedInPlace, JSON.stringify(counts)).toBeGreaterThan(80);
  });

  it('does what the walk loop does at the edges the random runs meet rarely', () => {
    const U = undefined;
    const leaf = (...keys: string[]): PatchTemplate => ({ keys, children: keys.map(() => U), items: keys.map(() => U) });
    const at = (key: string, child: PatchTemplate): PatchTemplate => ({ keys: [key], children: [child], items: [U] });
    const itemsAt = (key: string, items: PatchTemplate): PatchTemplate => ({ keys: [key], children: [U], items: [items] });
    const pod: Kind = { ...POD, base: () => ({}), preferred: new Map(), occasional: new Set() };
    const widget: Kind = { schema: WIDGET, typeRef: WIDGET_ROOT, base: () => ({}), preferred: new Map(), occasional: new Set() };
    const containers = (items: PatchTemplate): PatchTemplate => at('spec', itemsAt('containers', items));
    const cases: [string, Kind, PatchTemplate, JsonObject, JsonObject, ObservedWalk['outcome']][] = [
      ['an atomic list below an element type (the guard is off there)', widget, at('spec', at('byName', at('k', leaf('flags')))), { spec: { byName: {} } }, { spec: { byName: { k: { flags: ['a'] } } } }, 'merged'],
      ['an atomic map in a new value below an element type', widget, at('spec', at('byName', leaf('k'))), { spec: { byName: { j: {} } } }, { spec: { byName: { k: { conf: { x: 'y' } } } } }, 'merged'],
      ['an atomic list below a declared field', widget, at('spec', at('nested', leaf('args'))), { spec: { nested: {} } }, { spec: { nested: { args: ['a'] } } }, 'gaveUp'],
      ['a deduced value the patch lacks', widget, at('spec', leaf('extra')), { spec: { extra: 'x' } }, { spec: {} }, 'gaveUp'],
      ['a deduced map entry the patch lacks', widget, at('spec', at('extra', leaf('a'))), { spec: { extra: { a: 1 } } }, { spec: { extra: {} } }, 'gaveUp'],
      ['a deduced map entry', widget, at('spec', at('extra', leaf('a', 'b'))), { spec: { extra: { a: 1 } } }, { spec: { extra: { a: 1, b: [2] } } }, 'merged'],
      ['as many containers, other names: appended', pod, containers(leaf('name', 'image')), { spec: { containers: [{ name: 'app', image: 'a' }] } }, { spec: { containers: [{ name: 'w', image: 'b' }] } }, 'merged'],
      ['the same names in order: merged pairwise', pod, containers(leaf('name', 'image')), { spec: { containers: [{ name: 'app', image: 'a' }, { name: 'side-1' }] } }, { spec: { containers: [{ name: 'app', image: 'b' }, { name: 'side-1', image: 'c' }] } }, 'merged'],
      ['the same names in another order', pod, containers(leaf('name', 'image')), { spec: { containers: [{ name: 'app' }, { name: 'side-1' }] } }, { spec: { containers: [{ name: 'side-1', image: 'c' }, { name: 'app', image: 'b' }] } }, 'gaveUp'],
      ['a container without its template key', pod, containers(leaf('name', 'image')), { spec: { containers: [{ name: 'app', image: 'a' }] } }, { spec: { containers: [{ name: 'app' }] } }, 'gaveUp'],
      [
        'a port without its template key, merged pairwise',
        pod,
        containers({ keys: ['name', 'ports'], children: [U, U], items: [U, leaf('containerPort', 'protocol', 'name')] }),
        { spec: { containers: [{ name: 'app', ports: [{ containerPort: 8000, protocol: 'TCP' }] }] } },
        { spec: { containers: [{ name: 'app', ports: [{ containerPort: 8000, protocol: 'TCP' }] }] } },
        'gaveUp',
      ],
      ['a number for a string the live object has', pod, at('metadata', at('labels', leaf('a'))), { metadata: { labels: { a: 'x' } } }, { metadata: { labels: { a: 7 } } }, 'gaveUp'],
      ['an appended container that does not type', pod, containers(leaf('name', 'image')), { spec: { containers: [{ name: 'app' }] } }, { spec: { containers: [{ name: 'w', image: 7 }] } }, 'gaveUp'],
      ['a label key objects inherit, missing from the patch', pod, at('metadata', at('labels', leaf('constructor'))), { metadata: { labels: {} } }, { metadata: { labels: {} } }, 'gaveUp'],
      ['a label key objects inherit', pod, at('metadata', at('labels', leaf('constructor', 'a.b/c'))), { metadata: { labels: { constructor: 'x' } } }, { metadata: { labels: { constructor: 'x', 'a.b/c': 'y' } } }, 'merged'],
    ];
    for (const [name, kind, template, live, patch, expected] of cases) {
      const comparison = new Comparison(kind, template, { code: new ObservedWalk(), loop: new ObservedWalk(true) }, { cases: 0, noPlan: 0, merged: 0, gaveUp: 0, missingKeyGaveUp: 0, identity: 0, ownedInPlace: 0, ownedAdded: 0, fromCel: 0 });
      // Fresh, then frozen as a compiled constant, twice each: the plan's memo of typed constants is used the second time.
      const frozen = deepFreeze(copyDeep(patch) as JsonObject);
      for (const p of [patch, patch, frozen, frozen]) {
        expect(comparison.unowned(name, live, p).outcome, name).toBe(expected);
        comparison.owned(name, live, p, ['$']);
      }
    }
  });
});
