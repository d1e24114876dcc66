import { existsSync, statSync } from 'node:fs';
import { basename, dirname, join, resolve } from 'node:path';
import { diagnostic, type Diagnostic } from '../../diagnostics/diagnostic.js';
import { findTestFiles, loadTestSuites, runTestSuite, TEST_FILE_NAME, type SuiteRow, type TestSuite } from '../../dialects/kyverno/test-suite/index.js';
import { parseSelector, selectEntries, selectsRow, type Selector } from '../../dialects/kyverno/test-suite/selector.js';
import { findKaptestFiles, isKaptestFile, loadKaptest, runKaptest } from '../../dialects/map/kaptest/index.js';
import { CHAINSAW_TEST_FILE_NAME, loadChainsawTest } from '../../conformance/loaders/chainsaw-test.js';
import { runChainsawCase } from '../../conformance/runners/chainsaw.js';
import { listCases } from '../../golden/case.js';
import { loadExceptions, verdict } from '../../golden/exceptions.js';
import { runCaseDir } from '../../golden/run.js';
import { createRuntime } from '../../runtime/create.js';
import type { Runtime } from '../../runtime/runtime.js';
import { startCommand } from '../command-start.js';
import { EXIT, type CliIO } from '../io.js';
import { NO_COLOR_PALETTE, paintDiff, paintTestReport, paletteFor, type Palette } from '../color.js';
import { reportDiagnostics } from '../report.js';
import { validateMode } from '../validate-flag.js';
import type { ValidateMode } from '../../validate/admit.js';
import { renderJunit, renderMarkdown, renderTable, resultWord, shortReason, type ReportRow } from './test-output.js';

