/**
 * The report of a migration, per source policy in library order: `migrated and proven` (every row of both
 * suites passes, or where no test checks the policy, the library's example objects come out of both alike), `migrated with differences` (the rows that do not, and how), `migrated, untested` (no
 * suite row tests it: nothing proves it), `not migrated` (each refused construct with its place and class),
 * `left as is` (no mutate rule, or a policy language migrate does not read); then the suites and a summary.
 * The same model is printed as text or as JSON.
 */
import { formatSpan } from '../diagnostics/span.js';
import type { Library, MigrateTarget, Outcome, PolicyStatus, ProofRow, Refusal, RowResult, RuleKind, SuiteOutcome } from './model.js';
import { STATUS_LABEL } from './model.js';
import { passes } from './prove.js';

export interface PolicyReport {
  source: { file: string; line: number; col: number; kind: string; name: string; namespace?: string };
  status: PolicyStatus;
  /** The migrated policy (kind, name) and the file it is in; `byRule`: the policy each mutate-existing rule became, where the source became several. */
  migrated?: { file: string; kind: string; name: string; namespace?: string; group?: string[]; byRule?: Record<string, { kind: string; name: string; namespace?: string }> };
  /** Why a policy is left as is. */
  reason?: string;
  refusals: Refusal[];
  /** Known differences the translation reported (TM4002/TM4003) and other warnings. */
  notes: Refusal[];
  /** Rules of the source that are not mutations: they stay in the source policy as written. */
  leftRules: { name: string; kind: RuleKind }[];
  rows: ProofRow[];
}

export interface MigrateReport {
  dir: string;
  outDir: string;
  to: MigrateTarget;
  apiVersion?: string;
  summary: {
    mutatePolicies: number;
    proven: number;
    differences: number;
    untested: number;
    notMigrated: number;
    leftAsIs: number;
    rows: number;
    differingRows: number;
  };
  policies: PolicyReport[];
  suites: SuiteOutcome[];
  warnings: string[];
}

export interface ReportInput {
  library: Library;
  outcomes: ReadonlyMap<string, Outcome>;
  proofs: ReadonlyMap<string, ProofRow[]>;
  suites: readonly SuiteOutcome[];
  outDir: string;
  to: MigrateTarget;
  apiVersion?: string;
}

function rowOk(r: ProofRow): boolean {
  return passes(r.original) && passes(r.migrated);
}

export function buildReport(input: ReportInput): MigrateReport {
  const { library, outcomes, proofs } = input;
  const out = input.outDir.replace(/\/+$/, '');
  const policies: PolicyReport[] = [];
  /** One entry, its fields in the order a reader wants them. */
  const entry = (e: Pick<PolicyReport, 'source' | 'status'> & Partial<PolicyReport>): PolicyReport => ({
    source: e.source,
    status: e.status,
    ...(e.migrated ? { migrated: e.migrated } : {}),
    ...(e.reason !== undefined ? { reason: e.reason } : {}),
    refusals: e.refusals ?? [],
    notes: e.notes ?? [],
    leftRules: e.leftRules ?? [],
    rows: e.rows ?? [],
  });
  for (const p of library.policies) {
    const outcome = outcomes.get(p.key)!;
    const source = { file: p.file.path, line: p.span.line, col: p.span.col, kind: p.kind, name: p.name, ...(p.namespace !== undefined ? { namespace: p.namespace } : {}) };
    const leftRules = p.dialect === 'kyverno' ? p.rules.filter((r) => r.kind !== 'mutate' && r.kind !== 'mutate-existing').map((r) => ({ name: r.name, kind: r.kind })) : [];
    if (outcome.status === 'left') {
      policies.push(entry({ source, status: 'left-as-is', reason: outcome.reason, leftRules }));
      continue;
    }
    if (outcome.status === 'refused') {
      policies.push(entry({ source, status: 'not-migrated', refusals: outcome.refusals, notes: outcome.notes, leftRules }));
      continue;
    }
    // The mutators of a group are one policy in OUT: a row about any of them tests all of them.
    const rows = (outcome.groupKeys ?? [p.key]).flatMap((k) => proofs.get(k) ?? []);
    const proving = rows.filter((r) => r.notRun === undefined);
    const status: PolicyStatus = proving.length === 0 ? 'untested' : proving.every(rowOk) ? 'proven' : 'differences';
    const { kind, name, namespace } = outcome.target;
    const byRule = outcome.ruleTargets && Object.fromEntries(Object.entries(outcome.ruleTargets).map(([rule, t]) => [rule, { kind: t.kind, name: t.name, ...(t.namespace !== undefined ? { namespace: t.namespace } : {}) }]));
    const migrated = { file: `${out}/${p.file.rel}`, kind, name, ...(namespace !== undefined ? { namespace } : {}), ...(outcome.group ? { group: outcome.group } : {}), ...(byRule ? { byRule } : {}) };
    policies.push(entry({ source, status, migrated, notes: outcome.notes, leftRules, rows }));
  }
  for (const o of library.others) {
    const cel = /^(Mutating|NamespacedMutating)(Admission)?Policy$/.test(o.kind);
    const source = { file: o.file.path, line: o.span.line, col: o.span.col, kind: o.kind, name: o.name };
    policies.push(entry({ source, status: 'left-as-is', reason: cel ? `already a ${o.kind}; copied unchanged` : `not a mutation (${o.kind}); copied unchanged` }));
  }
  policies.sort((a, b) => (a.source.file < b.source.file ? -1 : a.source.file > b.source.file ? 1 : a.source.line - b.source.line));
  const count = (s: PolicyStatus) => policies.filter((p) => p.status === s).length;
  const unique = new Map(policies.flatMap((p) => p.rows.filter((r) => r.notRun === undefined)).map((r) => [`${r.suite}\u0000${r.entry}\u0000${r.resource}`, r]));
  const allRows = [...unique.values()];
  return {
    dir: library.dir,
    outDir: input.outDir,
    to: input.to,
    ...(input.apiVersion ? { apiVersion: input.apiVersion } : {}),
    summary: {
      mutatePolicies: policies.length - count('left-as-is'),
      proven: count('proven'),
      differences: count('differences'),
      untested: count('untested'),
      notMigrated: count('not-migrated'),
      leftAsIs: count('left-as-is'),
      rows: allRows.length,
      differingRows: allRows.filter((r) => !rowOk(r)).length,
    },
    policies,
    suites: [...input.suites],
    warnings: library.warnings.map((d) => `${d.span ? `${formatSpan(d.span)}: ` : ''}${d.message}`),
  };
}

