/** docs/jmespath-to-cel.md carries the function table generated from the compiler's own table. */
import { readFileSync, writeFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { KYVERNO_FUNCTIONS } from '../../../src/jmespath/index.js';
import { FUNCTIONS, functionTableMarkdown } from '../../../src/lowering/jmes-cel/index.js';

const DOC = new URL('../../../docs/jmespath-to-cel.md', import.meta.url);
const BEGIN = '<!-- BEGIN FUNCTION TABLE -->\n';
const END = '<!-- END FUNCTION TABLE -->';

describe('docs/jmespath-to-cel.md', () => {
  it('lists every function Kyverno registers, once', () => {
    const names = FUNCTIONS.map((f) => f.name);
    expect(new Set(names).size).toBe(names.length);
    expect([...names].sort()).toEqual([...KYVERNO_FUNCTIONS.keys()].sort());
  });

  it('has the generated function table', () => {
    const text = readFileSync(DOC, 'utf8');
    const start = text.indexOf(BEGIN);
    const end = text.indexOf(END);
    expect(start).toBeGreaterThan(0);
    const current = text.slice(start + BEGIN.length, end);
    const generated = functionTableMarkdown();
    if (current !== generated && process.env.UPDATE_DOCS === '1') {
      writeFileSync(DOC, text.slice(0, start + BEGIN.length) + generated + text.slice(end));
      return;
    }
    expect(current, 'docs/jmespath-to-cel.md is stale: run UPDATE_DOCS=1 npx vitest run test/lowering/jmes-cel/doc.test.ts').toBe(generated);
  });
});
