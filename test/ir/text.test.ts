import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { irDialect } from '../../src/dialects/ir/index.js';
import type { Policy } from '../../src/ir/nodes.js';
import { normalizePolicies } from '../../src/ir/normalize.js';
import { parseIrText } from '../../src/ir/parse-text.js';
import { printPolicies } from '../../src/ir/print.js';
import { randomPolicy, rng } from './arbitrary.js';
import { sourceDocs } from './support.js';

const fixture = (name: string) => readFileSync(new URL(`./fixtures/${name}`, import.meta.url), 'utf8');

function parseText(text: string, file = 'case.ir.txt'): Policy[] {
  const r = parseIrText(file, text);
  if (!r.ok) throw new Error(r.diagnostics.map((d) => `${d.span?.line}:${d.span?.col} ${d.message}`).join('\n'));
  return r.value;
}

function everyConstruct(): Policy[] {
  const r = irDialect.parse(sourceDocs('every-construct.yaml', fixture('every-construct.yaml')));
  expect(r.diagnostics).toEqual([]);
  return r.policies;
}

describe('IR text form', () => {
  it('prints the every-construct policies as the reviewed text', () => {
    const policies = everyConstruct();
    expect(printPolicies(policies)).toBe(fixture('every-construct.ir.txt'));
    expect(printPolicies(policies, { origins: true })).toBe(fixture('every-construct.origins.ir.txt'));
  });

  it('reads back what it prints, with and without origins', () => {
    const policies = everyConstruct();
    for (const origins of [false, true]) {
      const text = printPolicies(policies, { origins });
      const back = parseText(text);
      expect(printPolicies(back, { origins })).toBe(text);
      expect(normalizePolicies(back)).toEqual(normalizePolicies(policies));
    }
  });

  it('restores origins from @line:col and otherwise uses the line of the text', () => {
    const annotated = parseText(fixture('every-construct.origins.ir.txt'), 'x.txt');
    const set = annotated[0]!.rules[0]!.body[0]!;
    expect(set.origin).toEqual({ file: 'x.txt', line: 37, col: 11, endLine: 37, endCol: 11, dialect: 'ir' });
    const plain = parseText('policy p\n  rule r\n    set object.a = ref object.b\n');
    const op = plain[0]!.rules[0]!.body[0]!;
    expect(op.origin).toEqual({ file: 'case.ir.txt', line: 3, col: 5, endLine: 3, endCol: 31, dialect: 'ir' });
    expect(op.kind === 'set' && op.value.origin).toEqual(op.origin);
    // Paths point at their own characters in the text.
    expect(op.kind === 'set' && op.path.origin).toEqual({ file: 'case.ir.txt', line: 3, col: 9, endLine: 3, endCol: 16, dialect: 'ir' });
  });

  it('round-trips random policies (print . parse . print is print; normalized IR is preserved)', () => {
    const random = rng(7);
    for (let i = 0; i < 300; i++) {
      const policies = [randomPolicy(random), randomPolicy(random)];
      for (const origins of [false, true]) {
        const text = printPolicies(policies, { origins });
        const back = parseText(text);
        expect(printPolicies(back, { origins })).toBe(text);
        expect(normalizePolicies(back)).toEqual(normalizePolicies(policies));
      }
    }
  });

  it('reads the hand-written form: comments, blank lines, defaults', () => {
    const text = [
      '# a comment',
      'policy add-team-label',
      '',
      '  rule add',
      '    # inside',
      '    set object.metadata.labels.team!absent = "platform"',
      '    when match object.metadata.name "web-*"',
      '      remove object.metadata.annotations."x/y"',
      '    else',
      '      set object.spec.replicas = 2',
      '    forEach vars.c in object.spec.containers[*] index i order asc',
      '      set vars.c.imagePullPolicy = "Always"',
      '    setMembers object.spec.finalizers merge ["a", "b"]',
      '    let x = ref object.metadata.name',
    ].join('\n');
    const [p] = parseText(text);
    expect(p!.semantics).toEqual({ order: 'sequential' });
    expect(p!.match).toEqual({ globs: 'wildcard' });
    expect(p!.rules[0]!.body.map((o) => o.kind)).toEqual(['set', 'when', 'forEach', 'setMembers', 'let']);
    const when = p!.rules[0]!.body[1]!;
    expect(when.kind === 'when' && [when.then.length, when.else?.length]).toEqual([1, 1]);
  });

  it('keeps an empty else distinct from no else', () => {
    const [p] = parseText('policy p\n  rule r\n    when true\n    else\n    when false\n');
    const [a, b] = p!.rules[0]!.body;
    expect(a!.kind === 'when' && a.else).toEqual([]);
    expect(b!.kind === 'when' && b.else).toBeUndefined();
    expect(printPolicies([p!])).toContain('    when true\n    else\n    when false\n');
  });

  it('keeps __proto__ as an ordinary key in literals', () => {
    const [p] = parseText('policy p\n  rule r\n    set object.__proto__ = {"__proto__": {"polluted": true}}\n');
    const op = p!.rules[0]!.body[0]!;
    const json = op.kind === 'set' && op.value.kind === 'literal' ? (op.value.json as object) : {};
    expect(Object.keys(json)).toEqual(['__proto__']);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });

  it.each([
    ['policy p\n  rule r\n    set object.a = \n', 3, 19, /unexpected end of line/],
    ['policy p\n  rule r\n    set object.a[x] = 1\n', 3, 19, /invalid path/],
    ['policy p\n   rule r\n', 2, 1, /multiple of 2/],
    ['policy p\n    rule r\n', 2, 1, /unexpected indentation/],
    ['policy p\n  rule r\n    frobnicate object.a\n', 3, 5, /unexpected "frobnicate"/],
    ['rule r\n', 1, 1, /top level/],
    ['policy p\n  rule r\n    else\n', 3, 5, /must follow a "when"/],
    ['policy p\n  semantics sometimes\n', 2, 13, /semantics order must be one of/],
    ['policy p\n  match {"globs": "regex"}\n', 2, 3, /invalid match/],
    ['policy p\n  rule r\n    set object.a = 1\n      remove object.b\n', 4, 7, /unexpected indented line/],
    ['policy p\n  rule r\n    set object.a = 1\n    guard true\n', 4, 5, /come before its operations/],
    ['policy p\n  rule r\n    set object.a = template "{{ x"\n', 3, 29, /unterminated/],
    ['policy p\n  rule r\n    image object.a tag=1\n', 3, 24, /quoted string/],
    ['policy p\n  rule r\n    forEach object.c in object.a order asc\n', 3, 13, /vars.<name>/],
    ['policy p\n  rule r\n    set object.a = "x" @\n', 3, 24, /unexpected character "@"/],
  ])('reports a syntax error with its position: %j', (text, line, col, message) => {
    const r = parseIrText('bad.txt', text);
    expect(r.ok).toBe(false);
    const d = r.diagnostics[0]!;
    expect(d.code).toBe('TM2006');
    expect(d.message).toMatch(message);
    expect([d.span?.file, d.span?.line, d.span?.col]).toEqual(['bad.txt', line, col]);
  });
});
