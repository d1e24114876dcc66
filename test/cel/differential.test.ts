/**
 * Differential tests: seeded generated expressions evaluated by transmute, @bufbuild/cel and
 * @marcbachmann/cel-js. Wherever the two reference libraries agree with each other (same value, or
 * both an error), transmute must agree too; expressions either of them cannot parse or type-check,
 * and those they disagree on, have no consensus and are only counted.
 */
import { describe, expect, it } from 'vitest';
import { compile } from '../../src/cel/index.js';
import { ExprGen, runBuf, runMarc, showOurs, type Outcome } from './differential-gen.js';

const SEED = 20240611;
const COUNT = 600;

function runOurs(expr: string): Outcome {
  // The reference libraries evaluate plain CEL, where aggregate literals may mix types.
  const p = compile(expr, { homogeneousAggregateLiterals: false });
  if (!p.ok) return { kind: 'error', message: p.diagnostics[0]!.message };
  const r = p.value.eval({});
  return r.ok ? { kind: 'value', text: showOurs(r.value) } : { kind: 'error', message: r.error };
}

function same(a: Outcome, b: Outcome): boolean {
  if (a.kind === 'value' && b.kind === 'value') return a.text === b.text;
  return a.kind === 'error' && b.kind === 'error';
}

describe('differential: transmute vs @bufbuild/cel and @marcbachmann/cel-js', () => {
  it(`agrees with the consensus of both on ${COUNT} generated expressions`, () => {
    const gen = new ExprGen(SEED);
    const seen = new Set<string>();
    const stats = { generated: 0, consensus: 0, consensusErrors: 0, agree: 0, referencesDisagree: 0, oursLikeBuf: 0, oursLikeMarc: 0, unsupported: 0 };
    const neither: string[] = [];
    const disagreements: string[] = [];
    while (stats.generated < COUNT) {
      const expr = gen.next();
      if (seen.has(expr)) continue;
      seen.add(expr);
      stats.generated++;
      const b = runBuf(expr);
      const m = runMarc(expr);
      if (b.kind === 'unsupported' || m.kind === 'unsupported') {
        stats.unsupported++;
        continue;
      }
      if (!same(b, m)) {
        // No consensus: recorded for the report (which reference transmute sides with), not asserted.
        stats.referencesDisagree++;
        const ours = runOurs(expr);
        if (same(ours, b)) stats.oursLikeBuf++;
        else if (same(ours, m)) stats.oursLikeMarc++;
        else neither.push(`${expr} | ours ${JSON.stringify(ours)} | buf ${JSON.stringify(b)} | marc ${JSON.stringify(m)}`);
        continue;
      }
      stats.consensus++;
      if (b.kind === 'error') stats.consensusErrors++;
      const ours = runOurs(expr);
      if (same(ours, b)) stats.agree++;
      else disagreements.push(`${expr}\n    ours: ${JSON.stringify(ours)}\n    both: ${JSON.stringify(b)} / ${JSON.stringify(m)}`);
    }
    console.log(`differential (seed ${SEED}): ${JSON.stringify(stats)}`);
    if (process.env.CEL_DIFF_VERBOSE) console.log(neither.join('\n'));
    expect(disagreements).toEqual([]);
    // The generator must give the comparison something to bite on.
    expect(stats.consensus).toBeGreaterThan(COUNT / 3);
  });
});