export const TEST_HELP = `Usage: transmute test PATH... [-o table|text|json|junit|markdown] [--detailed-results] [--fail-only]
                      [--remove-color] [-t "policy=P,rule=R,resource=N"] [--update] [--validate MODE]

Runs golden cases, Kyverno test suites, kaptest manifests and chainsaw tests, and reports each result as
'kyverno test' does.

A PATH that is a golden case folder (with case.yaml), or a folder of such folders, runs golden cases: each
input must parse to ir.txt, the IR must give the expected objects, each target dialect must emit the expected
text, the emitted policies must give the same objects again, and round trips must be stable. Known divergences
are listed in the exceptions.yaml next to the cases folder (golden/exceptions.yaml for the project's own cases);
it governs golden cases only, never Kyverno test suites.

Every file named kyverno-test.yaml under a PATH (searched recursively, hidden folders such as .kyverno-test/
included; only .git and node_modules are not entered), or given directly, is a Kyverno test
(cli.kyverno.io/v1alpha1 Test, or the legacy form): its policies are applied in order to each resource, with
the test's PolicyExceptions (kyverno.io ones exempt a rule, which then skips; CEL ones a MutatingPolicy), and
each result is checked per resource it names as 'kyverno test' checks it. A rule (or a MutatingPolicy,
MutatingAdmissionPolicy) with no response for the resource - it does not match - is "Excluded" and passes,
whatever the expected result. Otherwise the patched resource, when given, must equal the actual one (compared
after dropping nulls and empty maps and lists; a diff is printed when they differ), whatever the expected
result; a patched file that does not hold the resource leaves the row uncompared (it passes, as kyverno test
drops it, unless the result sets failOnMissingResources); then the rule's result must be the expected one
(pass, skip, fail, error, warn). A mutate rule is pass when it changed the resource, skip when its
preconditions are false, a PolicyException exempts it or it changed nothing, error when it failed; a
MutatingPolicy or MutatingAdmissionPolicy that matched and ran is pass even when it changed nothing. An expected
skip that skips is a pass. A rule name also covers its autogen- and autogen-cronjob- rules. A result whose
resource, policy or rule is not in the test fails. Results of validate, generate and verifyImages rules, and of
policies that never mutate (ValidatingPolicy, ImageValidatingPolicy, GeneratingPolicy, DeletingPolicy, their
Namespaced forms, ValidatingAdmissionPolicy, cleanup policies), are not run: listed with the reason, counted
apart, neither passing nor failing. Supported: policies, resources, exceptions, variables / values (operation,
namespaceSelector, per-rule context values, dotted keys nested as Kyverno's context nests them), userinfo,
apiCallResponses (apiCall context entries by urlPath), targetResources (mutate existing), clusterResources
(ClusterResource files: with them the test's resources and their objects form the fake cluster the
MutatingPolicy resource library and configMap context entries read, and the CRDs they name type custom
kinds), context (a Context file: its
images answer image reads, and without clusterResources its resources answer the resource library),
globalContextEntries (data, resources or resourceFiles, fieldPath, projections: the globalContext library, where
an entry the test lacks reads as null, and globalReference context entries), patchedResources, a result's
operation (its resources evaluated again with it, over the values file's request.operation). Each YAML
document of a kyverno-test.yaml is a test of its own. A test is decoded as kyverno test decodes it: a field the cli.kyverno.io/v1alpha1 Test does not have (a typo, the old
form's resource, patchedResource or status) or a value of the wrong type is an error at its line and column,
and so is the old form itself (no apiVersion or kind, or a top-level name), which kyverno test refuses since
1.15. A test that cannot be loaded is reported with its error and the others still run; the exit status is
then 2 (kyverno test stops before running any test).

Every file named kaptest.yaml under a PATH (as 'kaptest init' writes <policy>.test/kaptest.yaml; hidden
folders included), or a kaptest manifest given directly under any name, runs its mapTestSuites as pfnet/kaptest
does: each test's object (CREATE), object and oldObject (UPDATE) or oldObject alone (DELETE, always 'error' as
in kaptest) is looked up among the manifest's resources by kind and name (group, version, namespace when
given), with the param (by the policy's paramKind), the Namespace object of the object's namespace (a bare one
when absent), userInfo (name, groups, extra) and dryRun true. The result is 'error' (a mutation or match
condition failed under failurePolicy Fail), 'skip' (a match condition is false, or errors under Ignore) or
'mutate' (the policy ran; the object must equal expectObject, renamed to the object's name unless
disableNameOverwrite, nulls and empty maps and lists ignored; a diff is printed when they differ). The policy
runs with the suite's 'binding' when given, else with a binding that selects everything and names the test's
param. Unlike kaptest, transmute evaluates the policy's
matchConstraints and the binding's matchResources: a request they do not select is 'skip' (so a test expecting
'mutate' on a resource the policy does not match fails with that reason); and a test naming a resource, param,
policy or binding that is not there fails even when it expects 'error'. vapTestSuites are listed as not run.
Rows: policy is the MutatingAdmissionPolicy, rule the test's place (mapTestSuites[i].tests[j]), resource
kaptest's summary ('(CREATE) Deployment:ns/name', '(UPDATE) Kind:old -> new').

Every file named chainsaw-test.yaml under a PATH (hidden folders such as .chainsaw-test/ included), or given
directly, is a chainsaw test (chainsaw.kyverno.io/v1alpha1 Test) of Kyverno policies, MutatingPolicies or
MutatingAdmissionPolicies, replayed against the in-memory cluster of 'transmute conformance': its steps' try
operations in order (apply, create, update, patch of a file or an inline resource; a file of policies
installs them; delete; sleep; assert and error compared as chainsaw compares them, an assert of policies
waiting for them to be ready), each write an admission request with the API server's defaults, then the
policies' mutations, mutate-existing rules and MutatingPolicy background runs; Kyverno apiCall GETs,
configMap entries and GlobalContextEntries read the replayed cluster. catch, finally and cleanup
are not run. One row per test: policy names its mutating policies. Listed as not run, with the reason: a
script, command or wait operation, bindings or templating, expect or outputs, context data the replay does not
have, policies that do not mutate or mix dialects, an assert of a CustomResourceDefinition no step installs.

Options:
  -o, --output-format FORMAT
                   table: kyverno test's table per test file (columns ID, POLICY, RULE, RESOURCE, RESULT,
                   REASON), the default on a terminal; text: a line per result ('ok', 'FAIL' with the reason
                   and diff, 'skip' for a result not run), the default otherwise; json: {"total","passed",
                   "failed","notRun","results":[{"file","policy","rule","resource","status","reason"}]}
                   (status passed, failed or notRun; "file" is the test file as reached from PATH; golden
                   cases are rows with empty policy, rule and resource); junit: JUnit XML (testsuites >
                   testsuite per test file > testcase, failure or skipped); markdown: the table in Markdown
      --json       the same as -o json
      --detailed-results
                   add each result's full reason (MESSAGE column; text: the reason of every row)
      --fail-only  show only the failing results (the summary still counts them all)
      --remove-color
                   no colour in the table (also: not a terminal, --no-color, NO_COLOR)
  -t, --test-case-selector "policy=P,rule=R,resource=N"
                   run only the results whose policy, rule and one of whose resources match (wildcards * and
                   ?; a result without the field matches); a resource given without wildcards replaces the
                   results' resources, as kyverno test does
      --update     rewrite golden ir.txt, emit/*, diagnostics and expected results (review the diff!)
      --validate MODE
                   for Kyverno tests: strict (default) runs no policy a cluster would refuse (its results fail
                   with the reason); warn runs it anyway; ignore skips the admission checks
  -h, --help       show this help

Exit codes: 0 all passed; 1 a result failed, or no test was found, or no result was run (each said on
stderr); 2 bad usage, or a kyverno-test.yaml, chainsaw-test.yaml or kaptest manifest that cannot be read as a
test (not YAML, not a Test, a file it names missing or malformed; the others still run).
Summary (text): 'N passed, N failed' (', N not run' follows when some results were not run); table: 'Test
Summary: N tests passed and N tests failed'.
`;

