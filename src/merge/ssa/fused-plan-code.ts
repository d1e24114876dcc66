/**
 * FusedWalk.mergePlanned (fused-apply.ts) written out per plan (issue 17). A policy's ApplyConfigurations
 * each have their own plan, and the walk's one loop over `plan.keys` reads `r[key]` and `l[key]` with every
 * key of every plan, so V8's look-ups there see a new map shape at nearly every read; here each plan's keys
 * are constants of its own function, its sub-plans' levels written inline, and a field that holds a scalar
 * (most of a patch: labels, annotations, images, flags) typed inline. Lists, values other than a planned
 * map or a scalar, and typing a value the live object lacks go back to the walk's own methods, as do the
 * writes (the walk's ownership and deferred writes, so a give-up still changes nothing).
 *
 * It makes the same checks in the same order as mergePlanned and returns the same value or gives up where
 * it does (test/merge/ssa/fused-plan-code.test.ts compares both over random plans and values; the engine's
 * tests against the reference merge run through it).
 */
import { Constants, instantiate, literal } from '../../compile/source.js';
import type { JsonObject, JsonValue } from '../../ir/json.js';
import { scalarOnly, type MapPlan } from './fused-plan.js';
import type { TypeNode } from './type-nodes.js';
import { keyedListMerge, type KeyedListWalk } from './keyed-list-merge.js';
import { scalarTest } from './typing-check.js';

/** What the generated merge calls back: FusedWalk's methods (structurally, to keep this module below fused-apply.ts). */
export interface PlannedMergeWalk extends KeyedListWalk {
  writable(l: JsonObject, patchKeys: readonly string[]): JsonObject;
  put(out: JsonObject, l: JsonObject, key: string, value: JsonValue): void;
  mergeValue(n: TypeNode, lv: JsonValue, rv: JsonValue, guard: boolean): unknown;
  typesPlanned(plan: MapPlan, r: JsonObject, guard: boolean): boolean;
  typesPlannedValue(plan: MapPlan, i: number, rv: JsonValue, guard: boolean): boolean;
}

/** mergePlanned of one plan: the merged value, or `giveUp`. */
export type PlannedMerge = (w: PlannedMergeWalk, lv: JsonValue, r: JsonObject, guard: boolean) => unknown;

/** Beyond this many keys in all (the plan and its sub-plans), the walk's loop is kept: code grows with the keys (and for `__proto__`). */
const MAX_KEYS = 64;

/** The plan's keys and its sub-plans', or Infinity when one is `__proto__` (a store would set the prototype). */
function keyCount(plan: MapPlan): number {
  if (plan.keys.includes('__proto__')) return Infinity;
  let n = plan.keys.length;
  for (const sub of plan.subPlans) if (sub !== undefined) n += keyCount(sub);
  return n;
}

class MergeWriter {
  readonly k = new Constants();
  private names = 0;

  constructor(
    private readonly giveUp: string,
    private readonly giveUpValue: symbol,
  ) {}

  private fresh(prefix: string): string {
    return `${prefix}${++this.names}`;
  }

  /**
   * FusedWalk.put, with a copy's member set here: a store with the key written in (a template's keys are
   * never `__proto__`, apply-template.ts) stays a named store V8 caches, where put's is keyed by any key.
   */
  private put(o: string, l: string, key: string, value: string): string {
    return `if (${o} === ${l}) w.put(${o}, ${l}, ${key}, ${value}); else ${o}[${key}] = ${value};`;
  }

  /** Statements that set `result` to mergePlanned(plan, l, r, guard) or return the give-up value. */
  write(plan: MapPlan, l: string, r: string, guard: string, result: string, out: string[]): void {
    const G = this.giveUp;
    const k = this.k;
    const keys = k.ref(plan.keys);
    out.push(`if (!isObject(${l})) {`, `if (!w.typesPlanned(${k.ref(plan)}, ${r}, ${guard})) return ${G};`, `${result} = ${r};`, '} else {');
    const o = this.fresh('o');
    out.push(`let ${o};`);
    for (let i = 0; i < plan.keys.length; i++) {
      const key = literal(plan.keys[i]!);
      const child = plan.children[i]!;
      const childGuard = plan.declared[i] ? guard : 'false';
      const rv = this.fresh('r');
      const old = this.fresh('l');
      const m = this.fresh('m');
      out.push(`const ${rv} = ${r}[${key}];`, `if (${rv} === undefined) return ${G};`, `if (own(${l}, ${key})) {`, `const ${old} = ${l}[${key}];`, `let ${m};`);
      const sub = plan.subPlans[i];
      const items = plan.itemPlans[i];
      if (sub !== undefined) {
        out.push(`if (!isObject(${rv})) return ${G};`);
        this.write(sub, old, rv, childGuard, m, out);
      } else if (items !== undefined) {
        const keyed = keyedListMerge(child, items, this.giveUpValue);
        const list = keyed !== undefined ? `${k.ref(keyed)}(w, ${old}, ${rv}, ${childGuard})` : `w.mergeList(${k.ref(child)}, ${k.ref(child.list)}, ${old}, ${rv}, ${childGuard}, ${k.ref(items)})`;
        out.push(`${m} = Array.isArray(${rv}) ? ${list} : w.mergeValue(${k.ref(child)}, ${old}, ${rv}, ${childGuard});`, `if (${m} === ${G}) return ${G};`);
      } else if (scalarOnly(child)) {
        out.push(`if (${rv} === null || typeof ${rv} === 'object' || !(${scalarTest(child.scalar, k, rv)})) return ${G};`, `${m} = ${rv};`);
      } else out.push(`${m} = w.mergeValue(${k.ref(child)}, ${old}, ${rv}, ${childGuard});`, `if (${m} === ${G}) return ${G};`);
      out.push(`if (${m} !== ${old}) {`, `if (${o} === undefined) ${o} = w.writable(${l}, ${keys});`, this.put(o, l, key, m), '}', '} else {');
      // typesPlannedValue's scalar case is typesStrictlyGuarded's: the node's scalar kind fits.
      if (scalarOnly(child)) out.push(`if (${rv} !== null && typeof ${rv} !== 'object') { if (!(${scalarTest(child.scalar, k, rv)})) return ${G}; }`, `else if (!w.typesPlannedValue(${k.ref(plan)}, ${i}, ${rv}, ${childGuard})) return ${G};`);
      else out.push(`if (!w.typesPlannedValue(${k.ref(plan)}, ${i}, ${rv}, ${childGuard})) return ${G};`);
      out.push(`if (${o} === undefined) ${o} = w.writable(${l}, ${keys});`, this.put(o, l, key, rv), '}');
    }
    out.push(`${result} = ${o} === undefined ? ${l} : ${o};`, '}');
  }
}

/**
 * The generated mergePlanned of `plan`, or undefined where the walk's loop stays (a plan too large, code that
 * cannot be generated under a content security policy). `giveUp` is the walk's give-up value.
 */
export function plannedMergeCode(plan: MapPlan, giveUp: symbol): PlannedMerge | undefined {
  if (keyCount(plan) > MAX_KEYS) return undefined;
  const writer = new MergeWriter('G', giveUp);
  const G = writer.k.ref(giveUp);
  const out: string[] = [];
  writer.write(plan, 'lv', 'r', 'guard', 'merged', out);
  const body = [`const G = ${G};`, 'const own = h.hasOwn;', 'const isObject = h.isJsonObject;', 'return (w, lv, r, guard) => {', 'let merged;', ...out, 'return merged;', '};'].join('\n');
  return instantiate<PlannedMerge>(body, writer.k);
}

