/**
 * The containers known to be in normal form (merge.ts isNormal) across the merges of one evaluation, with
 * the schema each was checked under. Merge results are recorded in a short ring: the next rule's merge
 * meets the previous result, so recent entries answer, and a ring costs no hashing or table growth (a Map
 * entry per result is dearer than the walk it saves). Containers the merge had to verify (subtrees no rule
 * touches, such as a Pod's containers) go into a Map, where they stay for the whole evaluation.
 */
const RING = 8;

export class NormalForms {
  private readonly recent: (object | undefined)[] = new Array<object | undefined>(RING).fill(undefined);
  private readonly recentSchemas: (object | undefined)[] = new Array<object | undefined>(RING).fill(undefined);
  private next = 0;
  private verified: Map<object, object> | undefined;

  /** Whether `v` is known to be in normal form under `schema`. */
  has(v: object, schema: object): boolean {
    const recent = this.recent;
    for (let i = 0; i < RING; i++) if (recent[i] === v && this.recentSchemas[i] === schema) return true;
    return this.verified !== undefined && this.verified.get(v) === schema;
  }

  /** A merge result, in normal form by construction. */
  addResult(v: object, schema: object): void {
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
    this.verified?.delete(v);
  }

  /** A container found in normal form by walking it. */
  addVerified(v: object, schema: object): void {
    (this.verified ??= new Map()).set(v, schema);
  }
}