const FORMATS = ['table', 'text', 'json', 'junit', 'markdown'] as const;
type Format = (typeof FORMATS)[number];

interface Counts {
  passed: number;
  failed: number;
  notRun: number;
  /** Failed golden checks listed in golden/exceptions.yaml: counted as failed, but they do not fail the run. */
  known: number;
}

interface Flags {
  update?: boolean;
  json?: boolean;
  'output-format'?: string;
  'detailed-results'?: boolean;
  'fail-only'?: boolean;
  'remove-color'?: boolean;
  'test-case-selector'?: string;
  validate?: string;
  help?: boolean;
}

/** What the run collected: the rows in order, each with its table group and id. */
class Report {
  readonly rows: ReportRow[] = [];
  readonly counts: Counts = { passed: 0, failed: 0, notRun: 0, known: 0 };
  private readonly ids = new Map<string, number>();

  add(group: string, row: SuiteRow): ReportRow {
    const id = (this.ids.get(group) ?? 0) + 1;
    this.ids.set(group, id);
    const r: ReportRow = { ...row, group, id };
    this.rows.push(r);
    if (row.status === 'passed') this.counts.passed++;
    else if (row.status === 'failed') this.counts.failed++;
    else this.counts.notRun++;
    return r;
  }
}

export async function runTest(argv: string[], io: CliIO): Promise<number> {
  const start = startCommand<Flags>(argv, io, {
    help: TEST_HELP,
    positionals: true,
    options: {
      update: { type: 'boolean' },
      json: { type: 'boolean' },
      'output-format': { type: 'string', short: 'o' },
      'detailed-results': { type: 'boolean' },
      'fail-only': { type: 'boolean' },
      'remove-color': { type: 'boolean' },
      'test-case-selector': { type: 'string', short: 't' },
      validate: { type: 'string' },
    },
  });
  if ('exit' in start) return start.exit;
  const { flags, positionals, usage } = start;
  if (positionals.length === 0) return usage('give at least one golden case folder, kyverno-test.yaml or kaptest manifest path');
  const mode = validateMode(flags.validate);
  if (typeof mode !== 'string') return usage(mode.error);
  const requested = flags['output-format'] ?? (flags.json ? 'json' : io.isTTY ? 'table' : 'text');
  if (!(FORMATS as readonly string[]).includes(requested)) return usage(`--output-format ${JSON.stringify(requested)}: want one of ${FORMATS.join(', ')}`);
  if (flags.json && requested !== 'json') return usage('--json and --output-format differ; give one of them');
  const format = requested as Format;
  let selector: Selector | undefined;
  if (flags['test-case-selector'] !== undefined) {
    const parsed = parseSelector(flags['test-case-selector']);
    if ('error' in parsed) return usage(`--test-case-selector: ${parsed.error}`);
    selector = parsed;
  }
  const palette = flags['remove-color'] || format !== 'table' ? NO_COLOR_PALETTE : paletteFor(io, 'stdout');
  const textPalette = flags['remove-color'] ? NO_COLOR_PALETTE : paletteFor(io, 'stdout');
  const report = new Report();
  // One runtime for the whole run (the default engines, built-in kinds); each case adds its own data to it.
  const runtime = createRuntime();
  // Test files that could not be read as tests: bad input (exit 2), not failed tests; the others still run.
  const unreadable: Diagnostic[] = [];
  let found = 0;
  for (const p of positionals) {
    if (!existsSync(p)) {
      reportDiagnostics(io, [diagnostic('TM1004', { phase: 'io', message: `${p}: no such file or folder` })], 'text');
      return EXIT.badInput;
    }
    const isFile = statSync(p).isFile();
    if (isFile && basename(p) !== TEST_FILE_NAME && basename(p) !== CHAINSAW_TEST_FILE_NAME && !isKaptestFile(p)) return usage(`${p}: not a golden case folder, a ${TEST_FILE_NAME} or a ${CHAINSAW_TEST_FILE_NAME}, nor a kaptest manifest`);
    const golden = isFile ? undefined : goldenDirs(p);
    if (golden && golden.dirs.length > 0) {
      found += golden.dirs.length;
      const status = runGolden(p, golden, Boolean(flags.update), report, selector, runtime);
      if (status !== undefined) {
        reportDiagnostics(io, [diagnostic('TM7003', { phase: 'io', message: status })], 'text');
        return EXIT.badInput;
      }
    }
    // A golden case folder holds no Kyverno tests; anywhere else, every kyverno-test.yaml below PATH runs.
    if (golden?.isCase) continue;
    for (const file of findTestFiles(p)) {
      found++;
      unreadable.push(...runSuite(file, report, mode, selector, runtime));
    }
    for (const file of findKaptestFiles(p)) {
      found++;
      unreadable.push(...runKaptestFile(file, report, selector, runtime));
    }
    for (const file of findTestFiles(p, CHAINSAW_TEST_FILE_NAME)) {
      found++;
      unreadable.push(...runChainsawTestFile(file, report, selector, runtime));
    }
  }
  const failOnly = Boolean(flags['fail-only']);
  const shown = failOnly ? report.rows.filter((r) => r.status === 'failed') : report.rows;
  const detailed = Boolean(flags['detailed-results']);
  const { counts } = report;
  switch (format) {
    case 'json': {
      const results = shown.map(({ file, policy, rule, resource, status, reason }) => ({ file, policy, rule, resource, status: status === 'skipped' ? 'notRun' : status, reason }));
      io.stdout(`${JSON.stringify({ total: report.rows.length, passed: counts.passed, failed: counts.failed, notRun: counts.notRun, results }, null, 2)}\n`);
      break;
    }
    case 'junit':
      io.stdout(renderJunit(shown, detailed));
      break;
    case 'markdown':
      io.stdout(renderMarkdown(shown, detailed));
      break;
    case 'table':
      io.stdout(tableReport(shown, counts, failOnly, detailed, palette));
      break;
    default:
      io.stdout(textReport(shown, counts, detailed, textPalette));
  }
  if (unreadable.length > 0) {
    reportDiagnostics(io, unreadable, 'text');
    return EXIT.badInput;
  }
  // A run that checked nothing is not a pass.
  if (found === 0) {
    reportDiagnostics(io, [diagnostic('TM7003', { phase: 'io', message: `no test found under ${positionals.join(', ')}: no golden case folder, ${TEST_FILE_NAME}, ${CHAINSAW_TEST_FILE_NAME} or kaptest manifest` })], 'text');
    return EXIT.checkFailed;
  }
  if (counts.passed + counts.failed === 0) {
    const why = counts.notRun > 0 ? `all ${counts.notRun} results are of rules transmute does not run` : selector ? 'the test case selector selects no result' : 'the tests have no result';
    reportDiagnostics(io, [diagnostic('TM7003', { phase: 'io', message: `no result was run: ${why}` })], 'text');
    return EXIT.checkFailed;
  }
  return counts.failed - counts.known > 0 ? EXIT.checkFailed : EXIT.ok;
}

