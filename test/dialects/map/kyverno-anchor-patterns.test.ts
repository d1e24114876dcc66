/**
 * The CEL a condition anchor's scalar pattern compiles to (src/dialects/map/kyverno/pattern.ts
 * anchorConditionCel) against Kyverno's own check (strategicPreprocessing.go checkCondition: the resource's
 * scalar as its YAML text, then validate.MatchPattern; our src/merge/smp reference), over values of every
 * JSON type, numbers of every form Go prints, and lists of them. Patterns of wildcards alone with a `*` and at
 * most one `?` (`?*`, "non-empty") match every number's text, whichever form it takes; others that could match
 * a number's text or not by its form (`?`, `??*`, `1*`) stay refused.
 */
import { describe, expect, it } from 'vitest';
import { anchorConditionCel } from '../../../src/dialects/map/kyverno/pattern.js';
import { isJsonObject, type JsonValue } from '../../../src/ir/json.js';
import { scalarText } from '../../../src/merge/smp/go-text.js';
import { matchPattern } from '../../../src/merge/smp/pattern-match.js';
import { celMatches } from './kyverno-support.js';

/** checkCondition for a scalar pattern: the resource's scalar compared as its text. */
function kyvernoMatches(value: JsonValue, pattern: string): boolean {
  const r = Array.isArray(value) || isJsonObject(value) ? value : scalarText(value);
  return matchPattern(r, pattern) === undefined;
}


const SCALARS: JsonValue[] = ['', 'a', 'ab', 'abc', '1', '1.5', 'null', 0, 1, -7, 42, 0.5, -1.25, 1e21, 1.5e-7, 123456789.125, true, false, null];
const VALUES: JsonValue[] = [...SCALARS, [], ['a'], [''], [1.5], ['a', 2], [true, null]];

describe('condition anchor patterns of wildcards alone, to CEL', () => {
  for (const pattern of ['?*', '*?', '*?*', '**?', '*', '**']) {
    it(`"${pattern}" matches what Kyverno matches, numbers of every form included`, () => {
      const cel = anchorConditionCel('object.x', pattern);
      expect(typeof cel, String(cel)).toBe('string');
      for (const value of VALUES) expect(celMatches(cel as string, value), `${pattern} on ${JSON.stringify(value)}`).toBe(kyvernoMatches(value, pattern));
    });
  }

  it('keeps refusing wildcard patterns that could match part of a number text', () => {
    for (const pattern of ['?', '??*', '1*', '*5', '?.?', '*e*']) {
      const cel = anchorConditionCel('object.x', pattern);
      expect(typeof cel === 'string' ? cel : cel.why, pattern).toMatch(/decimal numbers|on numbers/);
    }
  });
});
