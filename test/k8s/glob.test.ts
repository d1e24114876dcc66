import { describe, expect, it } from 'vitest';
import {
  compileAnyGlob,
  compileGenerateNamePattern,
  compileGlob,
  compilePrefixSuffix,
  compileWildcard,
  globMatch,
  wildcardMatch,
} from '../../src/k8s/glob.js';

describe('wildcard (Kyverno, go-wildcard v1.0.3)', () => {
  const cases: [string, string, boolean][] = [
    ['', '', true],
    ['', 'a', false],
    ['*', '', true],
    ['*', 'anything/with/slashes', true],
    ['**', 'x', true],
    ['abc', 'abc', true],
    ['abc', 'abcd', false],
    ['ABC', 'abc', false], // case-sensitive
    ['a*', 'a', true],
    ['a*', 'abc', true],
    ['a*', 'ba', false],
    ['*c', 'abc', true],
    ['*c', 'ab', false],
    ['a*c', 'ac', true],
    ['a*c', 'abbbc', true],
    ['a*c', 'abcd', false],
    ['a*a', 'a', false], // prefix and suffix may not overlap
    ['*b*', 'abc', true],
    ['*b*', 'ac', false],
    ['a*b*c', 'aXbYc', true],
    ['a*b*c', 'acb', false],
    ['a*b*b', 'abb', true],
    ['a*bc*bc', 'abcbc', true],
    ['a*bc*bc', 'abcb', false],
    ['?', 'a', true],
    ['?', '', false], // `?` is exactly one character
    ['?', 'ab', false],
    ['a?c', 'abc', true],
    ['a?c', 'ac', false],
    ['*?', '', false],
    ['*?', 'x', true],
    ['?*?', 'ab', true],
    ['?*?', 'a', false],
    ['a*?c', 'abc', true],
    ['a*?c', 'ac', false],
    ['*.example.com', 'foo.example.com', true],
    ['*.example.com', 'example.com', false],
    ['kube-*', 'kube-system', true],
    ['[a]', '[a]', true], // no character classes
    ['a.c', 'abc', false], // `.` is literal
    ['\\*', '\\x', true], // no escape character: `\` is literal, `*` a wildcard
  ];
  for (const [pattern, subject, want] of cases) {
    it(`${JSON.stringify(pattern)} vs ${JSON.stringify(subject)} → ${want}`, () => {
      expect(wildcardMatch(pattern, subject)).toBe(want);
    });
  }

  it('`?` matches one code point, not one UTF-16 unit', () => {
    expect(wildcardMatch('a?b', 'a😀b')).toBe(true);
    expect(wildcardMatch('a??b', 'a😀b')).toBe(false);
    expect(wildcardMatch('*😀', 'xx😀')).toBe(true);
  });

  it('does not blow up on patterns that make backtracking matchers exponential', () => {
    const pattern = `${'a*'.repeat(30)}b`;
    const subject = 'a'.repeat(5000);
    const m = compileWildcard(pattern);
    const start = performance.now();
    expect(m(subject)).toBe(false);
    expect(m(`${subject}b`)).toBe(true);
    const q = compileWildcard(`${'?*'.repeat(30)}b`);
    expect(q(subject)).toBe(false);
    expect(performance.now() - start).toBeLessThan(500);
  });
});

describe('prefixSuffix (Gatekeeper util.Wildcard)', () => {
  const cases: [string, string, boolean][] = [
    ['kube-*', 'kube-system', true],
    ['kube-*', 'kube-', true],
    ['kube-*', 'my-kube-system', false],
    ['*-system', 'gatekeeper-system', true],
    ['*-system', 'system', false],
    ['*sys*', 'kube-system', true],
    ['*sys*', 'kube-public', false],
    ['*', 'anything', true],
    ['*', '', true],
    ['**', 'x', true],
    ['default', 'default', true],
    ['default', 'default2', false],
    ['de*ult', 'default', false], // a middle `*` is literal
    ['de*ult', 'de*ult', true],
    ['a?c', 'abc', false], // no `?`
    ['**a', '*a', true], // only one `*` is trimmed: suffix "*a"
    ['**a', 'ba', false],
  ];
  for (const [pattern, subject, want] of cases) {
    it(`${JSON.stringify(pattern)} vs ${JSON.stringify(subject)} → ${want}`, () => {
      expect(compilePrefixSuffix(pattern)(subject)).toBe(want);
      expect(globMatch(pattern, subject, 'prefixSuffix')).toBe(want);
    });
  }

  it('generateName is only matched by the prefix and contains forms', () => {
    expect(compileGenerateNamePattern('web-*')('web-')).toBe(true);
    expect(compileGenerateNamePattern('*eb*')('web-')).toBe(true);
    expect(compileGenerateNamePattern('*')('web-')).toBe(true);
    expect(compileGenerateNamePattern('*-abc')('web-abc')).toBe(false);
    expect(compileGenerateNamePattern('web-')('web-')).toBe(false);
  });
});

describe('exact and caching', () => {
  it('exact compares whole strings, `*` included', () => {
    expect(globMatch('*', 'x', 'exact')).toBe(false);
    expect(globMatch('*', '*', 'exact')).toBe(true);
  });

  it('compiles a pattern once per style', () => {
    expect(compileGlob('a*', 'wildcard')).toBe(compileGlob('a*', 'wildcard'));
    expect(compileGlob('a*', 'wildcard')).not.toBe(compileGlob('a*', 'prefixSuffix'));
  });

  it('compileAnyGlob ORs patterns and an empty list matches nothing', () => {
    expect(compileAnyGlob([], 'wildcard')('x')).toBe(false);
    const m = compileAnyGlob(['a', 'b*', 'c?'], 'wildcard');
    expect(['a', 'bcd', 'cd'].map(m)).toEqual([true, true, true]);
    expect(['b', 'ab', 'c', 'cde'].map((s) => m(s))).toEqual([true, false, false, false]);
    const lit = compileAnyGlob(['a?', 'b'], 'prefixSuffix');
    expect(lit('a?')).toBe(true);
    expect(lit('ab')).toBe(false);
  });
});
