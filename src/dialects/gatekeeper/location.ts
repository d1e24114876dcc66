/**
 * The Gatekeeper location path (`spec.containers[name: foo].image`) as upstream models it
 * (pkg/mutation/path/parser/node.go): a flat list of Object and List nodes. A List node always follows the
 * Object node naming the list, so `spec.containers[name: foo]` is three nodes, and each node is one "depth"
 * for pathTests.
 *
 * Int64 key values are kept as `bigint` so that every value upstream accepts (up to 2^63-1) is exact here,
 * compares exactly in the pathTests prefix rule, and prints back unchanged. The IR stores key values as JSON
 * numbers; `locationToSegments` reports the keys above 2^53 that lose precision there.
 */
import type { KeyedGlobSegment, KeyedSegment, FieldSegment, Segment } from '../../ir/path.js';

/** Offsets of a node's text in the location string: [start, end). */
export interface TextRange {
  start: number;
  end: number;
}

export interface ObjectNode {
  type: 'Object';
  reference: string;
  range?: TextRange;
}

/** `[keyField: keyValue]`, or `[keyField: *]` when `glob`. `keyValue` is null exactly when `glob`. */
export interface ListNode {
  type: 'List';
  keyField: string;
  keyValue: string | bigint | null;
  glob: boolean;
  range?: TextRange;
  /** Where the key value is written, for diagnostics about it. */
  keyValueRange?: TextRange;
}

export type LocationNode = ObjectNode | ListNode;
export type LocationPath = readonly LocationNode[];

/** Node equality as upstream's `reflect.DeepEqual` sees it: ranges are not part of a node. */
export function nodesEqual(a: LocationNode, b: LocationNode): boolean {
  if (a.type === 'Object') return b.type === 'Object' && a.reference === b.reference;
  return b.type === 'List' && a.keyField === b.keyField && a.glob === b.glob && a.keyValue === b.keyValue;
}

export function hasMetadataRoot(p: LocationPath): boolean {
  const first = p[0];
  return first !== undefined && first.type === 'Object' && first.reference === 'metadata';
}

// ---------------------------------------------------------------------------------------------- printing

const GO_QUOTE_TRIGGERS = /['"\t\n \\*[\]:.]/;
const BARE_IDENT = /^[A-Za-z_-][A-Za-z0-9_-]*$/;

function quoted(s: string): string {
  return `"${s.replace(/\\/g, '\\\\').replace(/"/g, '\\"')}"`;
}

/** Upstream `quote` (node.go): quotes iff empty, starting with a digit, or containing `'"\t\n \*[]:.`. */
function goQuoteIdent(s: string): string {
  if (s.length === 0) return '""';
  if (GO_QUOTE_TRIGGERS.test(s) || (s.charCodeAt(0) >= 48 && s.charCodeAt(0) <= 57)) return quoted(s);
  return s;
}

/** Quotes whatever would not scan back as one bare identifier, so printing always round-trips. */
function canonicalQuoteIdent(s: string): string {
  return BARE_IDENT.test(s) ? s : quoted(s);
}

function render(p: LocationPath, q: (s: string) => string): string {
  let out = '';
  p.forEach((n, i) => {
    if (n.type === 'Object') {
      if (i > 0) out += '.';
      out += q(n.reference);
    } else if (n.glob) {
      out += `[${q(n.keyField)}: *]`;
    } else if (typeof n.keyValue === 'bigint') {
      out += `[${q(n.keyField)}: ${n.keyValue.toString()}]`;
    } else if (typeof n.keyValue === 'string') {
      out += `[${q(n.keyField)}: ${q(n.keyValue)}]`;
    } else {
      out += `[${q(n.keyField)}: ]`;
    }
  });
  return out;
}

/**
 * Exactly upstream `Path.String()`, for error messages that must read like Gatekeeper's. It does not always
 * round-trip: a name such as `a/b` or `é` is printed bare and no longer scans (an upstream quirk).
 */
export function goPathString(p: LocationPath): string {
  return render(p, goQuoteIdent);
}

/**
 * The canonical text of a location: upstream's rules, plus quoting of any name that is not a bare
 * identifier, so `parseLocation(printLocation(p))` always gives `p` back. Equal to `goPathString` whenever
 * upstream's output round-trips.
 */
export function printLocation(p: LocationPath): string {
  return render(p, canonicalQuoteIdent);
}

// ---------------------------------------------------------------------------------------------- to the IR

/** An int64 key the IR cannot hold exactly (JSON numbers are doubles). */
export interface LossyIntKey {
  node: ListNode;
  depth: number;
  value: bigint;
  stored: number;
}

export interface SegmentConversion {
  segments: Segment[];
  lossyKeys: LossyIntKey[];
}

/**
 * IR segments for a location, one per node: Object → `field`; `[k: v]` → `keyed` that creates the element
 * when missing (core/mutation_function.go createMissingElement); `[k: *]` → `keyedGlob`, which never creates.
 */
export function locationToSegments(p: LocationPath): SegmentConversion {
  const segments: Segment[] = [];
  const lossyKeys: LossyIntKey[] = [];
  p.forEach((n, depth) => {
    if (n.type === 'Object') {
      segments.push({ kind: 'field', name: n.reference } satisfies FieldSegment);
    } else if (n.glob) {
      segments.push({ kind: 'keyedGlob', key: n.keyField } satisfies KeyedGlobSegment);
    } else {
      let value: string | number | null;
      if (typeof n.keyValue === 'bigint') {
        value = Number(n.keyValue);
        if (BigInt(value) !== n.keyValue) lossyKeys.push({ node: n, depth, value: n.keyValue, stored: value });
      } else {
        value = n.keyValue;
      }
      segments.push({ kind: 'keyed', key: n.keyField, value, create: true } satisfies KeyedSegment);
    }
  });
  return { segments, lossyKeys };
}
