/**
 * Gatekeeper's template database tests (pkg/expansion/db_test.go), transcribed: TestDB (upserts and removals,
 * which must fail exactly when they close a cycle, and which templates end in conflict) and TestTemplatesForGVK.
 * Upstream also compares the db's internal adjacency lists; here they are observed through templatesForGVK.
 */
import { describe, expect, it } from 'vitest';
import { TemplateDb } from '../../src/dialects/gatekeeper/expansion/template-db.js';
import type { ExpansionTemplate } from '../../src/dialects/gatekeeper/expansion/template.js';
import { tempMultApply, testTemplate } from './fixtures.js';

type Op = { op: 'UPSERT' | 'REMOVE'; template: ExpansionTemplate; wantErr?: boolean };
const up = (template: ExpansionTemplate, wantErr = false): Op => ({ op: 'UPSERT', template, wantErr });
const rm = (template: ExpansionTemplate): Op => ({ op: 'REMOVE', template });
const gvkN = (n: number) => ({ group: `group${n}`, version: `v${n}`, kind: `kind${n}` });

interface DbCase {
  name: string;
  ops: Op[];
  /** Every template left in the db, with whether it is in conflict. */
  wantStore: Record<string, boolean>;
  /** What templatesForGVK answers for some GVKs (the matchers upstream compares). */
  wantMatches?: [ReturnType<typeof gvkN>, string[]][];
}

const CASES: DbCase[] = [
  { name: 'add 1 template', ops: [up(testTemplate('foo', 1, 2))], wantStore: { foo: false }, wantMatches: [[gvkN(1), ['foo']], [gvkN(2), []]] },
  {
    name: 'add 1 template that has many applyTo',
    ops: [up(tempMultApply())],
    wantStore: { t2: false },
    wantMatches: [
      [gvkN(1), ['t2']],
      [{ group: 'group11', version: 'v11', kind: 'kind11' }, ['t2']],
      [{ group: 'group11', version: 'v22', kind: 'kind11' }, ['t2']],
    ],
  },
  { name: 'add 2 templates with same applyTo and genGVK', ops: [up(testTemplate('t1', 1, 2)), up(testTemplate('t2', 1, 2))], wantStore: { t1: false, t2: false }, wantMatches: [[gvkN(1), ['t1', 't2']]] },
  { name: 'removing non-existing template does nothing', ops: [up(testTemplate('foo', 1, 2)), rm(testTemplate('DNE', 1, 2))], wantStore: { foo: false }, wantMatches: [[gvkN(1), ['foo']]] },
  { name: 'update existing template', ops: [up(testTemplate('foo', 1, 2)), up(testTemplate('foo', 3, 4))], wantStore: { foo: false }, wantMatches: [[gvkN(1), []], [gvkN(3), ['foo']]] },
  {
    name: 'adding cycle disables cyclic templates and leaves non-cyclic enabled',
    ops: [up(testTemplate('t1-2', 1, 2)), up(testTemplate('t2-3', 2, 3)), up(testTemplate('t3-1', 3, 1), true), up(testTemplate('t2-8', 2, 8)), up(testTemplate('t5', 5, 6))],
    wantStore: { 't1-2': true, 't2-3': true, 't3-1': true, 't2-8': false, t5: false },
    wantMatches: [[gvkN(2), ['t2-8']], [gvkN(5), ['t5']]],
  },
  {
    name: 'update template to produce cycle',
    ops: [up(testTemplate('t5', 5, 6)), up(testTemplate('t3-4', 3, 4)), up(testTemplate('t1-2', 1, 2)), up(testTemplate('t2-3', 2, 3)), up(testTemplate('t3-4', 3, 1), true)],
    wantStore: { 't1-2': true, 't2-3': true, 't3-4': true, t5: false },
  },
  {
    name: 'fixing cycle re-enables templates but existing cycles still disabled',
    ops: [
      up(testTemplate('t7-8', 7, 8)),
      up(testTemplate('t8-7', 8, 7), true),
      up(testTemplate('t1-2', 1, 2)),
      up(testTemplate('t2-3', 2, 3)),
      up(testTemplate('t3-1', 3, 1), true),
      up(testTemplate('t3-1', 3, 4)),
    ],
    wantStore: { 't7-8': true, 't8-7': true, 't1-2': false, 't2-3': false, 't3-1': false },
    wantMatches: [[gvkN(1), ['t1-2']], [gvkN(7), []]],
  },
  {
    name: 'removing cycle re-enables templates but existing cycles still disabled',
    ops: [
      up(testTemplate('t7-8', 7, 8)),
      up(testTemplate('t8-7', 8, 7), true),
      up(testTemplate('t1-2', 1, 2)),
      up(testTemplate('t2-3', 2, 3)),
      up(testTemplate('t3-1', 3, 1), true),
      rm(testTemplate('t3-1', 3, 1)),
    ],
    wantStore: { 't7-8': true, 't8-7': true, 't1-2': false, 't2-3': false },
  },
  {
    name: 'removing 1 edge from double-edged cycle does not re-enable templates',
    ops: [up(testTemplate('t1-2', 1, 2)), up(testTemplate('t2-3', 2, 3)), up(testTemplate('t3-1', 3, 1), true), up(testTemplate('ta3-1', 3, 1), true), rm(testTemplate('t3-1', 3, 1))],
    wantStore: { 't1-2': true, 't2-3': true, 'ta3-1': true },
  },
];