/** A line per row (FAIL with its reason and diff), then the known-divergence note and the summary line. */
function textReport(rows: readonly ReportRow[], counts: Counts, detailed: boolean, p: Palette): string {
  let out = '';
  for (const r of rows) {
    const what = r.policy === '' && r.rule === '' && r.resource === '' ? r.file : `${r.file}: ${r.policy}${r.rule ? `/${r.rule}` : ''} ${r.resource}`.trimEnd();
    const word = r.status === 'failed' ? (r.reason.startsWith('known divergence') ? 'KNOWN' : 'FAIL') : r.status === 'skipped' ? 'skip' : 'ok  ';
    out += `${word} ${what}\n`;
    if (r.status !== 'passed' || (detailed && r.reason !== 'Ok')) out += `  ${r.reason.replace(/\n/g, '\n  ')}\n`;
    // Indent non-empty lines only: a diff ends with a newline, and the next row must start at column 0.
    if (r.diff) out += paintDiff(`${r.diff.replace(/^(?=.)/gm, '    ')}${r.diff.endsWith('\n') ? '' : '\n'}`, p);
  }
  if (counts.known) out += `${counts.known} of the failures are known divergences listed in golden/exceptions.yaml\n`;
  out += `${counts.passed} passed, ${counts.failed} failed${counts.notRun ? `, ${counts.notRun} not run` : ''}\n`;
  return paintTestReport(out, p);
}

