/**
 * Kyverno's add/subtract of quantity strings compiled to CEL (src/lowering/jmes-cel/quantity.ts), against
 * transmute's Kyverno JMESPath engine: every whole-number result within int64 must be the same text; any other
 * result may only fail through transmute's guard, never differ.
 */
import { describe, expect, it } from 'vitest';
import { toJson } from '../../../src/cel/index.js';
import { GUARD_MARKER } from '../../../src/lowering/jmes-cel/frag.js';
import { jmesToCel } from '../../../src/lowering/jmes-cel/index.js';
import { canonical, celActivation, compileCel, jmesContext, runJmes, SCOPE, TARGETS, type Doc, type Outcome } from './harness.js';

const OPERANDS = [
  '0', '1', '-1', '999', '1000', '1023', '1024', '-1024', '1500', '15000', '1e3', '1E3', '2e0', '1.5e3', '5E', '3P', '1k', '1M', '7G',
  '1Ki', '1Mi', '1.5Gi', '1536Mi', '-2Ki', '0Mi', '512Ki', '1Ei', '100m', '500m', '1500m', '+5', '.5k', '3.', '1u', '9223372036854775807', '8E',
];
/** Strings that are not quantities: Go durations and junk. */
const OTHERS = ['1h', '90s', 'abc', ' 1', '1Ki5'];

/** Whether Kyverno's result text is a quantity whose value is a whole number within int64 (what the CEL prints). */
function wholeInt64(text: string): boolean {
  const m = /^(-?)(\d+)(?:\.(\d+))?(Ki|Mi|Gi|Ti|Pi|Ei|[numkMGTPE]|e-?\d+)?$/.exec(text);
  if (!m) return false;
  const [, sign, whole, frac = '', suffix = ''] = m;
  let num = BigInt(whole! + frac);
  let den = 10n ** BigInt(frac.length);
  const bin: Record<string, bigint> = { Ki: 2n ** 10n, Mi: 2n ** 20n, Gi: 2n ** 30n, Ti: 2n ** 40n, Pi: 2n ** 50n, Ei: 2n ** 60n };
  const dec: Record<string, number> = { '': 0, n: -9, u: -6, m: -3, k: 3, M: 6, G: 9, T: 12, P: 15, E: 18 };
  if (bin[suffix]) num *= bin[suffix]!;
  else {
    const e = dec[suffix] ?? Number(suffix.slice(1));
    if (e >= 0) num *= 10n ** BigInt(e);
    else den *= 10n ** BigInt(-e);
  }
  if (num % den !== 0n) return false;
  const v = (sign === '-' ? -1n : 1n) * (num / den);
  return v <= 2n ** 63n - 1n && v >= -(2n ** 63n);
}

describe('JMESPath → CEL: add/subtract of quantity strings', () => {
  for (const { name, target } of TARGETS) {
    for (const fn of ['add', 'subtract']) {
      it(`${name}: ${fn}(a, b) prints Kyverno's canonical quantity`, () => {
        const expr = `${fn}(request.object.spec.a, request.object.spec.b)`;
        const c = jmesToCel(expr, SCOPE, target);
        if (!c.ok) throw new Error(c.why);
        const compiled = compileCel(c.cel, target);
        if (!compiled.ok) throw new Error(compiled.diagnostics[0]!.message);
        const program = compiled.value;
        const run = (activation: Record<string, unknown>): Outcome => {
          const r = program.eval(activation, { costLimit: Infinity });
          return r.ok ? { ok: true, json: canonical(toJson(r.value)) } : { ok: false, message: r.error };
        };
        let exact = 0;
        for (const a of [...OPERANDS, ...OTHERS]) {
          for (const b of [...OPERANDS, ...OTHERS, 7]) {
            const doc: Doc = { name: `${a} ${b}`, object: { spec: { a, b } } };
            const kyverno = runJmes(expr, jmesContext(doc));
            const cel = run(celActivation(doc));
            const where = `${fn}(${JSON.stringify(a)}, ${JSON.stringify(b)})`;
            if (kyverno.ok && cel.ok) {
              expect(cel.json, where).toBe(kyverno.json);
              exact++;
            } else if (kyverno.ok) {
              const text = JSON.parse(kyverno.json) as unknown;
              // Only what the CEL does not print may fail, and only through the guard.
              expect(typeof text === 'string' && wholeInt64(text), `${where}: Kyverno ${kyverno.json}, CEL ${(cel as { message: string }).message}`).toBe(false);
              expect((cel as { message: string }).message, where).toContain(GUARD_MARKER);
            } else {
              expect(cel.ok, `${where}: Kyverno fails (${kyverno.message}), CEL gives ${(cel as { json: string }).json}`).toBe(false);
            }
          }
        }
        expect(exact).toBeGreaterThan(500);
      });
    }
  }
});
