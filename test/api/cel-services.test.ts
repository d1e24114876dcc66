/**
 * Kyverno's cluster-data CEL libraries read their provider from the evaluation (EvalOptions.services), not
 * from module state (issue 12): one compiled program evaluates under two providers side by side, and without
 * one says the data is not supplied.
 */
import { describe, expect, it } from 'vitest';
import { compile } from '../../src/cel/index.js';
import type { KyvernoDataProvider } from '../../src/cel/lib/kyverno-context.js';

const provider = (team: string): KyvernoDataProvider => ({
  getResource: (_v, _r, _ns, name) => (name === 'cm' ? { data: { team } } : undefined),
  globalContext: (entry) => (entry === 'region' ? team.toUpperCase() : undefined),
});

describe('Kyverno CEL libraries and the evaluation services', () => {
  const program = compile("resource.Get('v1', 'configmaps', 'default', 'cm').data.team + '/' + globalContext.Get('region', '')", { variables: [], extraLibraries: ['kyverno'] });

  it('one program, two providers, two answers', () => {
    expect(program.ok).toBe(true);
    if (!program.ok) return;
    const a = program.value.eval({}, { services: { kyvernoData: provider('a') } });
    const b = program.value.eval({}, { services: { kyvernoData: provider('b') } });
    expect(a.ok && a.value).toBe('a/A');
    expect(b.ok && b.value).toBe('b/B');
  });

  it('without a provider, the library says what it needs', () => {
    if (!program.ok) return;
    const r = program.value.eval({});
    expect(r.ok).toBe(false);
    if (!r.ok) expect(r.error).toMatch(/^unsupported offline: Kyverno CEL library resource \(resource\.Get\) needs the cluster's objects/);
  });
});
