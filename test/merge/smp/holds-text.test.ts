/**
 * The generated merges' shortcut for conditions on exact text (compiled-merge.ts MERGE_HELP.holdsText, used
 * where pattern-value.ts isExactTextPattern accepts the expected text) against scalarConditionHolds.
 */
import { describe, expect, it } from 'vitest';
import { scalarConditionHolds } from '../../../src/merge/smp/anchors-fast.js';
import { MERGE_HELP } from '../../../src/merge/smp/compiled-merge.js';
import { isExactTextPattern } from '../../../src/merge/smp/pattern-value.js';
import type { JsonObject, JsonValue } from '../../../src/ir/json.js';

const TEXTS = ['app', 'app-1', '', ' app', 'app ', '1', '1.0', '1Gi', '10s', 'true', 'false', 'null', '>1', '!app', 'a|b', 'a&b', 'a*', 'a?', '1-2', 'x!-y', 'App', 'ä', '0x10'];
const VALUES: JsonValue[] = [...TEXTS, 1, 1.5, 0, -1, 1e21, true, false, null, [], ['app'], ['app', 'x'], [1], {}, { name: 'app' }];

describe('exact-text conditions', () => {
  it('hold exactly where scalarConditionHolds holds', () => {
    let compared = 0;
    for (const expected of TEXTS) {
      if (!isExactTextPattern(expected)) continue;
      for (const v of VALUES) {
        for (const r of [{ name: v }, { other: v }] as JsonObject[]) {
          expect(MERGE_HELP.holdsText(r, 'name', expected), JSON.stringify({ expected, r })).toBe(scalarConditionHolds(r, 'name', expected));
          compared++;
        }
      }
    }
    expect(compared).toBeGreaterThan(300);
  });

  it('leave out operators, alternatives, wildcards, durations, quantities and surrounding spaces', () => {
    for (const t of ['>1', '!app', 'a|b', 'a&b', 'a*', 'a?', '1', '1.0', '1Gi', '10s', ' app', 'app ', '1-2']) expect(isExactTextPattern(t), t).toBe(false);
    for (const t of ['app', 'app-1', 'App', 'true']) expect(isExactTextPattern(t), t).toBe(true);
  });
});