describe('TestDB (pkg/expansion/db_test.go)', () => {
  for (const tc of CASES) {
    it(tc.name, () => {
      const db = new TemplateDb();
      for (const op of tc.ops) {
        if (op.op === 'REMOVE') {
          db.remove(op.template);
          continue;
        }
        const err = db.upsert(op.template);
        if (op.wantErr) expect(err).toBe('template forms expansion cycle');
        else expect(err).toBeNull();
      }
      const conflicts = db.conflicts();
      const wantConflicts = Object.entries(tc.wantStore).filter(([, c]) => c).map(([id]) => id);
      expect([...conflicts].sort()).toEqual(wantConflicts.sort());
      // Every template of the store is installed: a non-conflicting one expands what its applyTo names.
      for (const [id, conflicted] of Object.entries(tc.wantStore)) {
        if (conflicted) continue;
        const t = tc.ops.filter((o) => o.op === 'UPSERT' && o.template.name === id).at(-1)!.template;
        const first = t.applyTo[0]!;
        const gvk = { group: first.groups[0]!, version: first.versions[0]!, kind: first.kinds[0]! };
        expect(db.templatesForGVK(gvk).map((x) => x.name)).toContain(id);
      }
      for (const [gvk, names] of tc.wantMatches ?? []) expect(db.templatesForGVK(gvk).map((t) => t.name)).toEqual(names);
    });
  }
});

describe('TestTemplatesForGVK (pkg/expansion/db_test.go)', () => {
  const cases: { name: string; add: ExpansionTemplate[]; gvk: { group: string; version: string; kind: string }; want: string[] }[] = [
    { name: 'no templates in db returns nothing', add: [], gvk: { group: 'a', version: 'b', kind: 'c' }, want: [] },
    { name: '2 templates no cycles', add: [testTemplate('t1-2', 1, 2), testTemplate('t2-3', 2, 3)], gvk: gvkN(1), want: ['t1-2'] },
    { name: 'cycle not returned', add: [testTemplate('t1-2', 1, 2), testTemplate('t2-3', 2, 3), testTemplate('t3-1', 3, 1)], gvk: gvkN(1), want: [] },
    {
      name: 'cycle not returned but non-cyclics are',
      add: [testTemplate('t1-2', 1, 2), testTemplate('t2-3', 2, 3), testTemplate('t3-1', 3, 1), testTemplate('t4-5', 4, 5), testTemplate('t4-6', 4, 6)],
      gvk: gvkN(4),
      want: ['t4-5', 't4-6'],
    },
  ];
  for (const tc of cases) {
    it(tc.name, () => {
      const db = new TemplateDb();
      for (const t of tc.add) db.upsert(t);
      expect(db.templatesForGVK(tc.gvk).map((t) => t.name)).toEqual(tc.want);
    });
  }
});
