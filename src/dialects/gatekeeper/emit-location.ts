/**
 * An IR path written as a Gatekeeper location with pathTests: field → Object node, keyed → `[k: v]`
 * (Gatekeeper always creates a missing element, so a keyed segment that must not create is tested
 * MustExist), keyedGlob → `[k: *]`; segment tests become pathTests at their depth. What a location cannot
 * say (indices, appends, each, non-object roots, key values other than strings and int64) is refused.
 */
import type { JsonScalar } from '../../ir/json.js';
import type { Path, Segment, SegmentTest } from '../../ir/path.js';
import { cannot, type Refusal } from '../generate-report.js';
import { printLocation, type LocationNode, type LocationPath } from './location.js';
import { MUST_EXIST, MUST_NOT_EXIST } from './path-tests.js';

export interface EmittedLocation {
  nodes: LocationNode[];
  /** Depth → condition. */
  tests: Map<number, SegmentTest>;
}

const INT64_MAX = 2n ** 63n - 1n;

function keyValue(v: JsonScalar): string | bigint | Refusal {
  if (typeof v === 'string') return v;
  if (typeof v === 'number' && Number.isSafeInteger(v) && v >= 0 && BigInt(v) <= INT64_MAX) return BigInt(v);
  return cannot(`the list key value ${JSON.stringify(v)} (a location's key values are strings and non-negative int64 only)`);
}

function addTest(tests: Map<number, SegmentTest>, depth: number, test: SegmentTest): Refusal | undefined {
  const had = tests.get(depth);
  if (had !== undefined && had !== test) return cannot('both MustExist and MustNotExist on one segment (Gatekeeper rejects conflicting pathTests; the op would never apply)');
  tests.set(depth, test);
  return undefined;
}

/** The location of `path`, or why Gatekeeper cannot address it. */
export function emitLocation(path: Path): EmittedLocation | Refusal {
  if (path.root !== 'object') return cannot(`a write to ${path.root} (a Gatekeeper mutator changes only the admitted object)`);
  const nodes: LocationNode[] = [];
  const tests = new Map<number, SegmentTest>();
  for (const seg of path.segments) {
    const depth = nodes.length;
    switch (seg.kind) {
      case 'field':
        nodes.push({ type: 'Object', reference: seg.name });
        break;
      case 'keyed': {
        // A list spec follows the field naming the list: `a[k: v]` is one Object and one List node.
        if (nodes.length === 0 || nodes[nodes.length - 1]!.type !== 'Object') return cannot('a list element of a list that is itself a list element (a location names every list by a field)');
        const v = keyValue(seg.value);
        if (typeof v === 'object') return v;
        nodes.push({ type: 'List', keyField: seg.key, keyValue: v, glob: false });
        if (!seg.create) {
          // Never creating the element is a MustExist test: missing → the branch is skipped.
          if (seg.test === 'notExist') return cannot('a keyed element that must be missing and may not be created (it would never apply)');
          const why = addTest(tests, depth, 'exist');
          if (why) return why;
        }
        break;
      }
      case 'keyedGlob':
        if (nodes.length === 0 || nodes[nodes.length - 1]!.type !== 'Object') return cannot('every element of a list that is itself a list element (a location names every list by a field)');
        nodes.push({ type: 'List', keyField: seg.key, keyValue: null, glob: true });
        break;
      case 'index':
        return cannot(`the list position [${seg.index}] (a location selects list elements by a key field [key: value], never by position)`);
      case 'append':
        return cannot('an append at the end of a list (Gatekeeper adds a list element only as a keyed element [key: value] or as a ModifySet member not yet present)');
      case 'each':
        return cannot('every element of a list whatever its type (a location\'s glob [key: *] visits lists of objects only)');
    }
    const test = 'test' in seg ? seg.test : undefined;
    if (test) {
      const why = addTest(tests, depth, test);
      if (why) return why;
    }
  }
  return { nodes, tests };
}

/** `spec.containers[name: *].image`. */
export function locationText(nodes: LocationPath): string {
  return printLocation(nodes);
}

/**
 * pathTests as a user writes them: MustExist first (upstream refuses a MustExist listed after a
 * MustNotExist, tester.go), each group by depth.
 */
export function pathTestsOf(loc: EmittedLocation): { subPath: string; condition: string }[] {
  const entries = [...loc.tests].sort((a, b) => (a[1] === b[1] ? a[0] - b[0] : a[1] === 'exist' ? -1 : 1));
  return entries.map(([depth, test]) => ({
    subPath: locationText(loc.nodes.slice(0, depth + 1)),
    condition: test === 'exist' ? MUST_EXIST : MUST_NOT_EXIST,
  }));
}

/** True when the segments are plain fields and keyed elements (a guard on them tests one place). */
export function isSinglePlace(segments: readonly Segment[]): boolean {
  return segments.every((s) => s.kind === 'field' || s.kind === 'keyed');
}