/** kyverno test's output: per test file its table, then the summary (pass counts skips too). */
function tableReport(rows: readonly ReportRow[], counts: Counts, failOnly: boolean, detailed: boolean, p: Palette): string {
  let out = '';
  const groups = new Map<string, ReportRow[]>();
  for (const r of rows) (groups.get(r.group) ?? groups.set(r.group, []).get(r.group)!).push(r);
  if (failOnly) {
    const renumbered = rows.map((r, i) => ({ ...r, id: i + 1 }));
    out += `\nTest Summary: ${counts.failed} out of ${counts.passed + counts.failed} tests failed\n\n`;
    if (renumbered.length > 0) out += `Aggregated Failed Test Cases : \n${renderTable(renumbered, detailed, p)}`;
  } else {
    for (const [group, list] of groups) out += `Loading test  ( ${group} ) ...\n  Checking results ...\n\n${renderTable(list, detailed, p)}\n`;
    out += `\nTest Summary: ${counts.passed} tests passed and ${counts.failed} tests failed${counts.notRun ? ` (${counts.notRun} not run)` : ''}\n`;
  }
  for (const r of rows) if (r.diff && r.status === 'failed') out += `\n${r.file}: ${r.policy}${r.rule ? `/${r.rule}` : ''} ${r.resource} (${resultWord(r)}: ${shortReason(r)})\n${paintDiff(r.diff, p)}`;
  return out;
}

