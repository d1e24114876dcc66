import { describe, expect, it } from 'vitest';
import { anchorString, goTrimSpace, parseAnchor, parseAnchorKey } from '../../../grammars/kyverno-anchor.js';

describe('kyverno anchor grammar (pkg/engine/anchor Parse)', () => {
  it.each([
    ['(name)', 'condition', 'name'],
    ['<(hostPath)', 'global', 'hostPath'],
    ['+(memory)', 'addIfNotPresent', 'memory'],
    ['=(kubernetes.io/os)', 'equality', 'kubernetes.io/os'],
    ['X(hostPath)', 'negation', 'hostPath'],
    ['^(containers)', 'existence', 'containers'],
    ['+(cluster-autoscaler.kubernetes.io/safe-to-evict)', 'addIfNotPresent', 'cluster-autoscaler.kubernetes.io/safe-to-evict'],
  ])('%s is a %s anchor on %s', (text, modifier, key) => {
    expect(parseAnchor(text)).toEqual({ modifier, key });
    expect(anchorString({ modifier: modifier as never, key })).toBe(text);
  });

  // The cases of upstream anchor_test.go: none of these is an anchor.
  it.each(['()', 'something', '(something', 'something)', 'so)m(et(hin)g', '', '^(abc', '^abc', '=(abc', '=abc', '+(abc', '+abc', 'X(abc', 'Xabc', '<(abc', '<abc', 'abc'])(
    '%j is a plain key',
    (text) => {
      expect(parseAnchor(text)).toBeUndefined();
      expect(parseAnchorKey(text)).toEqual({ kind: 'plain', key: text });
    },
  );

  it('follows the regular expression ^([+<=X^])?\\((.+)\\)$ exactly', () => {
    // Greedy key up to the last parenthesis.
    expect(parseAnchor('(a)(b)')).toEqual({ modifier: 'condition', key: 'a)(b' });
    expect(parseAnchor('((a))')).toEqual({ modifier: 'condition', key: '(a)' });
    expect(parseAnchor('(+(a))')).toEqual({ modifier: 'condition', key: '+(a)' });
    expect(parseAnchor('X(X)')).toEqual({ modifier: 'negation', key: 'X' });
    expect(parseAnchor('(()')).toEqual({ modifier: 'condition', key: '(' });
    // An empty key is no anchor; only one modifier; lower-case x is not the negation modifier.
    expect(parseAnchor('+()')).toBeUndefined();
    expect(parseAnchor('++(a)')).toBeUndefined();
    expect(parseAnchor('x(a)')).toBeUndefined();
    expect(parseAnchor('+abc)')).toBeUndefined(); // the unmerged hand-written parser (kyverno#10789) accepted this
    // RE2's `.` stops at a line feed.
    expect(parseAnchor('(a\nb)')).toBeUndefined();
    // Unicode keys are fine.
    expect(parseAnchor('(é😀)')).toEqual({ modifier: 'condition', key: 'é😀' });
  });

  it('trims like Go strings.TrimSpace before matching', () => {
    expect(parseAnchor(' (a) ')).toEqual({ modifier: 'condition', key: 'a' });
    expect(parseAnchor('\t+(a)\n')).toEqual({ modifier: 'addIfNotPresent', key: 'a' });
    expect(parseAnchor('\u00a0(a)\u3000')).toEqual({ modifier: 'condition', key: 'a' });
    // U+FEFF is not white space for Go.
    expect(goTrimSpace('\ufeff(a)')).toBe('\ufeff(a)');
    expect(parseAnchor('\ufeff(a)')).toBeUndefined();
    // Spaces inside the parentheses belong to the key.
    expect(parseAnchor('( a )')).toEqual({ modifier: 'condition', key: ' a ' });
  });

  it('reads a map key as an anchor or a plain key', () => {
    expect(parseAnchorKey('+(a)')).toEqual({ kind: 'anchor', modifier: 'addIfNotPresent', key: 'a' });
    expect(parseAnchorKey('a')).toEqual({ kind: 'plain', key: 'a' });
  });
});
