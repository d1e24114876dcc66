/**
 * The formats `transmute test -o` writes, after `kyverno test` (cmd/cli/kubectl-kyverno/commands/test:
 * output.go printOutputFormats, output/table): the bordered table with its columns ID, POLICY, RULE,
 * RESOURCE, RESULT, REASON (MESSAGE with --detailed-results), one per test file; Markdown with the same
 * columns; JUnit XML as CI systems load it (testsuites > testsuite per test file > testcase with failure or
 * skipped, and the counts as attributes; kyverno's own JUnit is not well-formed, so only its grouping and
 * wording are kept). Rows whose status is `skipped` are rows transmute did not run (RESULT Skip, REASON Not run).
 */
import type { TestRow } from '../../io/test-row.js';
import type { Palette } from '../color.js';

export interface ReportRow extends TestRow {
  /** The table a row is printed in: the test file, or the PATH of golden cases. */
  group: string;
  /** 1-based within its group, as kyverno numbers the rows of each test. */
  id: number;
}

const HEADERS = ['ID', 'POLICY', 'RULE', 'RESOURCE', 'RESULT', 'REASON'] as const;

export function resultWord(row: TestRow): string {
  return row.status === 'passed' ? 'Pass' : row.status === 'failed' ? 'Fail' : 'Skip';
}

/** kyverno test's short reason: Ok, Excluded, Not run, Want X, got Y, Resource diff, Resource error, Not found. */
export function shortReason(row: TestRow): string {
  if (row.status === 'skipped') return 'Not run';
  if (row.status === 'passed') return row.reason.startsWith('Excluded') ? 'Excluded' : row.reason.startsWith('not compared') ? 'Not compared' : 'Ok';
  if (row.diff) return 'Resource diff';
  const want = /^want ([^,]*), got ([^:]*)/.exec(row.reason);
  if (want) return `Want ${want[1]}, got ${want[2]}`;
  if (row.reason.startsWith('patched resource')) return 'Resource error';
  if (/^(resource not found|policy \S+ is not among|rule \S+ is not a rule)/.test(row.reason)) return 'Not found';
  if (row.policy === '' && row.rule === '') return 'Golden case';
  return 'Error';
}

function firstLine(text: string): string {
  const i = text.indexOf('\n');
  return i < 0 ? text : text.slice(0, i);
}

/** The bordered table (lensesio/tableprinter as kyverno configures it: │ borders, ─ rules, header row). */
export function renderTable(rows: readonly ReportRow[], detailed: boolean, p: Palette): string {
  const headers: string[] = [...HEADERS, ...(detailed ? ['MESSAGE'] : [])];
  const cells = rows.map((r) => {
    const line = [String(r.id), r.policy, r.rule, r.resource, resultWord(r), shortReason(r)];
    if (detailed) line.push(firstLine(r.reason));
    return line;
  });
  const widths = headers.map((h, i) => Math.max(h.length, ...cells.map((c) => [...c[i]!].length)));
  const rule = `│${widths.map((w) => '─'.repeat(w + 2)).join('│')}│\n`;
  const paint = (text: string, column: number, row: ReportRow | undefined): string => {
    if (!row) return p.green(text);
    if (column >= 1 && column <= 3) return p.bold(p.cyan(text));
    if (column === 4) return row.status === 'passed' ? p.bold(p.green(text)) : row.status === 'failed' ? p.bold(p.red(text)) : p.bold(p.cyan(text));
    return text;
  };
  const line = (values: readonly string[], row: ReportRow | undefined): string =>
    `│${values.map((v, i) => ` ${paint(v, i, row)}${' '.repeat(widths[i]! - [...v].length)} `).join('│')}│\n`;
  let out = rule + line(headers, undefined) + rule;
  rows.forEach((r, i) => (out += line(cells[i]!, r)));
  return out + rule;
}

export function renderMarkdown(rows: readonly ReportRow[], detailed: boolean): string {
  const headers: string[] = [...HEADERS, ...(detailed ? ['MESSAGE'] : [])];
  const cell = (s: string): string => s.replace(/\|/g, '\\|').replace(/\n/g, ' ');
  let out = `| ${headers.join(' | ')} |\n|${headers.map(() => '----|').join('')}\n`;
  for (const r of rows) {
    const values = [String(r.id), r.policy, r.rule, r.resource, resultWord(r), shortReason(r), ...(detailed ? [r.reason] : [])];
    out += `| ${values.map(cell).join(' | ')} |\n`;
  }
  return out;
}

/** XML 1.0 text: the five escapes, and characters XML cannot hold written as U+FFFD. */
function xml(text: string): string {
  return text
    .replace(/[^\t\n\r\x20-\uD7FF\uE000-\uFFFD\u{10000}-\u{10FFFF}]/gu, '\uFFFD')
    .replace(/&/g, '&amp;')
    .replace(/</g, '&lt;')
    .replace(/>/g, '&gt;')
    .replace(/"/g, '&quot;')
    .replace(/'/g, '&apos;');
}

export function renderJunit(rows: readonly ReportRow[], detailed: boolean): string {
  const groups = new Map<string, ReportRow[]>();
  for (const r of rows) (groups.get(r.group) ?? groups.set(r.group, []).get(r.group)!).push(r);
  const count = (list: readonly ReportRow[], status: TestRow['status']): number => list.filter((r) => r.status === status).length;
  let out = '<?xml version="1.0" encoding="UTF-8"?>\n';
  out += `<testsuites name="transmute test" tests="${rows.length}" failures="${count(rows, 'failed')}" errors="0" skipped="${count(rows, 'skipped')}">\n`;
  for (const [group, list] of groups) {
    out += `  <testsuite name="${xml(group)}" tests="${list.length}" failures="${count(list, 'failed')}" errors="0" skipped="${count(list, 'skipped')}">\n`;
    for (const r of list) {
      const name = [r.rule, r.resource].filter((x) => x !== '').join(' ') || r.group;
      out += `    <testcase classname="${xml(r.policy || group)}" name="${xml(name)}">\n`;
      const details = `Policy: ${r.policy}\nRule: ${r.rule}\nResource: ${r.resource}\nResult: ${resultWord(r)}\nReason: ${r.reason}${r.diff ? `\n${r.diff}` : ''}`;
      if (r.status === 'failed') out += `      <failure message="${xml(shortReason(r))}" type="${xml(shortReason(r))}">${xml(details)}</failure>\n`;
      else if (r.status === 'skipped') out += `      <skipped message="${xml(firstLine(r.reason))}"/>\n`;
      else if (detailed) out += `      <system-out>${xml(details)}</system-out>\n`;
      out += '    </testcase>\n';
    }
    out += '  </testsuite>\n';
  }
  return `${out}</testsuites>\n`;
}
