import { describe, expect, it } from 'vitest';
import { parseLocation } from '../../../grammars/gatekeeper-location.js';
import { locationToSegments, type LocationPath } from '../../../src/dialects/gatekeeper/location.js';
import { buildTester, existsOkay, lowerPathTests, missingOkay, type PathTest } from '../../../src/dialects/gatekeeper/path-tests.js';

function p(input: string): LocationPath {
  const r = parseLocation(input);
  if (!r.ok) throw new Error(r.error.message);
  return r.path;
}

function t(subPath: string, condition: string): PathTest {
  return { subPath: p(subPath), condition };
}

describe('gatekeeper pathTests: tester', () => {
  const location = p('spec.containers[name: foo].securityContext');

  it('indexes tests by depth, List nodes counting as a depth', () => {
    const r = buildTester(location, [t('spec.containers[name: foo]', 'MustExist'), t('spec.containers[name: foo].securityContext', 'MustNotExist')]);
    expect(r.ok).toBe(true);
    if (!r.ok) return;
    expect([...r.tests]).toEqual([
      [2, 'MustExist'],
      [3, 'MustNotExist'],
    ]);
    expect(existsOkay(r.tests, 2)).toBe(true);
    expect(missingOkay(r.tests, 2)).toBe(false);
    expect(existsOkay(r.tests, 0) && missingOkay(r.tests, 0)).toBe(true);
  });

  it('refuses a non-prefix with upstream wording', () => {
    const r = buildTester(location, [t('spec.initContainers', 'MustExist')]);
    expect(r).toMatchObject({
      ok: false,
      kind: 'ErrPrefix',
      index: 0,
      message:
        'all subpaths must be a prefix of the `location` value of the mutation: subpath "spec.initContainers" is not a prefix of location "spec.containers[name: foo].securityContext"',
    });
  });

  it('compares array order, not depth, for the parent/child conflict (upstream quirk)', () => {
    const refused = buildTester(location, [t('spec.containers[name: foo].securityContext', 'MustNotExist'), t('spec', 'MustExist')]);
    expect(refused).toMatchObject({ ok: false, kind: 'ErrConflict', index: 1 });
    // Contradictory, yet accepted: a MustExist child listed before a MustNotExist parent.
    const accepted = buildTester(location, [t('spec.containers[name: foo].securityContext', 'MustExist'), t('spec', 'MustNotExist')]);
    expect(accepted.ok).toBe(true);
  });

  it('names the paths as upstream does, looking depths up by array index', () => {
    const r = buildTester(p('a.b.c'), [t('a', 'MustNotExist'), t('a.b', 'MustExist')]);
    expect(r).toMatchObject({ message: 'conflicting path test conditions: path "a.b" is marked MustExist but parent "a" MustNotExist' });
    const nil = buildTester(p('a.b.c.d'), [t('a.b.c.d', 'MustNotExist'), t('a.b.c', 'MustExist')]);
    // No test sits at depths 1 and 0, so Go's map lookup yields nil pointers, which fmt prints as <nil>.
    expect(nil).toMatchObject({ message: 'conflicting path test conditions: path <nil> is marked MustExist but parent <nil> MustNotExist' });
  });

  it('refuses two conditions at one depth', () => {
    const r = buildTester(location, [t('spec', 'MustExist'), t('spec', 'MustNotExist')]);
    expect(r).toMatchObject({ ok: false, kind: 'ErrConflict', index: 0, message: 'conflicting path test conditions: path "spec" is marked both MustExist and MustNotExist' });
  });
});

describe('gatekeeper pathTests: lowering onto segments', () => {
  it('puts each condition on the segment at its depth', () => {
    const location = p('spec.containers[name: *].image');
    const r = buildTester(location, [t('spec.containers[name: *]', 'MustExist'), t('spec.containers[name: *].image', 'MustNotExist')]);
    if (!r.ok) throw new Error(r.message);
    const lowered = lowerPathTests(locationToSegments(location).segments, r.tests);
    expect(lowered.segments).toEqual([
      { kind: 'field', name: 'spec' },
      { kind: 'field', name: 'containers' },
      { kind: 'keyedGlob', key: 'name', test: 'exist' },
      { kind: 'field', name: 'image', test: 'notExist' },
    ]);
    expect(lowered.unsatisfiableDepths).toEqual([]);
  });

  it('reports a condition no node satisfies instead of dropping it', () => {
    const location = p('spec.x');
    const lowered = lowerPathTests(locationToSegments(location).segments, new Map([[0, '']]));
    expect(lowered.segments).toEqual([{ kind: 'field', name: 'spec' }, { kind: 'field', name: 'x' }]);
    expect(lowered.unsatisfiableDepths).toEqual([0]);
  });
});
