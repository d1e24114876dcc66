/**
 * structured-merge-diff's ValidationError(s) (typed/helpers.go): a path string built from path elements
 * (`.spec`, `[name="x"]`, `[=v]`, `[0]`) and a message; several errors render as "errors:\n  e1\n  e2".
 * Path elements of list items are rendered only when an error is reported.
 */
import type { JsonValue } from '../../ir/json.js';
import { associativeItemString } from './list-keys.js';
import type { ListType, Schema } from './schema.js';

export interface ValidationError {
  /** Concatenated path elements, "" at the root. */
  readonly path: string;
  readonly message: string;
}

export function formatValidationError(e: ValidationError): string {
  return e.path === '' ? e.message : `${e.path}: ${e.message}`;
}

/** ValidationErrors.Error(). */
export function formatValidationErrors(errs: readonly ValidationError[]): string {
  if (errs.length === 1) return formatValidationError(errs[0]!);
  return ['errors:', ...errs.map((e) => `  ${formatValidationError(e)}`)].join('\n');
}

/**
 * A path segment, rendered only when an error is reported: a field name (`.name`), an index (`[3]`), or an
 * associative item (`[name="x"]`, `[=v]`): its list type, the item kept alongside.
 */
export type PathSegment = string | number | ListType;

/** Path stacks of finished walks, reused so that a walk allocates nothing for its path. */
const spareSegments: PathSegment[][] = [];
const spareItems: JsonValue[][] = [];

/** The walk's current path plus the errors found so far. */
export class ErrorSink {
  readonly errors: ValidationError[] = [];
  // Parallel stacks (no object per pushed item: the walk pushes one segment per value it visits), written
  // up to `depth`; entries above it are stale.
  private readonly segments: PathSegment[];
  private readonly items: JsonValue[];
  private depth = 0;
  /** Whether an item was pushed (only then do `items` hold values to let go of at release). */
  private heldItems = false;

  constructor(private readonly schema: Schema) {
    this.segments = spareSegments.pop() ?? [];
    this.items = spareItems.pop() ?? [];
  }

  push(segment: string | number): void {
    this.segments[this.depth] = segment;
    this.items[this.depth++] = null;
  }

  pushItem(list: ListType, item: JsonValue): void {
    this.heldItems = true;
    this.segments[this.depth] = list;
    this.items[this.depth++] = item;
  }

  pop(): void {
    this.depth--;
  }

  /**
   * Hands the path stacks to the next walk (the errors stay readable). Call once, when the walk is over;
   * forgetting to only costs the reuse.
   */
  release(): void {
    if (this.heldItems) this.items.fill(null);
    spareSegments.push(this.segments);
    spareItems.push(this.items);
  }

  /** Records an error at the current path, optionally under one more rendered element (e.g. `.field`). */
  report(message: string, extra?: string): void {
    let path = '';
    for (let i = 0; i < this.depth; i++) {
      const s = this.segments[i]!;
      if (typeof s === 'string') path += `.${s}`;
      else if (typeof s === 'number') path += `[${s}]`;
      else path += associativeItemString(this.schema, s, this.items[i]!);
    }
    if (extra !== undefined) path += extra;
    this.errors.push({ path, message });
  }

  get count(): number {
    return this.errors.length;
  }

  /** Drops errors recorded after `count` (upstream swallows list-item merge errors; see merge.ts). */
  truncate(count: number): void {
    // Writing `length` costs even when it does not change, and nearly every call has nothing to drop.
    if (this.errors.length !== count) this.errors.length = count;
  }
}
