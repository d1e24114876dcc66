import { expect } from 'vitest';
import { compileJmes, type JmesContext, type JmesResult } from '../../src/jmespath/index.js';

export function run(expr: string, data: unknown = '', ctx?: JmesContext): JmesResult {
  const compiled = compileJmes(expr);
  if (!compiled.ok) throw new Error(`unexpected syntax error: ${compiled.diagnostics.map((d) => d.message).join('; ')}`);
  return compiled.value.search(data, ctx);
}

export function value(expr: string, data: unknown = '', ctx?: JmesContext): unknown {
  const r = run(expr, data, ctx);
  if (!r.ok) throw new Error(`${expr}: unexpected error ${r.error.kind}: ${r.error.message}`);
  return r.value;
}

export function expectError(expr: string, data: unknown = '', ctx?: JmesContext): { kind: string; message: string } {
  const r = run(expr, data, ctx);
  expect(r.ok, `${expr} should fail`).toBe(false);
  return (r as { ok: false; error: { kind: string; message: string } }).error;
}
