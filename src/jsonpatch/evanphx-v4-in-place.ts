/**
 * applyEvanphxV4 (evanphx-v4.ts) for the patches MAP's JSONPatch mutations nearly always are: add, replace and
 * remove steps that succeed. Containers the caller owns (the evaluation created them and nothing else
 * references them, see MergeOwnership in src/interpreter/engines.ts) are changed in place; every other
 * container on a step's path is copied once, and the copies are handed to the owner on commit.
 *
 * It answers only when every step succeeds as the reference's would: anything else (a `test`, `move` or
 * `copy` step, the whole-document path, a missing or null container on the way, a bad array index, removing
 * a member that is not there) gives up, restoring every container it changed, and the caller runs
 * evanphx-v4.ts, which words the error (test/engines/ssa-fused.test.ts compares the two).
 */
import { copyObject, defineOwn, hasOwn, type JsonObject, type JsonValue } from '../ir/json.js';
import { copyForNewKeys } from '../ir/json-copy.js';
import type { PatchStep } from './apply.js';
import { arrayAddIndex, arrayGetIndex, EvanphxError } from './evanphx-common.js';
import { decodedPath } from './evanphx-v4.js';

type Container = JsonObject | JsonValue[];

/** The containers a patch may change in place, and where it hands over the ones it creates. */
export interface OwnedContainers {
  has(v: object): boolean;
  add(v: object): void;
}

/**
 * A place a step set (add or replace): `path`, the step's decoded path (its first piece is dropped, see
 * evanphx-v4.ts), and `items`, which of its pieces index an array (`items[i]` for `path[i + 1]`), undefined
 * when none does.
 */
export interface PatchSet {
  readonly path: readonly string[];
  readonly items: readonly boolean[] | undefined;
  readonly value: JsonValue;
  /** The step's PlaceMemo when its path does not change and no piece of it indexes an array, else undefined. */
  readonly memo: PlaceMemo | undefined;
}

/**
 * A slot for what a reader of PatchSet derives from a place alone, kept with a step whose path does not change
 * (PatchStep.place: the steps of a JSONPatch literal, the constant lists src/interpreter/ops/json-patch.ts
 * prepares), so that it is derived once rather than at every evaluation: `derived`, made from `from`. The
 * strict decode keeps there the type node the path reaches from the kind's root (src/engines/ssa.ts).
 */
export class PlaceMemo {
  from: unknown = undefined;
  derived: unknown = undefined;
  /**
   * A frozen value (a constant: frozen whole, see holdsAny in src/interpreter/ops/merge.ts) the reader found
   * fine at the place since `from`, so that the same constant is checked once: the strict decode keeps there
   * the value it found declaring every field below the place's type node.
   */
  fineValue: unknown = undefined;
  /**
   * A frozen value found to type strictly and decode at the place since `from` (src/compile/map-run-patch.ts):
   * the same constant, set by the same step at every evaluation, is checked once.
   */
  typedValue: unknown = undefined;
  /** The type node `typedValue` was checked at. */
  typedAt: unknown = undefined;
  /** Code written for the place by a reader that walks it (src/compile/member-place-code.ts), null where none can be. */
  code: unknown = undefined;
}

export interface InPlacePatch {
  /** The document the patch was applied to. */
  readonly from: JsonValue;
  readonly doc: JsonValue;
  /** Owned containers changed in place (the root first when it is one): facts kept about them are stale. */
  readonly changed: readonly object[];
  readonly sets: readonly PatchSet[];
  /** The document surely is not jsonEqual to `from` (a member added, an item inserted or taken out); false: not known. */
  readonly differs: boolean;
  /** Hands the containers the patch created to the owner. */
  commit(): void;
}

/** Marks a log entry that holds a shallow copy to restore (see InPlaceRun.log). */
const SAVED: unique symbol = Symbol('saved copy');

