import type { Origin } from '../diagnostics/span.js';
import type { JsonScalar } from './json.js';

/** Where a path starts. `vars` paths begin with a field segment naming the bound variable. */
export type PathRoot = 'object' | 'oldObject' | 'request' | 'params' | 'namespaceObject' | 'vars';

/**
 * A condition checked while walking to a segment (Gatekeeper's pathTests, Kyverno's `+()` anchor):
 * `exist` lets the walk continue only where the segment exists; `notExist` only where it is missing.
 * A failed test silently skips that branch, and nothing is created on it.
 */
export type SegmentTest = 'exist' | 'notExist';

export type Segment = FieldSegment | IndexSegment | AppendSegment | KeyedSegment | KeyedGlobSegment | EachSegment;

export interface FieldSegment {
  kind: 'field';
  name: string;
  test?: SegmentTest;
}

/** A list position (JSON Patch `/0`); negative counts from the end where the engine allows it. */
export interface IndexSegment {
  kind: 'index';
  index: number;
  test?: SegmentTest;
}

/** The position after the last element (JSON Patch `/-`). */
export interface AppendSegment {
  kind: 'append';
}

/**
 * The list elements whose `key` field equals `value` (type-sensitive). With `create`, a missing element
 * `{key: value}` is appended (Gatekeeper `[name: foo]`); without it, a missing element stops the walk.
 */
export interface KeyedSegment {
  kind: 'keyed';
  key: string;
  value: JsonScalar;
  create: boolean;
  test?: SegmentTest;
}

/** Every list element that is a map (Gatekeeper `[name: *]`); never creates. */
export interface KeyedGlobSegment {
  kind: 'keyedGlob';
  key: string;
  test?: SegmentTest;
}

/** Every element of a list; never creates. */
export interface EachSegment {
  kind: 'each';
}

export interface Path {
  root: PathRoot;
  segments: Segment[];
  origin?: Origin;
}

export function path(root: PathRoot, segments: Segment[], origin?: Origin): Path {
  return origin ? { root, segments, origin } : { root, segments };
}

export function field(name: string, test?: SegmentTest): FieldSegment {
  return test ? { kind: 'field', name, test } : { kind: 'field', name };
}

export function segmentsEqual(a: Segment, b: Segment): boolean {
  if (a.kind !== b.kind) return false;
  switch (a.kind) {
    case 'field':
      return a.name === (b as FieldSegment).name && a.test === (b as FieldSegment).test;
    case 'index':
      return a.index === (b as IndexSegment).index && a.test === (b as IndexSegment).test;
    case 'keyed': {
      const k = b as KeyedSegment;
      return a.key === k.key && a.value === k.value && a.create === k.create && a.test === k.test;
    }
    case 'keyedGlob':
      return a.key === (b as KeyedGlobSegment).key && a.test === (b as KeyedGlobSegment).test;
    default:
      return true;
  }
}

/** True when the path can reach more than one place (a glob or an each segment). */
export function isMultiPath(p: Path): boolean {
  return p.segments.some((s) => s.kind === 'keyedGlob' || s.kind === 'each');
}
