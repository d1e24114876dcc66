import { describe, expect, it } from 'vitest';
import { parseCel } from '../../grammars/cel.js';
import { compile, parse } from '../../src/cel/index.js';
import { renderDiagnostic, SourceRegistry } from '../../src/diagnostics/index.js';

function ok(src: string) {
  const r = parseCel(src);
  if (!r.ok) throw new Error(`${src}: ${r.message}`);
  return r.expr;
}

describe('CEL parser', () => {
  it('parses literals, precedence and member access like cel-go', () => {
    expect(ok('1 + 2 * 3')).toMatchObject({ kind: 'call', fn: '_+_', args: [{ lit: { value: 1 } }, { fn: '_*_' }] });
    expect(ok('a || b && c')).toMatchObject({ fn: '_||_', args: [{ name: 'a' }, { fn: '_&&_' }] });
    expect(ok('a ? b : c ? d : e')).toMatchObject({ fn: '_?_:_', args: [{}, {}, { fn: '_?_:_' }] });
    expect(ok('-9223372036854775808')).toMatchObject({ kind: 'literal', lit: { type: 'int', value: -(2n ** 63n) } });
    expect(ok('0x1Fu')).toMatchObject({ lit: { type: 'uint', value: 31n } });
    expect(ok('.5e1')).toMatchObject({ lit: { type: 'double', value: 5 } });
    expect(ok(`r'\\n' + '''a\nb''' + b'\\xff'`)).toMatchObject({ kind: 'call' });
    expect(ok('x in [1, 2,]')).toMatchObject({ fn: '@in' });
    expect(ok('a.b[0].c()')).toMatchObject({ kind: 'call', fn: 'c', target: { kind: 'index', operand: { kind: 'select' } } });
  });

  it('parses optional syntax, message construction and backquoted fields', () => {
    expect(ok('a.?b[?"k"]')).toMatchObject({ kind: 'index', optional: true, operand: { kind: 'select', optional: true } });
    expect(ok('{?"a": x, "b": 1}')).toMatchObject({ kind: 'map', entries: [{ optional: true }, { optional: false }] });
    expect(ok('[?x, y]')).toMatchObject({ kind: 'list', optional: [true, false] });
    expect(ok('Object.spec.containers{name: "x", `a-b`: 1, ?c: o}')).toMatchObject({
      kind: 'struct',
      typeName: 'Object.spec.containers',
      fields: [{ name: 'name' }, { name: 'a-b' }, { name: 'c', optional: true }],
    });
    expect(ok('JSONPatch{op: "add", path: "/x", value: 1}')).toMatchObject({ kind: 'struct', typeName: 'JSONPatch' });
    expect(ok('x.`foo.bar`')).toMatchObject({ kind: 'select', field: 'foo.bar' });
  });

  it('expands macros, including two-variable comprehensions', () => {
    expect(ok('has(a.b)')).toMatchObject({ kind: 'select', testOnly: true });
    expect(ok('l.all(x, x > 0)')).toMatchObject({ kind: 'comprehension', macro: 'all', iterVar: 'x' });
    expect(ok('l.map(x, x > 0, x * 2)')).toMatchObject({ macro: 'map', args: [{}, {}] });
    expect(ok('m.exists(k, v, v == 1)')).toMatchObject({ macro: 'exists', iterVar: 'k', iterVar2: 'v' });
    expect(ok('m.existsOne(k, v, v == 1)')).toMatchObject({ macro: 'exists_one' });
    expect(ok('m.transformMapEntry(k, v, {v: k})')).toMatchObject({ macro: 'transformMapEntry' });
    expect(parseCel('l.all(x.y, true)')).toMatchObject({ ok: false, message: 'argument must be a simple name' });
    expect(parseCel('has(a)')).toMatchObject({ ok: false, message: 'invalid argument to has() macro' });
    expect(parseCel('m.all(k, v, true)', { twoVarComprehensions: false })).toMatchObject({ ok: true, expr: { kind: 'call' } });
  });

  it('reports syntax errors with offsets, and reserved identifiers', () => {
    expect(parseCel('1 + ')).toMatchObject({ ok: false, start: 4 });
    expect(parseCel('a.b(')).toMatchObject({ ok: false });
    expect(parseCel('"abc')).toMatchObject({ ok: false, message: 'Syntax error: unterminated string literal', start: 0 });
    expect(parseCel('a = b')).toMatchObject({ ok: false, start: 2 });
    expect(parseCel('if')).toMatchObject({ ok: false, message: 'reserved identifier: if' });
    expect(ok('{"if": 1}.if')).toMatchObject({ kind: 'select', field: 'if' });
    expect(parseCel('9223372036854775808')).toMatchObject({ ok: false, message: 'invalid int literal' });
    expect(parseCel('"\\q"')).toMatchObject({ ok: false });
  });

  it('renders a diagnostic with a caret, mapped through locate', () => {
    const yaml = 'spec:\n  expression: object.spec.replicas +\n';
    const base = yaml.indexOf('object');
    const sources = new SourceRegistry();
    const index = sources.add('policy.yaml', yaml);
    const r = parse('object.spec.replicas +', (s, e) => index.span('policy.yaml', base + s, base + e));
    expect(r.ok).toBe(false);
    const d = r.diagnostics[0]!;
    expect(d.code).toBe('TM5001');
    expect(d.span).toMatchObject({ file: 'policy.yaml', line: 2 });
    const text = renderDiagnostic(d, sources);
    expect(text).toContain('policy.yaml:2:');
    expect(text).toContain('^');
  });

  it('defaults spans to the pseudo-file <expr>', () => {
    const r = compile('1 +');
    expect(r.ok).toBe(false);
    expect(r.diagnostics[0]!.span).toMatchObject({ file: '<expr>', line: 1, col: 4 });
  });
});

describe('hostile input', () => {
  it('100,000 nested parentheses fail cleanly within a second', () => {
    const src = '('.repeat(100_000) + '1' + ')'.repeat(100_000);
    const t = performance.now();
    const r = parseCel(src);
    expect(performance.now() - t).toBeLessThan(1000);
    expect(r).toMatchObject({ ok: false, message: 'expression code point size exceeds limit: size: 200001, limit 100000' });
    const smaller = '('.repeat(40_000) + '1' + ')'.repeat(40_000);
    expect(parseCel(smaller)).toMatchObject({ ok: false, message: 'expression recursion limit exceeded: 250' });
  });

  it('deep nesting of other forms is a recursion error, not a stack overflow', () => {
    expect(parseCel('['.repeat(300) + ']'.repeat(300))).toMatchObject({ ok: false, message: 'expression recursion limit exceeded: 250' });
    expect(parseCel('a ? '.repeat(300) + 'b' + ' : c'.repeat(300))).toMatchObject({ ok: false });
    // cel-go's limit is 250 per grammar rule including the top-level expr: 249 levels parse (nesting.test.ts).
    expect(parseCel('('.repeat(249) + '1' + ')'.repeat(249))).toMatchObject({ ok: true });
  });

  it('a 10 MB string literal fails cleanly within a second', () => {
    const src = '"' + 'a'.repeat(10 * 1024 * 1024) + '"';
    const t = performance.now();
    const r = compile(src);
    expect(performance.now() - t).toBeLessThan(1000);
    expect(r.ok).toBe(false);
    expect(r.diagnostics[0]!.message).toMatch(/code point size exceeds limit/);
  });
});