/**
 * The patch applied with in-place writes into `owned`, or undefined (nothing changed) when the reference must run.
 * `record`: where to write the usual patch's account (see MemberSets), reused by a caller that applies one
 * patch at a time and is done with the last one's account; a new one when left out.
 */
export function applyEvanphxV4InPlace(doc: JsonValue, steps: readonly PatchStep[], owned: OwnedContainers, record?: MemberSets): InPlacePatch | undefined {
  if (onlyMemberSets(steps)) {
    const set = setMembers(doc, steps, owned, record ?? new MemberSets());
    if (set !== undefined) return set;
  }
  // A step fails before it writes anything: only a later step's failure has earlier ones to undo.
  const run = new InPlaceRun(doc, owned, steps.length > 1);
  for (let i = 0; i < steps.length; i++) {
    let ok: boolean;
    try {
      ok = run.step(steps[i]!);
    } catch (e) {
      // An index the reference rejects (its words come from there).
      if (!(e instanceof EvanphxError)) throw e;
      ok = false;
    }
    if (!ok) {
      run.undo();
      return undefined;
    }
  }
  return run;
}

/** Every step is an add or replace below the root (what setMembers may take). */
function onlyMemberSets(steps: readonly PatchStep[]): boolean {
  for (let i = 0; i < steps.length; i++) {
    const s = steps[i]!;
    if ((s.op !== 'add' && s.op !== 'replace') || s.path === '') return false;
  }
  return true;
}

/**
 * The usual patch (MAP policies add or replace a label, an annotation, a field; a step or two): adds and
 * replaces of object members, every container from the root down to each member's map an object. A member
 * that already holds that scalar is left as it is (a policy applied again, reinvocation): nothing written,
 * nothing to forget. Else the containers on the path are made writable as InPlaceRun makes them (owned ones
 * reached through owned ones in place, the others copied) and the member is set, with what InPlaceRun would
 * tell of it, without its chain, item and index bookkeeping. Undefined, with nothing changed, for any other
 * document (an array or a missing container on a path): InPlaceRun takes the patch then.
 */
function setMembers(doc: JsonValue, steps: readonly PatchStep[], owned: OwnedContainers, sets: MemberSets): InPlacePatch | undefined {
  sets.start(doc, owned, steps.length);
  for (let i = 0; i < steps.length; i++) {
    if (!sets.set(steps[i]!)) {
      sets.undo();
      return undefined;
    }
  }
  return sets;
}

/** A PatchSet a MemberSets fills again at each patch. */
interface ReusedSet {
  path: readonly string[];
  items: undefined;
  value: JsonValue;
  memo: PlaceMemo | undefined;
}

/**
 * setMembers' account of a patch. A JSONPatch op applies one patch at a time and is done with its account
 * before the next (the strict decode reads it, src/interpreter/ops/json-patch.ts): it keeps one and has it
 * filled again (start), arrays and PatchSets included, so that the usual patch allocates nothing of its own
 * (its account was about a tenth of what a MAP request allocated).
 */
export class MemberSets implements InPlacePatch {
  from: JsonValue = null;
  doc: JsonValue = null;
  differs = false;
  readonly changed: object[] = [];
  readonly sets: ReusedSet[] = [];
  /** PatchSets made so far, `sets` holding the first of them. */
  private readonly setPool: ReusedSet[] = [];
  /** Containers this patch copied: written freely, handed to the owner on commit. */
  private readonly created: object[] = [];
  /** (map, key, had, old value) per owned member set, to undo; not kept for one step (nothing to undo). */
  private readonly log: unknown[] = [];
  private owned: OwnedContainers | undefined = undefined;
  private stepCount = 0;

  /** Empties the account for a patch of `stepCount` steps on `from`. */
  start(from: JsonValue, owned: OwnedContainers, stepCount: number): void {
    this.from = this.doc = from;
    this.owned = owned;
    this.stepCount = stepCount;
    this.differs = false;
    empty(this.changed);
    empty(this.sets);
    empty(this.created);
    empty(this.log);
  }

