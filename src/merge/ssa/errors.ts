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

/** An associative-list item whose path element is rendered on demand. */
interface ItemSegment {
  readonly list: ListType;
  readonly item: JsonValue;
}

/**
 * A path segment, rendered only when an error is reported: a field name (`.name`), an index (`[3]`), or an
 * associative item (`[name="x"]`, `[=v]`).
 */
export type PathSegment = string | number | ItemSegment;

/** The walk's current path plus the errors found so far. */
export class ErrorSink {
  readonly errors: ValidationError[] = [];
  private readonly segments: PathSegment[] = [];

  constructor(private readonly schema: Schema) {}

  push(segment: PathSegment): void {
    this.segments.push(segment);
  }

  pushItem(list: ListType, item: JsonValue): void {
    this.segments.push({ list, item });
  }

  pop(): void {
    this.segments.pop();
  }

  /** Records an error at the current path, optionally under one more rendered element (e.g. `.field`). */
  report(message: string, extra?: string): void {
    let path = '';
    for (const s of this.segments) {
      if (typeof s === 'string') path += `.${s}`;
      else if (typeof s === 'number') path += `[${s}]`;
      else path += associativeItemString(this.schema, s.list, s.item);
    }
    if (extra !== undefined) path += extra;
    this.errors.push({ path, message });
  }

  get count(): number {
    return this.errors.length;
  }

  /** Drops errors recorded after `count` (upstream swallows list-item merge errors; see merge.ts). */
  truncate(count: number): void {
    this.errors.length = count;
  }
}
