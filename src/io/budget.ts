/**
 * The input budget of one run: how many bytes of input transmute reads before it refuses, checked from the
 * files' sizes before reading any of them. Loading costs several times the size of the text (the text itself,
 * the values, the line index), so an unbounded run over a folder of dumps ends in a V8 heap abort; a budget turns
 * that into a diagnostic and exit 2 in milliseconds.
 */
import { diagnostic, type Diagnostic } from '../diagnostics/diagnostic.js';
import type { Span } from '../diagnostics/span.js';

/** The default total of one run's inputs: far above any policy library, within a 2 GiB heap at ~10× per byte. */
export const DEFAULT_MAX_TOTAL_BYTES = 128 * 1024 * 1024;

/** `1536` → `1.5 KiB`: sizes as people read them, exact below 1 KiB. */
export function formatBytes(n: number): string {
  const units = ['KiB', 'MiB', 'GiB', 'TiB'];
  if (n < 1024) return `${n} bytes`;
  let v = n / 1024;
  let unit = 0;
  while (v >= 1024 && unit < units.length - 1) {
    v /= 1024;
    unit++;
  }
  return `${v.toFixed(v < 10 ? 1 : 0)} ${units[unit]}`;
}

/**
 * `16Mi`, `2G`, `500000`: a byte count as Kubernetes quantities write it (binary `Ki`/`Mi`/`Gi`/`Ti`, decimal
 * `k`/`K`/`M`/`G`/`T`), or undefined when it is not one.
 */
export function parseByteQuantity(text: string): number | undefined {
  const m = /^(\d+(?:\.\d+)?)(Ki|Mi|Gi|Ti|k|K|M|G|T)?$/.exec(text.trim());
  if (!m) return undefined;
  const factor: Record<string, number> = { Ki: 2 ** 10, Mi: 2 ** 20, Gi: 2 ** 30, Ti: 2 ** 40, k: 1e3, K: 1e3, M: 1e6, G: 1e9, T: 1e12 };
  const n = Number(m[1]) * (m[2] ? factor[m[2]]! : 1);
  return Number.isFinite(n) && n > 0 ? Math.floor(n) : undefined;
}

/**
 * The share of the budget policies may take. A byte of policy costs far more than a byte of resource (every rule
 * becomes IR nodes with source positions, every expression a compiled program), and no policy library comes near
 * it: the largest public ones are a few MiB.
 */
export const POLICY_SHARE = 4; // "a quarter" in the message below

export interface BudgetExcess {
  total: number;
  files: number;
  already: number;
  max: number;
  /** What the budget bounds: `input` (everything read) or `policy input` (a quarter of it). */
  label?: string;
}

export function overBudgetDiagnostic(file: string, o: BudgetExcess): Diagnostic {
  const span: Span = { file, line: 1, col: 1, endLine: 1, endCol: 1 };
  const what = `${o.files === 1 ? 'the input is' : `${o.files} inputs are`} ${formatBytes(o.total)}`;
  const before = o.already > 0 ? ` on top of ${formatBytes(o.already)} already read` : '';
  const label = o.label ?? 'input';
  const share = label === 'input' ? '' : ' (a quarter of the input budget)';
  return diagnostic('TM1010', {
    phase: 'io',
    span,
    message: `${what}${before}, over the ${label} budget of ${formatBytes(o.max)} for one run${share}; nothing was read (raise it with --max-input-size)`,
  });
}
