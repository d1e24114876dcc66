/**
 * The containers known to be in normal form (merge.ts isNormal) across the merges of one evaluation, with
 * the schema each was checked under. Merge results are recorded in a short ring: the next rule's merge
 * meets the previous result, so recent entries answer, and a ring costs no hashing or table growth (a Map
 * entry per result is dearer than the walk it saves). Lists the merge had to verify (subtrees no rule
 * touches, such as a Pod's containers) go into a Map, where they stay for the whole evaluation; maps are
 * not recorded (isNormal walks them again, cheaply once their lists are known).
 */
const RING = 8;

export class NormalForms {
  // RING entries each, as literals rather than `new Array(RING).fill()`: one NormalForms is made per
  // evaluation, and a literal is the cheapest packed array.
  private readonly recent: (object | undefined)[] = [undefined, undefined, undefined, undefined, undefined, undefined, undefined, undefined];
  private readonly recentSchemas: (object | undefined)[] = [undefined, undefined, undefined, undefined, undefined, undefined, undefined, undefined];
  private next = 0;
  private verified: Map<object, object> | undefined;
  /** Whether anything was ever recorded (the first walk of a document asks about every container). */
  private any = false;

  /** Whether `v` is known to be in normal form under `schema`. */
  has(v: object, schema: object): boolean {
    if (!this.any) return false;
    const recent = this.recent;
    for (let i = 0; i < RING; i++) if (recent[i] === v && this.recentSchemas[i] === schema) return true;
    return this.verified !== undefined && this.verified.get(v) === schema;
  }

  /** A merge result, in normal form by construction. */
  addResult(v: object, schema: object): void {
    this.any = true;
    const i = this.next;
    this.recent[i] = v;
    this.recentSchemas[i] = schema;
    this.next = i + 1 === RING ? 0 : i + 1;
  }

  /**
   * `v` was changed in place (an owned map, or a container above one): what was known of it may no longer
   * hold, e.g. under another schema than the merge that changed it used.
   */
  forget(v: object): void {
    const recent = this.recent;
    for (let i = 0; i < RING; i++) if (recent[i] === v) recent[i] = this.recentSchemas[i] = undefined;
    if (Array.isArray(v)) this.verified?.delete(v);
  }

  /**
   * `addResult` for each (container, schema) pair of `pairs` in order. Only the last RING pairs can stay in
   * the ring, so only they are added: the ring then holds what adding them all would leave.
   */
  addResults(pairs: readonly object[]): void {
    for (let i = Math.max(0, pairs.length - 2 * RING); i < pairs.length; i += 2) this.addResult(pairs[i]!, pairs[i + 1]!);
  }

  /**
   * `forget` for each of `containers`. A run of merges changes the same few containers in place again and
   * again (the object, its metadata, its labels), and forgetting is idempotent: a container equal to one of
   * the few before it is skipped.
   */
  forgetAll(containers: readonly object[]): void {
    for (let i = 0; i < containers.length; i++) {
      const v = containers[i]!;
      if (i > 0 && (v === containers[i - 1] || (i > 1 && (v === containers[i - 2] || (i > 2 && v === containers[i - 3]))))) continue;
      this.forget(v);
    }
  }

  /** A container found in normal form by walking it. */
  addVerified(v: unknown[], schema: object): void {
    this.any = true;
    (this.verified ??= new Map()).set(v, schema);
  }
}