  /** One step; false when a container on its path is not an object. */
  set(s: PatchStep): boolean {
    const split = s.segments ?? decodedPath(s.path);
    const last = split.length - 1;
    if (last < 1) return false;
    // findObject, reading only: the step either fails before anything is written or succeeds. `lead`: how
    // many containers from the root are owned and reached through owned ones (written in place).
    const owned = this.owned!;
    let cur: JsonValue | undefined = this.doc;
    let lead = 0;
    for (let i = 1; ; i++) {
      if (cur === undefined || cur === null || typeof cur !== 'object' || Array.isArray(cur)) return false;
      if (lead === i - 1 && owned.has(cur)) lead = i;
      if (i === last) break;
      cur = ownMember(cur, split[i]!);
    }
    const key = split[last]!;
    const value = s.hasValue === false ? null : (s.value ?? null);
    const had = ownMember(cur, key);
    if ((value === null || typeof value !== 'object') && had === value) return true;
    // A one-step patch that adds a member surely differs (a later step may take it out again).
    if (this.stepCount === 1 && had === undefined) this.differs = true;
    this.setMember(this.writable(split, last, lead), key, value);
    const n = this.sets.length;
    let set = this.setPool[n];
    if (set === undefined) this.setPool.push((set = { path: split, items: undefined, value, memo: s.place }));
    else {
      set.path = split;
      set.value = value;
      set.memo = s.place;
    }
    this.sets.push(set);
    return true;
  }

  /**
   * InPlaceRun.writable for a path of objects (set checked them): the map at split[1 .. last - 1], the first
   * `lead` containers written in place, the others copied unless this patch created them.
   */
  private writable(split: readonly string[], last: number, lead: number): JsonObject {
    let c = this.doc as JsonObject;
    let parent: JsonObject | undefined;
    for (let i = 1; ; i++) {
      let w: JsonObject;
      if (i <= lead) {
        w = c;
        if (this.stepCount === 1 || !this.changed.includes(c)) this.changed.push(c);
      } else if (this.created.length > 0 && this.created.includes(c)) w = c;
      else {
        // Handed to the owner on commit: later mutations write into it in place, mostly adding keys (json-copy.ts).
        w = copyForNewKeys(c);
        this.created.push(w);
        if (parent === undefined) this.doc = w;
        else this.setMember(parent, split[i - 1]!, w);
      }
      if (i === last) return w;
      parent = w;
      c = ownMember(w, split[i]!) as JsonObject;
    }
  }

  /** Sets a member, logging its old state when the patch has steps to undo and the map is not one it created. */
  private setMember(m: JsonObject, key: string, value: JsonValue): void {
    if (this.stepCount > 1 && !this.created.includes(m)) {
      const had = hasOwn(m, key);
      this.log.push(m, key, had, had ? m[key] : undefined);
    }
    defineOwn(m, key, value);
  }

  /** Restores every owned member the patch set (the document is then the one given, unchanged). */
  undo(): void {
    const log = this.log;
    this.doc = this.from;
    for (let i = log.length - 4; i >= 0; i -= 4) {
      const m = log[i] as JsonObject;
      const key = log[i + 1] as string;
      if (log[i + 2] === true) defineOwn(m, key, log[i + 3] as JsonValue);
      else delete m[key];
    }
    empty(log);
  }

  commit(): void {
    const created = this.created;
    for (let i = 0; i < created.length; i++) this.owned!.add(created[i]!);
  }
}

/** Takes every item out (pop: a few items, no length store). */
function empty(list: unknown[]): void {
  while (list.length > 0) list.pop();
}