/** Exit status: 0 when every mutate policy was migrated and proven (and there was one), 1 otherwise. */
export function reportExit(r: MigrateReport): 0 | 1 {
  return r.summary.mutatePolicies > 0 && r.summary.proven === r.summary.mutatePolicies ? 0 : 1;
}

function nameOf(s: { name: string; namespace?: string }): string {
  return s.namespace !== undefined ? `${s.namespace}/${s.name}` : s.name;
}

function where(r: Refusal): string {
  return r.span ? `${formatSpan(r.span)}: ` : '';
}

function indent(text: string, by: string): string {
  return text.replace(/\n$/, '').replace(/^(?=.)/gm, by);
}

/** Where a row comes from: a suite's result entry, or an example object's document in its file. */
function rowPlace(row: ProofRow): string {
  return row.sample ? `${row.suite} (example object, document ${row.entry + 1})` : `${row.suite} results[${row.entry}]`;
}

function side(label: string, r: RowResult): string[] {
  const lines = [`    ${label}: ${r.status}${r.status === 'failed' ? `: ${r.reason.replace(/\n/g, '\n      ')}` : ''}`];
  if (r.diff) lines.push(indent(r.diff, '        '));
  return lines;
}

const WIDTH = Math.max(...Object.values(STATUS_LABEL).map((l) => l.length));

export function renderText(r: MigrateReport): string {
  const lines: string[] = [];
  for (const p of r.policies) {
    const head = `${STATUS_LABEL[p.status].padEnd(WIDTH)}  ${p.source.file}:${p.source.line}:${p.source.col} ${p.source.kind} ${nameOf(p.source)}`;
    if (p.status === 'left-as-is') {
      lines.push(`${head}: ${p.reason ?? ''}`);
      continue;
    }
    if (p.status === 'not-migrated') {
      lines.push(head);
      for (const x of p.refusals) lines.push(`  ${where(x)}${x.class} ${x.code}: ${x.message}`);
    } else {
      const m = p.migrated!;
      const proving = p.rows.filter((x) => x.notRun === undefined);
      const unrun = p.rows.length - proving.length;
      const couldNot = unrun > 0 ? `; ${unrun} row${unrun === 1 ? '' : 's'} could not run` : '';
      const samples = proving.length > 0 && proving.every((x) => x.sample === true);
      const unit = samples ? 'example object' : 'row';
      const checked = proving.length === 0 ? `no suite row tests it${couldNot}` : `${proving.length} ${unit}${proving.length === 1 ? '' : 's'}${couldNot}`;
      lines.push(`${head} -> ${m.kind} ${nameOf(m)} in ${m.file} (${checked})`);
      if (m.group) lines.push(`  translated with the mutators of its file, as one fix-point: ${m.group.join(', ')}`);
      for (const [rule, t] of Object.entries(m.byRule ?? {})) lines.push(`  rule ${rule}, which mutates existing resources -> ${t.kind} ${nameOf(t)}`);
      for (const row of p.rows.filter((x) => x.notRun !== undefined)) lines.push(`  ${rowPlace(row)} ${row.resource}: not run: ${row.notRun}`);
      for (const row of proving.filter((x) => !rowOk(x))) {
        const both = !passes(row.original) && !passes(row.migrated);
        lines.push(`  ${rowPlace(row)} ${row.resource}${both ? ' (fails in the original suite too)' : ''}`);
        lines.push(...side('original', row.original), ...side('migrated', row.migrated));
        if (row.before && passes(row.original)) {
          lines.push(`    note: the suite applies ${row.before.join(', ')} before it, not migrated to ${p.migrated!.kind}; the runner applies only the policies of the row's own kind before it`);
        }
      }
    }
    for (const n of p.notes) lines.push(`  note: ${where(n)}${n.code}: ${n.message}`);
    for (const rule of p.leftRules) lines.push(`  left as is: rule ${rule.name || '(unnamed)'} (${rule.kind}), kept in ${p.source.kind} ${nameOf(p.source)}`);
  }
  for (const s of r.suites) for (const problem of s.problems) lines.push(`suite ${r.dir.replace(/\/+$/, '')}/${s.rel}: ${problem}`);
  for (const w of r.warnings) lines.push(`warning: ${w}`);
  const s = r.summary;
  lines.push(
    `${s.mutatePolicies} mutate polic${s.mutatePolicies === 1 ? 'y' : 'ies'}: ${s.proven} migrated and proven, ${s.differences} migrated with differences, ${s.untested} migrated untested, ${s.notMigrated} not migrated; ${s.leftAsIs} left as is`,
  );
  return `${lines.join('\n')}\n`;
}

export function renderJson(r: MigrateReport): string {
  return `${JSON.stringify(r, null, 2)}\n`;
}
