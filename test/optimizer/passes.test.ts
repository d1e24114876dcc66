import { readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parseIrText } from '../../src/ir/parse-text.js';
import { printPolicies } from '../../src/ir/print.js';
import { RULES } from '../../src/optimizer/index.js';
import { REPO_ROOT } from '../support/shared.js';

/**
 * golden/optimizer/<pass>.txt holds cases, each:
 *   ### <name>
 *   --- input
 *   <IR text>
 *   --- expected
 *   <IR text>
 */
const DIR = join(REPO_ROOT, 'golden', 'optimizer');
const update = process.env.UPDATE_GOLDEN === '1';

interface Fixture {
  name: string;
  input: string;
  expected: string;
}

function readFixtures(file: string): Fixture[] {
  const text = readFileSync(file, 'utf8');
  return text
    .split(/^### /m)
    .slice(1)
    .map((chunk) => {
      const [head, rest] = [chunk.slice(0, chunk.indexOf('\n')), chunk.slice(chunk.indexOf('\n') + 1)];
      const m = /^--- input\n([\s\S]*?)^--- expected\n([\s\S]*)$/m.exec(rest);
      if (!m) throw new Error(`${file}: case "${head}" needs "--- input" and "--- expected" sections`);
      return { name: head.trim(), input: m[1]!, expected: m[2]!.replace(/\n+$/, '\n') };
    });
}

describe('optimizer passes', () => {
  it('every pass has a fixture file', () => {
    const files = readdirSync(DIR).filter((f) => f.endsWith('.txt'));
    for (const pass of RULES) expect(files).toContain(`${pass.name}.txt`);
  });

  for (const pass of RULES) {
    const file = join(DIR, `${pass.name}.txt`);
    describe(pass.name, () => {
      const fixtures = readFixtures(file);
      const rewritten: string[] = [];
      for (const f of fixtures) {
        it(f.name, () => {
          const parsed = parseIrText(`${pass.name}.txt`, f.input);
          if (!parsed.ok) expect.fail(parsed.diagnostics.map((d) => d.message).join('\n'));
          const out = printPolicies(pass.run(parsed.value));
          if (update) rewritten.push(`### ${f.name}\n--- input\n${f.input}--- expected\n${out}\n`);
          else expect(out).toBe(f.expected);
          // Passes keep origins: every node of the output still points into the input text.
          for (const p of pass.run(parsed.value)) expect(p.origin.line).toBeGreaterThan(0);
        });
      }
      if (update) {
        it('rewrites the fixtures', () => {
          writeFileSync(file, rewritten.join(''));
        });
      }
    });
  }
});