function goldenDirs(p: string): { dirs: string[]; isCase: boolean } {
  const isCase = existsSync(join(p, 'case.yaml'));
  return { dirs: isCase ? [p] : listCases(p), isCase };
}

/**
 * Runs golden case folders under the exceptions.yaml next to their cases folder; returns an error message when
 * that file is unreadable.
 */
function runGolden(p: string, golden: { dirs: string[]; isCase: boolean }, update: boolean, report: Report, selector: Selector | undefined, runtime: Runtime): string | undefined {
  const root = golden.isCase ? dirname(resolve(p)) : resolve(p);
  const exceptions = loadExceptions(join(dirname(root), 'exceptions.yaml'));
  if ('error' in exceptions) return exceptions.error;
  for (const dir of golden.dirs) {
    const row = (status: SuiteRow['status'], reason: string): SuiteRow => ({ file: dir, policy: '', rule: '', resource: '', status, reason });
    if (selector && !selectsRow(selector, row('passed', ''))) continue;
    const v = verdict(runCaseDir(dir, { update, runtime }), exceptions);
    if (v.status === 'failed') report.add(p, row('failed', v.messages.join('\n')));
    else if (v.status === 'known') {
      report.counts.known++;
      report.add(p, row('failed', `known divergence: ${v.messages.join('\n')}`));
    } else report.add(p, row('passed', 'Ok'));
  }
  return undefined;
}

/** Runs the Kyverno tests of one file (one per document); returns the diagnostics of those that cannot be read as a test (they did not run). */
function runSuite(file: string, report: Report, mode: ValidateMode, selector: Selector | undefined, runtime: Runtime): Diagnostic[] {
  const problems: Diagnostic[] = [];
  for (const loaded of loadTestSuites(file, file)) {
    if (!loaded.ok) {
      problems.push(...loaded.diagnostics);
      continue;
    }
    const suite: TestSuite = selector ? { ...loaded.value, results: selectEntries(selector, loaded.value.results) } : loaded.value;
    for (const r of runTestSuite(suite, mode, { asKyvernoTest: true, runtime })) report.add(file, r);
  }
  return problems;
}

function runKaptestFile(file: string, report: Report, selector: Selector | undefined, runtime: Runtime): Diagnostic[] {
  const manifest = loadKaptest(file, file);
  if (!manifest.ok) return manifest.diagnostics;
  for (const r of runKaptest(manifest.value, { runtime })) {
    if (selector && !selectsRow(selector, r)) continue;
    // kaptest passes a test that expects skip and skips; only vapTestSuites are not run.
    const status = r.status === 'skipped' && !r.reason.startsWith('not run') ? 'passed' : r.status;
    report.add(file, { ...r, status });
  }
  return [];
}

/**
 * Runs one chainsaw test against the in-memory cluster of the conformance replay (one row: the test, its
 * mutating policies); a test the replay cannot run offline is listed as not run, with the reason.
 */
function runChainsawTestFile(file: string, report: Report, selector: Selector | undefined, runtime: Runtime): Diagnostic[] {
  const loaded = loadChainsawTest(file, file);
  if (!loaded.ok) return loaded.diagnostics;
  const row = (status: SuiteRow['status'], reason: string): SuiteRow => ({ file, policy: loaded.value.policies.join(', '), rule: '', resource: '', status, reason });
  if (selector && !selectsRow(selector, row('passed', ''))) return [];
  if (loaded.value.kind === 'not-run') {
    report.add(file, row('skipped', loaded.value.reason));
    return [];
  }
  const result = runChainsawCase(loaded.value.case, { runtime });
  if (result.status === 'passed') report.add(file, row('passed', 'Ok'));
  else if (result.status === 'failed' || result.status === 'error') report.add(file, row('failed', result.reason ?? result.status));
  else report.add(file, row('skipped', `not run: ${result.reason ?? result.status}`));
  return [];
}
