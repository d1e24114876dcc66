/**
 * A global anchor inside a condition anchor's pattern (`(initContainers): [{<(image): "proxy/*"}]`), as the CEL
 * of src/dialects/map/kyverno/pattern.ts reads it, against Kyverno's own check (validate.MatchPattern; our
 * src/merge/smp/pattern-match.ts reference): an absent key satisfies the anchor; its failure, like a condition
 * anchor's, passes the element over in a list, but only where it is the first check of the map to fail (plain
 * keys and global anchors are checked in one order, a failing plain key fails the list).
 */
import { describe, expect, it } from 'vitest';
import { anchorConditionCel } from '../../../src/dialects/map/kyverno/pattern.js';
import type { JsonObject, JsonValue } from '../../../src/ir/json.js';
import { matchPattern } from '../../../src/merge/smp/pattern-match.js';
import { celMatches } from './kyverno-support.js';
import { mulberry32, pick } from '../../support/random.js';


const PATTERNS: JsonValue[] = [
  [{ '<(image)': 'proxy.example.com/*' }],
  [{ '<(image)': 'proxy.example.com/*', name: 'app*' }],
  [{ '<(image)': 'proxy.example.com/*', '(name)': 'app*' }],
  [{ '<(image)': 'proxy.example.com/*', zz: '*' }],
  [{ '<(image)': 'proxy.example.com/*', '0rank': 'on' }],
  [{ '<(image)': 'proxy.example.com/*', '<(name)': 'side' }],
  [{ '<(securityContext)': { privileged: false }, name: '?*' }],
  { '<(image)': 'proxy.example.com/*' },
  { '<(image)': 'proxy.example.com/*', name: 'app' },
];

const IMAGES: JsonValue[] = ['proxy.example.com/a:1', 'docker.io/b', '', 3, null];
const NAMES: JsonValue[] = ['app', 'app-2', 'side', '', null];

function element(r: () => number): JsonValue {
  if (r() < 0.08) return pick(r, ['text', 7, null, []] as JsonValue[]);
  const e: JsonObject = {};
  if (r() < 0.8) e.image = pick(r, IMAGES);
  if (r() < 0.8) e.name = pick(r, NAMES);
  if (r() < 0.3) e.zz = pick(r, ['set', null] as JsonValue[]);
  if (r() < 0.4) e['0rank'] = pick(r, ['on', 'off'] as JsonValue[]);
  if (r() < 0.3) e.securityContext = pick(r, [{ privileged: false }, { privileged: true }, {}, 'x'] as JsonValue[]);
  return e;
}

function resource(r: () => number, listPattern: boolean): JsonValue {
  if (!listPattern) return r() < 0.9 ? element(r) : pick(r, [[], 'x', null] as JsonValue[]);
  if (r() < 0.05) return pick(r, [{}, 'x', null] as JsonValue[]);
  return Array.from({ length: Math.floor(r() * 4) }, () => element(r));
}

describe('a global anchor inside a condition pattern, to CEL', () => {
  for (const [i, pattern] of PATTERNS.entries()) {
    it(`${JSON.stringify(pattern)} matches what Kyverno matches (seeded, 300 values)`, () => {
      const cel = anchorConditionCel('object.x', pattern);
      expect(typeof cel, JSON.stringify(cel)).toBe('string');
      const r = mulberry32(1000 + i);
      let matched = 0;
      for (let n = 0; n < 300; n++) {
        const value = resource(r, Array.isArray(pattern));
        const want = matchPattern(value, pattern) === undefined;
        if (want) matched++;
        expect(celMatches(cel as string, value), `${JSON.stringify(pattern)} on ${JSON.stringify(value)}`).toBe(want);
      }
      // Both answers occur: the values exercise the pattern.
      expect(matched).toBeGreaterThan(0);
      expect(matched).toBeLessThan(300);
    });
  }

  it('the first check to fail decides: a failing plain key before a failing global anchor fails the list', () => {
    // Keys are checked in Go's order: "0rank" before "<(image)" ('0' sorts before '<'), "name" and "zz" after.
    const first = [{ '<(image)': 'proxy/*', '0rank': 'on' }];
    const plainFailsFirst = [{ image: 'other', '0rank': 'off' }, { image: 'proxy/a', '0rank': 'on' }];
    expect(matchPattern(plainFailsFirst, first)).toBeDefined();
    expect(celMatches(anchorConditionCel('object.x', first) as string, plainFailsFirst)).toBe(false);
    const before = [{ '<(image)': 'proxy/*', name: 'app' }];
    const after = [{ '<(image)': 'proxy/*', zz: 'on' }];
    const elements = [{ image: 'other', name: 'x' }, { image: 'proxy/a', name: 'app' }];
    // The global anchor fails first on the first element: it is passed over, the second applies.
    expect(matchPattern(elements, before)).toBeUndefined();
    expect(celMatches(anchorConditionCel('object.x', before) as string, elements)).toBe(true);
    const failsPlainFirst = [{ image: 'proxy/b', zz: 'off' }, { image: 'proxy/a', zz: 'on' }];
    expect(matchPattern(failsPlainFirst, after)).toBeDefined();
    expect(celMatches(anchorConditionCel('object.x', after) as string, failsPlainFirst)).toBe(false);
  });
});
