/**
 * The comparison the generated-vs-interpreted tests make of two `apply` results (test/compile): verdict,
 * object and patch (key order included), diagnostics, and the trace when asked. Gatekeeper's mutation-id
 * annotation is a fresh UUID per run (pkg/mutation/system.go), so it is the one thing masked.
 */
import type { ApplyResult } from '../../src/interpreter/index.js';

export interface Divergence {
  where: string;
  what: string;
}

const text = (v: unknown): string => JSON.stringify(v).replace(/("gatekeeper\.sh\/mutation-id":")[0-9a-f-]{36}/g, '$1<uuid>');
const diags = (r: ApplyResult): string => JSON.stringify(r.diagnostics.map((d) => [d.code, d.severity, d.message, d.span]));

/** How `compiled` differs from `interpreted` (empty when they agree). */
export function differences(compiled: ApplyResult, interpreted: ApplyResult, opts: { trace?: boolean } = {}): string[] {
  const out: string[] = [];
  if (compiled.allowed !== interpreted.allowed) out.push(`allowed ${compiled.allowed} vs ${interpreted.allowed}`);
  if (text(compiled.object) !== text(interpreted.object)) out.push(`object ${text(compiled.object)} vs ${text(interpreted.object)}`);
  if (text(compiled.patch) !== text(interpreted.patch)) out.push(`patch ${text(compiled.patch)} vs ${text(interpreted.patch)}`);
  if (diags(compiled) !== diags(interpreted)) out.push(`diagnostics ${diags(compiled)} vs ${diags(interpreted)}`);
  if (opts.trace && JSON.stringify(compiled.trace) !== JSON.stringify(interpreted.trace)) out.push(`trace ${JSON.stringify(compiled.trace)} vs ${JSON.stringify(interpreted.trace)}`);
  return out;
}

/** The first ten divergences, one a line, for an assertion message. */
export function report(divergences: readonly Divergence[]): string {
  return divergences
    .slice(0, 10)
    .map((d) => `${d.where}: ${d.what.slice(0, 2000)}`)
    .join('\n');
}
