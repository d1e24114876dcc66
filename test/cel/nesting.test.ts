/**
 * Nesting limits as cel-go enforces them (parser/parser.go recursionListener: any one grammar rule
 * nested more than 250 times is "expression recursion limit exceeded: 250"; the top-level `expr` counts,
 * so 249 nested brackets parse and 250 do not, as cel-go's parser_test case "129" shows for lists).
 * Each form must parse, compile and evaluate at 249 levels inside a vitest worker, whose stack is
 * smaller than the main thread's.
 */
import { describe, expect, it } from 'vitest';
import { parseCel } from '../../grammars/cel.js';
import { compile } from '../../src/cel/index.js';

const LIMIT = 'expression recursion limit exceeded: 250';

/** [name, expression of n levels, its value] */
const FORMS: [string, (n: number) => string, (n: number) => unknown][] = [
  ['parentheses', (n) => '('.repeat(n) + '1' + ')'.repeat(n), () => 1],
  ['lists', (n) => '['.repeat(n) + '1' + ']'.repeat(n), (n) => nestList(n)],
  ['maps', (n) => '{"k": '.repeat(n) + '1' + '}'.repeat(n), (n) => nestMap(n)],
  ['negation', (n) => '-('.repeat(n) + '1' + ')'.repeat(n), (n) => (n % 2 === 0 ? 1 : -1)],
  ['logical not', (n) => '!('.repeat(n) + 'true' + ')'.repeat(n), (n) => n % 2 === 0],
  ['arithmetic', (n) => '('.repeat(n) + '1' + ' + 1)'.repeat(n), (n) => n + 1],
  ['calls', (n) => 'int('.repeat(n) + '1' + ')'.repeat(n), () => 1],
  ['member calls', (n) => '[0].map(x, '.repeat(n) + 'x' + ')[0]'.repeat(n), () => 0],
  ['conditionals', (n) => 'true ? ('.repeat(n) + '1' + ') : 0'.repeat(n), () => 1],
];

function nestList(n: number): unknown {
  let v: unknown = 1;
  for (let i = 0; i < n; i++) v = [v];
  return v;
}

function nestMap(n: number): unknown {
  let v: unknown = 1;
  for (let i = 0; i < n; i++) v = { k: v };
  return v;
}

describe('nesting depth (cel-go limits)', () => {
  for (const [name, make, value] of FORMS) {
    it(`${name}: 249 levels evaluate, 250 are a recursion error`, () => {
      const ok = compile(make(249));
      if (!ok.ok) throw new Error(ok.diagnostics[0]!.message);
      const r = ok.value.eval({});
      expect(r).toMatchObject({ ok: true });
      if (r.ok) expect(r.value).toEqual(value(249));
      expect(parseCel(make(250))).toMatchObject({ ok: false, message: LIMIT });
    });
  }

  it('100,000 nested parentheses fail cleanly within a second', () => {
    const t = performance.now();
    const r = parseCel('('.repeat(40_000) + '1' + ')'.repeat(40_000));
    expect(r).toMatchObject({ ok: false, message: LIMIT });
    const r2 = parseCel('('.repeat(100_000) + '1' + ')'.repeat(100_000));
    expect(r2.ok).toBe(false);
    expect(performance.now() - t).toBeLessThan(1000);
  });
});
