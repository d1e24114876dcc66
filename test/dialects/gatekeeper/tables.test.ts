/**
 * Every row of the upstream pure-data unit tables (../shared/conformance/gatekeeper/go-unit-tables), one test
 * per row, through the same checkers the conformance runner registers (src/dialects/gatekeeper/unit-tables.ts).
 */
import { readdirSync, readFileSync } from 'node:fs';
import { expect, it } from 'vitest';
import { TABLE_CHECKERS } from '../../../src/dialects/gatekeeper/unit-tables.js';
import type { JsonObject } from '../../../src/ir/json.js';
import { describeShared, HAS_SHARED, sharedPath } from '../../support/shared.js';

interface Table {
  count: number;
  cases: (JsonObject & { id?: string })[];
}

/** Reads a table; int64 key values are kept as decimal strings (JSON.parse would round them). */
function table(file: string): Table {
  const text = readFileSync(sharedPath('conformance', 'gatekeeper', 'go-unit-tables', file), 'utf8');
  return JSON.parse(text.replace(/"int64":\s*(\d+)/g, '"int64":"$1"')) as Table;
}

const FILES = HAS_SHARED ? readdirSync(sharedPath('conformance', 'gatekeeper', 'go-unit-tables')).filter((f) => f.endsWith('.json')).sort() : [];

describeShared('gatekeeper go-unit-tables', () => {
  it('has a checker for each of the 11 tables, 243 rows in all', () => {
    expect(FILES.map((f) => f.slice(0, -'.json'.length))).toEqual(Object.keys(TABLE_CHECKERS).sort());
    expect(FILES.reduce((n, f) => n + table(f).cases.length, 0)).toBe(243);
  });

  for (const file of FILES) {
    const name = file.slice(0, -'.json'.length);
    const t = table(file);
    it(`${name}: declares its row count`, () => expect(t.cases).toHaveLength(t.count));
    t.cases.forEach((row, i) => {
      it(`${name} #${i}: ${row.id ?? ''}`, () => {
        const check = TABLE_CHECKERS[name];
        expect(check).toBeDefined();
        expect(check!(row)).toBeUndefined();
      });
    });
  }
});