class InPlaceRun implements InPlacePatch {
  readonly changed: object[] = [];
  differs = false;
  readonly sets: PatchSet[] = [];
  /** Containers this patch copied: written freely, handed to the owner on commit. */
  private readonly created: Container[] = [];
  /**
   * How to restore the owned containers changed in place, in order: (map, key, had, old value) for a member
   * set, or (container, shallow copy, SAVED, undefined) before a removal or an array change. Undefined when
   * the patch has one step (nothing to undo).
   */
  private readonly log: unknown[] | undefined;
  /** (map, key) per member a step of this patch took out (patches of several steps only). */
  private removed: unknown[] | undefined = undefined;
  /** The containers on the current step's path, root first (`depth` of them). */
  private readonly chain: Container[] = [];
  private depth = 0;

  doc: JsonValue;

  constructor(
    readonly from: JsonValue,
    private readonly owned: OwnedContainers,
    undoable: boolean,
  ) {
    this.doc = from;
    this.log = undoable ? [] : undefined;
  }

  commit(): void {
    for (let i = 0; i < this.created.length; i++) this.owned.add(this.created[i]!);
  }

  /** Restores every owned container the patch changed (the document is then the one given, unchanged). */
  undo(): void {
    const log = this.log;
    if (log === undefined) return;
    for (let i = log.length - 4; i >= 0; i -= 4) {
      const c = log[i] as Container;
      if (log[i + 2] === SAVED) {
        restore(c, log[i + 1] as Container);
        continue;
      }
      const m = c as JsonObject;
      const key = log[i + 1] as string;
      if (log[i + 2] === true) defineOwn(m, key, log[i + 3] as JsonValue);
      else delete m[key];
    }
    log.splice(0);
  }

  /** One step; false when the reference must run. */
  step(s: PatchStep): boolean {
    const op = s.op;
    if ((op !== 'add' && op !== 'replace' && op !== 'remove') || s.path === '') return false;
    const split = s.segments ?? decodedPath(s.path);
    if (split.length < 2 || !this.locate(split)) return false;
    const c = this.chain[this.depth - 1]!;
    const key = split[split.length - 1]!;
    // Checked before anything is written: the step either fails whole or succeeds.
    let index = -1;
    if (Array.isArray(c)) {
      index = op === 'add' ? (key === '-' ? c.length : arrayAddIndex(c, key)) : arrayGetIndex(c, key);
      if (op !== 'replace') this.changesLength();
    } else if (op === 'remove') {
      if (!hasOwn(c, key)) return false;
      this.changesLength();
    } else {
      // A member this patch took out and now puts back moves to the end of its map: the document may then equal
      // the one given in all but key order, which only the reference (a copy) tells, keeping the given one.
      if (this.removed !== undefined && removedBefore(this.removed, c, key)) return false;
      if (!hasOwn(c, key)) this.changesLength();
    }
    const value = s.hasValue === false ? null : (s.value ?? null);
    const target = this.writable(split);
    if (Array.isArray(target)) {
      this.save(target);
      if (op === 'add') target.splice(index, 0, value);
      else if (op === 'replace') target[index] = value;
      else target.splice(index, 1);
    } else if (op === 'remove') {
      this.save(target);
      delete target[key];
      if (this.log !== undefined) (this.removed ??= []).push(target, key);
    } else {
      this.setMember(target, key, value);
    }
    if (op !== 'remove') {
      const items = this.items(split);
      this.sets.push({ path: split, items, value, memo: items === undefined ? s.place : undefined });
    }
    return true;
  }

  /** findObject: the containers along all but the last segment into `chain`; false when one is missing. */
  private locate(split: readonly string[]): boolean {
    const chain = this.chain;
    let cur = this.doc;
    if (cur === null || typeof cur !== 'object') return false;
    chain[0] = cur;
    for (let i = 1; i < split.length - 1; i++) {
      const k = split[i]!;
      const next: JsonValue | undefined = Array.isArray(cur) ? cur[arrayGetIndex(cur, k)] : ownMember(cur, k);
      if (next === undefined || next === null || typeof next !== 'object') return false;
      chain[i] = next;
      cur = next;
    }
    this.depth = split.length - 1;
    return true;
  }

