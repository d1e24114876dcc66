/** The two renderings of a run: one JSON object for machines, a table and a summary line for people. */
import type { CaseOutcome } from './types.js';

export interface Summary {
  total: number;
  passed: number;
  failed: number;
  error: number;
  unsupported: number;
  skipped: number;
  /** Of the unsupported cases, those whose translation the target cannot express, and those not translated yet. */
  cannot: number;
  yet: number;
}

export function summarize(outcomes: readonly CaseOutcome[]): Summary {
  const s: Summary = { total: outcomes.length, passed: 0, failed: 0, error: 0, unsupported: 0, skipped: 0, cannot: 0, yet: 0 };
  for (const o of outcomes) {
    s[o.status]++;
    if (o.status === 'unsupported' && o.class) s[o.class]++;
  }
  return s;
}

/**
 * `{"total","passed","failed","error","unsupported","skipped","cannot","yet","cases":[{"id","status","reason","class"}]}`;
 * no reason when passed, a class only for a refused translation.
 */
export function renderJson(outcomes: readonly CaseOutcome[], admittedDocuments?: number): string {
  const cases = outcomes.map((o) => (o.status === 'passed' || !o.reason ? { id: o.id, status: o.status } : { id: o.id, status: o.status, reason: o.reason, ...(o.class ? { class: o.class } : {}) }));
  return `${JSON.stringify({ ...summarize(outcomes), ...(admittedDocuments !== undefined ? { admittedDocuments } : {}), cases })}\n`;
}

/** A table of id, status and reason, then the line `N passed, N failed, N error, N unsupported, N skipped`. */
export function renderTable(outcomes: readonly CaseOutcome[]): string {
  const idWidth = Math.max(2, ...outcomes.map((o) => o.id.length));
  const statusWidth = 11;
  const row = (id: string, status: string, reason: string): string => `${id.padEnd(idWidth)}  ${status.padEnd(statusWidth)}  ${reason}`.trimEnd();
  const lines = [row('ID', 'STATUS', 'REASON')];
  for (const o of outcomes) lines.push(row(o.id, o.status, oneLine(o.reason ?? '')));
  lines.push(summaryLine(summarize(outcomes)));
  return `${lines.join('\n')}\n`;
}

export function summaryLine(s: Summary): string {
  const classes = s.cannot + s.yet > 0 ? ` (${s.cannot} cannot, ${s.yet} yet)` : '';
  return `${s.passed} passed, ${s.failed} failed, ${s.error} error, ${s.unsupported} unsupported${classes}, ${s.skipped} skipped`;
}

/** 1 when any case failed or errored (a CI gate); unsupported and skipped cases do not fail a run. */
export function exitCodeFor(outcomes: readonly CaseOutcome[]): number {
  return outcomes.some((o) => o.status === 'failed' || o.status === 'error') ? 1 : 0;
}

function oneLine(text: string): string {
  return text.replace(/\s*\n\s*/g, ' ');
}
