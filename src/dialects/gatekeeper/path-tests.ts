/**
 * pathTests (pkg/mutation/path/tester/tester.go): existence conditions indexed by depth in the location, and
 * their lowering onto the IR segment at that depth.
 */
import type { Segment, SegmentTest } from '../../ir/path.js';
import { goQuote } from './go-format.js';
import { goPathString, nodesEqual, type LocationPath } from './location.js';

export const MUST_EXIST = 'MustExist';
export const MUST_NOT_EXIST = 'MustNotExist';

/**
 * One parsed test. `condition` is kept as written: the CRD restricts it to MustExist/MustNotExist, but a
 * missing condition reaches the tester as "" and acts as a test no node satisfies.
 */
export interface PathTest {
  subPath: LocationPath;
  condition: string;
}

const ERR_PREFIX = 'all subpaths must be a prefix of the `location` value of the mutation';
const ERR_CONFLICT = 'conflicting path test conditions';

export type TesterResult =
  | { ok: true; tests: ReadonlyMap<number, string> }
  | { ok: false; kind: 'ErrPrefix' | 'ErrConflict'; message: string; index: number };

/** Node-wise prefix: every node of `short` deep-equals the node of `long` at the same depth. */
export function isPrefix(short: LocationPath, long: LocationPath): boolean {
  if (short.length > long.length) return false;
  return short.every((n, i) => nodesEqual(n, long[i]!));
}

/** Go's `%q` of a `*parser.Path` (nil prints as `<nil>` via fmt's panic recovery). */
function quotePath(p: LocationPath | undefined): string {
  return p === undefined ? '<nil>' : goQuote(goPathString(p));
}

/**
 * tester.New: every subPath must be a prefix of the location; the tests are stored by depth
 * (number of nodes − 1), the last one written at a depth winning; then two conflicts are refused, in this
 * order:
 * - a test whose condition differs from the one stored at its depth;
 * - upstream quirk: the highest array index of a MustExist test is above the lowest array index of a
 *   MustNotExist test — array order, not depth, so `[MustNotExist child, MustExist parent]` is refused while
 *   the contradictory `[MustExist a.b.c, MustNotExist a]` is accepted. The message looks the paths up in a
 *   depth-keyed map with those array indices (as upstream does), which can print `<nil>`.
 */
export function buildTester(location: LocationPath, tests: readonly PathTest[]): TesterResult {
  for (let i = 0; i < tests.length; i++) {
    const sub = tests[i]!.subPath;
    if (!isPrefix(sub, location)) {
      const message = `${ERR_PREFIX}: subpath ${quotePath(sub)} is not a prefix of location ${quotePath(location)}`;
      return { ok: false, kind: 'ErrPrefix', message, index: i };
    }
  }

  const byDepth = new Map<number, string>();
  const pathByDepth = new Map<number, LocationPath>();
  let lowestMustNot = 2 ** 31 - 1;
  let highestMust = 0;
  tests.forEach((t, i) => {
    const depth = t.subPath.length - 1;
    byDepth.set(depth, t.condition);
    pathByDepth.set(depth, t.subPath);
    if (t.condition === MUST_NOT_EXIST && i < lowestMustNot) lowestMustNot = i;
    else if (t.condition === MUST_EXIST && i > highestMust) highestMust = i;
  });

  for (let i = 0; i < tests.length; i++) {
    const t = tests[i]!;
    if (byDepth.get(t.subPath.length - 1) !== t.condition) {
      const message = `${ERR_CONFLICT}: path ${quotePath(t.subPath)} is marked both MustExist and MustNotExist`;
      return { ok: false, kind: 'ErrConflict', message, index: i };
    }
  }
  if (highestMust > lowestMustNot) {
    const message =
      `${ERR_CONFLICT}: path ${quotePath(pathByDepth.get(highestMust))} is marked MustExist ` +
      `but parent ${quotePath(pathByDepth.get(lowestMustNot))} MustNotExist`;
    return { ok: false, kind: 'ErrConflict', message, index: highestMust };
  }
  return { ok: true, tests: byDepth };
}

/** Tester.ExistsOkay: no test at the depth, or MustExist. */
export function existsOkay(tests: ReadonlyMap<number, string>, depth: number): boolean {
  const c = tests.get(depth);
  return c === undefined || c === MUST_EXIST;
}

/** Tester.MissingOkay: no test at the depth, or MustNotExist. */
export function missingOkay(tests: ReadonlyMap<number, string>, depth: number): boolean {
  const c = tests.get(depth);
  return c === undefined || c === MUST_NOT_EXIST;
}

export interface LoweredTests {
  segments: Segment[];
  /**
   * Depths whose condition is neither MustExist nor MustNotExist: no branch passes them, so the op can
   * never apply. The caller records that as a constant-false guard.
   */
  unsatisfiableDepths: number[];
}

/** Puts each depth's condition on the IR segment at that depth (segments map 1:1 to location nodes). */
export function lowerPathTests(segments: readonly Segment[], tests: ReadonlyMap<number, string>): LoweredTests {
  const out = segments.slice();
  const unsatisfiableDepths: number[] = [];
  for (const [depth, condition] of [...tests].sort((a, b) => a[0] - b[0])) {
    const seg = out[depth];
    if (seg === undefined) continue;
    const test: SegmentTest | undefined =
      condition === MUST_EXIST ? 'exist' : condition === MUST_NOT_EXIST ? 'notExist' : undefined;
    if (test === undefined) {
      unsatisfiableDepths.push(depth);
      continue;
    }
    out[depth] = withTest(seg, test);
  }
  return { segments: out, unsatisfiableDepths };
}

function withTest(seg: Segment, test: SegmentTest): Segment {
  switch (seg.kind) {
    case 'field':
    case 'index':
    case 'keyed':
    case 'keyedGlob':
      return { ...seg, test };
    default:
      return seg;
  }
}
