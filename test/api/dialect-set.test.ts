/** The dialect list is a value (issue 12): built-in dialects are frozen, a caller's own set changes nothing else. */
import { describe, expect, it } from 'vitest';
import type { Dialect } from '../../src/dialects/dialect.js';
import { BUILT_IN_DIALECTS, dialectByName, dialects, dialectSet, withDialects } from '../../src/dialects/registry.js';
import { loadDocuments, loadPolicies } from '../../src/index.js';
import { matchAll } from '../../src/ir/match.js';

const fake = (name: string, apiVersion = `${name}.transmute.test/v1`): Dialect => ({
  name,
  lowerings: [],
  recognizes: (doc) => (doc.value as { apiVersion?: unknown }).apiVersion === apiVersion,
  parse: (docs) => ({
    policies: docs.map((d, i) => ({ id: `${name}-${i}`, match: matchAll(), guards: [], rules: [], semantics: { order: 'sequential' }, origin: { file: d.file, line: 1, col: 1, endLine: 1, endCol: 1, dialect: name } })),
    diagnostics: [],
  }),
  generate: () => ({ documents: [], text: '', diagnostics: [] }),
});

describe('dialect sets', () => {
  it('the built-in list is frozen and cannot grow', () => {
    expect(Object.isFrozen(BUILT_IN_DIALECTS)).toBe(true);
    expect(Object.isFrozen(dialects())).toBe(true);
    expect(() => (dialects() as Dialect[]).push(fake('x'))).toThrow();
    expect(dialects().map((d) => d.name)).toEqual(['ir', 'kyverno', 'gatekeeper', 'map', 'kyverno-mpol']);
  });

  it("a caller's set adds its dialects without touching the built-in one; the first of a name wins", () => {
    const own = withDialects([fake('extra'), fake('kyverno', 'not-kyverno/v1')]);
    expect(own.names()).toEqual(['ir', 'kyverno', 'gatekeeper', 'map', 'kyverno-mpol', 'extra']);
    expect(own.byName('kyverno')).toBe(dialectByName('kyverno'));
    expect(dialectByName('extra')).toBeUndefined();
    expect(dialectSet([fake('a'), fake('a', 'other/v1')]).list).toHaveLength(1);
  });

  it('policies are read by the dialects given, and only by them', () => {
    const text = 'apiVersion: extra.transmute.test/v1\nkind: Fake\nmetadata:\n  name: p\n';
    const withExtra = loadPolicies(text, { dialects: withDialects([fake('extra')]), validate: 'ignore' });
    expect(withExtra.diagnostics).toEqual([]);
    expect(withExtra.policies.map((p) => p.id)).toEqual(['extra-0']);
    const builtIn = loadPolicies(text, { validate: 'ignore' });
    expect(builtIn.policies).toEqual([]);
    expect(builtIn.diagnostics.map((d) => d.code)).toEqual(['TM2001']);
    expect(loadDocuments(text).documents).toHaveLength(1);
  });
});
