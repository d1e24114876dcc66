/**
 * Seeded fuzzing of the fast readers and printer against the reference: mutated corpus documents, generated
 * documents printed by both printers and by the `yaml` package in its various styles (flow collections, quoted
 * and block scalars, folded lines), and mutations of those. Whenever a fast reader accepts a text it must read
 * it as the reference does; whenever the fast printer prints a value it must print what the reference prints.
 * `npm run fuzz` style budgets: FAST_YAML_RUNS=100000 npx vitest run test/io/fast-yaml/fuzz.test.ts
 */
import { join } from 'node:path';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { stringify } from 'yaml';
import { toYaml, toYamlReference } from '../../../src/io/yaml-dump.js';
import { seedTexts } from '../../fuzz/properties.js';
import { REPO_ROOT } from '../../support/shared.js';
import { differences } from './support.js';

const RUNS = Number(process.env.FAST_YAML_RUNS ?? 400);
const SEED = 20261126;

const seeds = seedTexts([join(REPO_ROOT, 'golden', 'cases'), join(REPO_ROOT, 'examples')], 300).filter((t) => t.length < 4000);

/** Pieces of YAML syntax that tend to land on the edges of the subset. */
const PIECES = [...'{}[]:,\'"|>-?#&*!%@` \n\t0aZ.+~\\', '- ', ': ', '  ', '\n  ', '\n- ', ' #', '---\n', '...\n', '|-\n', '>+\n', '"\\u00e9"', "''", 'yes', 'null', '0x1F', '1e5', '<<', '\r\n'];

function mutate(text: string, edits: [number, number, string][]): string {
  let s = text;
  for (const [at, del, ins] of edits) {
    const i = at % (s.length + 1);
    s = s.slice(0, i) + ins + s.slice(i + del);
  }
  return s;
}

const edits = fc.array(fc.tuple(fc.nat(), fc.nat(4), fc.array(fc.constantFrom(...PIECES), { maxLength: 3 }).map((a) => a.join(''))), { minLength: 1, maxLength: 4 });

const text = fc.oneof(
  fc.string({ unit: fc.constantFrom(...'ab:#- \'"\n\t|>{}[],&*!?%@`~.0123456789eE+xyYnN\\'), maxLength: 12 }),
  fc.constantFrom('yes', 'no', 'on', 'null', '~', '', ' ', '0777', '0x1F', '1e5', '.5', '1_000', '2001-12-14', '<<', '-', '- a', 'a: b', 'a #b', 'x\n', '\n', 'a\n\nb', ' lead', 'trail ', '1.0', '-0', 'True', '.inf', '@x', 'é', '\u2028'),
  fc.string({ maxLength: 8 }),
);
const json: fc.Arbitrary<unknown> = fc.letrec((tie) => ({
  v: fc.oneof(
    { depthSize: 'small', maxDepth: 5 },
    text,
    fc.integer(),
    fc.double({ noNaN: true, noDefaultInfinity: true }),
    fc.boolean(),
    fc.constant(null),
    fc.array(tie('v'), { maxLength: 4 }),
    fc.dictionary(text, tie('v'), { maxKeys: 4 }),
  ),
})).v;
const root = fc.dictionary(text, json, { minKeys: 1, maxKeys: 5 });
const yamlStyle = fc.record({
  indent: fc.constantFrom(2, 4),
  indentSeq: fc.boolean(),
  flowLevel: fc.constantFrom(undefined, 1, 2),
  lineWidth: fc.constantFrom(0, 20, 80),
  minContentWidth: fc.constantFrom(0, 20),
  defaultStringType: fc.constantFrom('PLAIN', 'QUOTE_DOUBLE', 'QUOTE_SINGLE', 'BLOCK_LITERAL', 'BLOCK_FOLDED'),
});

function yamlPackage(value: unknown, style: object): string {
  try {
    return stringify(value, { ...style, defaultKeyType: 'PLAIN' } as never);
  } catch {
    return 'a: 1\n'; // options the package refuses for this value
  }
}

const documents = fc.oneof(
  fc.tuple(fc.constantFrom(...seeds), edits).map(([seed, e]) => mutate(seed, e)),
  root.map((v) => toYaml(v)),
  fc.array(root, { minLength: 2, maxLength: 3 }).map((vs) => vs.map((v) => toYaml(v)).join('---\n')),
  fc.tuple(root, yamlStyle).map(([v, style]) => yamlPackage(v, style)),
  fc.tuple(root, yamlStyle, edits).map(([v, style, e]) => mutate(yamlPackage(v, style), e)),
  fc.tuple(root, edits).map(([v, e]) => mutate(toYaml(v), e)),
  fc.array(root, { minLength: 1, maxLength: 3 }).map((vs) => vs.map((v) => JSON.stringify(v)).join('\n')),
);

describe('fast YAML readers and printer: seeded fuzzing against the reference', () => {
  it('read every accepted text as the reference does', () => {
    let accepted = 0;
    fc.assert(
      fc.property(documents, (t) => {
        const r = differences('fuzz.yaml', t, { spans: false });
        if (r.outcome !== 'reference') accepted++;
        expect(r.diffs).toEqual([]);
      }),
      { seed: SEED, numRuns: RUNS },
    );
    // The generators are built so that most texts are in the subset; if not, this test checks little.
    expect(accepted).toBeGreaterThan(RUNS / 3);
  }, 120_000);

  it('print every JSON value as the reference printer does', () => {
    fc.assert(
      fc.property(json, fc.boolean(), (v, sortKeys) => {
        expect(toYaml(v, { sortKeys })).toBe(toYamlReference(v, { sortKeys }));
      }),
      { seed: SEED, numRuns: RUNS * 5 },
    );
  });
});