  /**
   * Makes every container of `chain` writable, root first: an owned one reached through owned ones only is
   * written in place, any other is copied into its (writable) parent. Returns the last.
   */
  private writable(split: readonly string[]): Container {
    const chain = this.chain;
    const depth = this.depth;
    let throughOwned = true;
    let parent: Container | undefined;
    for (let i = 0; i < depth; i++) {
      const c = chain[i]!;
      let w: Container;
      if (this.created.includes(c)) {
        w = c;
        throughOwned = false;
      } else if (throughOwned && this.owned.has(c)) {
        w = c;
        if (!this.changed.includes(c)) this.changed.push(c);
      } else {
        throughOwned = false;
        // Handed to the owner on commit: later mutations write into it in place, mostly adding keys, which a
        // spread copy makes slow (json-copy.ts).
        w = Array.isArray(c) ? c.slice() : copyForNewKeys(c);
        this.created.push(w);
        if (parent === undefined) this.doc = w;
        else if (Array.isArray(parent)) {
          this.save(parent);
          parent[arrayGetIndex(parent, split[i]!)] = w;
        } else this.setMember(parent, split[i]!, w);
      }
      chain[i] = w;
      parent = w;
    }
    return chain[depth - 1]!;
  }

  /**
   * The step adds or takes out a member or an item: the document differs, when the patch has this one step (a
   * later step may undo it; a one-step patch has no log, see `log`).
   */
  private changesLength(): void {
    if (this.log === undefined) this.differs = true;
  }

  /** Logs a shallow copy of `c` before a change other than a member set, unless the patch created it. */
  private save(c: Container): void {
    if (this.log === undefined || this.created.includes(c)) return;
    this.log.push(c, Array.isArray(c) ? c.slice() : copyObject(c), SAVED, undefined);
  }

  /** Sets a member, logging its old state when the map is owned (not created by this patch). */
  private setMember(m: JsonObject, key: string, value: JsonValue): void {
    if (this.log !== undefined && !this.created.includes(m)) {
      const had = hasOwn(m, key);
      this.log.push(m, key, had, had ? m[key] : undefined);
    }
    defineOwn(m, key, value);
  }

  /** PatchSet.items for the step at `split`, whose containers are in `chain`. */
  private items(split: readonly string[]): boolean[] | undefined {
    const chain = this.chain;
    let items: boolean[] | undefined;
    for (let i = 0; i < this.depth; i++) {
      if (!Array.isArray(chain[i])) continue;
      items ??= new Array<boolean>(split.length - 1).fill(false);
      items[i] = true;
    }
    return items;
  }
}

/**
 * `m[key]` when it is an own member, else undefined (hasOwn, then the read), with one keyed read where it can:
 * what a JSON map inherits from Object.prototype is a function, or the map's prototype (`__proto__`).
 */
function ownMember(m: JsonObject, key: string): JsonValue | undefined {
  const v = m[key];
  if (v === undefined) return undefined;
  if (typeof v !== 'function' && key !== '__proto__') return v;
  return hasOwn(m, key) ? v : undefined;
}

/** Whether `removed` holds the pair (`m`, `key`). */
function removedBefore(removed: readonly unknown[], m: object, key: string): boolean {
  for (let i = 0; i < removed.length; i += 2) if (removed[i] === m && removed[i + 1] === key) return true;
  return false;
}

/** Puts back the members or items `c` had when `saved` was copied from it, in their order. */
function restore(c: Container, saved: Container): void {
  if (Array.isArray(c)) {
    c.length = 0;
    for (let i = 0; i < (saved as JsonValue[]).length; i++) c.push((saved as JsonValue[])[i]!);
    return;
  }
  for (const k of Object.keys(c)) delete c[k];
  const s = saved as JsonObject;
  for (const k of Object.keys(s)) defineOwn(c, k, s[k]!);
}
