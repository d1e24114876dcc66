import { existsSync, statSync } from 'node:fs';
import { basename, dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { diagnostic, type Diagnostic } from '../../diagnostics/diagnostic.js';
import { findTestFiles, loadTestSuite, runTestSuite, TEST_FILE_NAME, type SuiteRow } from '../../dialects/kyverno/test-suite/index.js';
import { findKaptestFiles, isKaptestFile, loadKaptest, runKaptest } from '../../dialects/map/kaptest/index.js';
import { listCases } from '../../golden/case.js';
import { loadExceptions, verdict, type GoldenException } from '../../golden/exceptions.js';
import { runCaseDir } from '../../golden/run.js';
import { parse } from '../args.js';
import { EXIT, type CliIO } from '../io.js';
import { reportDiagnostics } from '../report.js';
import { validateMode } from '../validate-flag.js';
import type { ValidateMode } from '../../validate/admit.js';

export const TEST_HELP = `Usage: transmute test PATH... [--json] [--update] [--validate MODE]

Runs golden cases, Kyverno test suites and kaptest manifests.

A PATH that is a golden case folder (with case.yaml), or a folder of such folders, runs golden cases: each
input must parse to ir.txt, the IR must give the expected objects, each target dialect must emit the expected
text, the emitted policies must give the same objects again, and round trips must be stable. Known divergences
are listed in golden/exceptions.yaml next to the cases folder.

Every file named kyverno-test.yaml under a PATH (searched recursively, as 'kyverno test' does), or given
directly, is a Kyverno test (cli.kyverno.io/v1alpha1 Test, or the legacy form): its policies are applied in
order to each resource, and each result is checked per resource it names: the rule's result (pass, skip, fail,
error; a rule name also covers its autogen- and autogen-cronjob- rules) and, when given, the patched resource
(compared after dropping nulls and empty maps and lists; a diff is printed when they differ). A result fails
when its resource, policy or rule is missing, or when the rule did not run and the result is not 'skip'.
Supported: policies, resources, variables / values (operation, namespaceSelector, per-rule context values),
userinfo, apiCallResponses (apiCall context entries by urlPath), patchedResources (legacy patchedResource).
Not simulated: mutate-existing targets (targetResources), validate, generate and verifyImages rules.

Every file named kaptest.yaml under a PATH (as 'kaptest init' writes <policy>.test/kaptest.yaml), or a kaptest
manifest given directly under any name, runs its mapTestSuites as pfnet/kaptest does: each test's object
(CREATE), object and oldObject (UPDATE) or oldObject alone (DELETE, always 'error' as in kaptest) is looked up
among the manifest's resources by kind and name (group, version, namespace when given), with the param (by the
policy's paramKind), the Namespace object of the object's namespace (a bare one when absent), userInfo (name,
groups, extra) and dryRun true. The result is 'error' (a mutation or match condition failed under failurePolicy
Fail), 'skip' (a match condition is false, or errors under Ignore) or 'mutate' (the policy ran; the object must
equal expectObject, renamed to the object's name unless disableNameOverwrite, nulls and empty maps and lists
ignored; a diff is printed when they differ). The policy runs with the suite's 'binding' when given, else with
a binding that selects everything and names the test's param. Unlike kaptest, transmute evaluates the policy's
matchConstraints and the binding's matchResources: a request they do not select is 'skip' (so a test expecting
'mutate' on a resource the policy does not match fails with that reason); and a test naming a resource, param,
policy or binding that is not there fails even when it expects 'error'. vapTestSuites are listed as skipped
(not run). Rows: policy is the MutatingAdmissionPolicy, rule the test's place (mapTestSuites[i].tests[j]),
resource kaptest's summary ('(CREATE) Deployment:ns/name', '(UPDATE) Kind:old -> new').

Options:
      --json       print {"total","passed","failed","skipped","results":[{"file","policy","rule","resource",
                   "status","reason"}]} instead of rows ("file" is the test file as reached from PATH;
                   golden cases are rows with empty policy, rule and resource)
      --update     rewrite golden ir.txt, emit/*, diagnostics and expected results (review the diff!)
      --validate MODE
                   for Kyverno tests: strict (default) runs no policy a cluster would refuse (its results fail
                   with the reason); warn runs it anyway; ignore skips the admission checks
  -h, --help       show this help

Exit codes: 0 all passed, 1 a case or result failed, 2 bad usage, or a kyverno-test.yaml or kaptest manifest
that cannot be read as a test (not YAML, not a Test, a file it names missing or malformed; the others still run).
Last line: 'N passed, N failed' (', N skipped' follows when results were skipped as expected).
`;

interface Counts {
  passed: number;
  failed: number;
  skipped: number;
  known: number;
}

export async function runTest(argv: string[], io: CliIO): Promise<number> {
  const args = parse<{ update?: boolean; json?: boolean; validate?: string; help?: boolean }>(
    argv,
    { update: { type: 'boolean' }, json: { type: 'boolean' }, validate: { type: 'string' }, help: { type: 'boolean', short: 'h' } },
    true,
  );
  if (!args.ok) {
    reportDiagnostics(io, [args.diagnostic], 'text');
    return EXIT.badInput;
  }
  if (args.values.help) {
    io.stdout(TEST_HELP);
    return EXIT.ok;
  }
  if (args.positionals.length === 0) {
    reportDiagnostics(io, [diagnostic('TM7001', { phase: 'cli', message: 'give at least one golden case folder, kyverno-test.yaml or kaptest manifest path' })], 'text');
    return EXIT.badInput;
  }
  const mode = validateMode(args.values.validate);
  if (typeof mode !== 'string') {
    reportDiagnostics(io, [diagnostic('TM7001', { phase: 'cli', message: mode.error })], 'text');
    return EXIT.badInput;
  }
  const json = Boolean(args.values.json);
  const out = (text: string): void => {
    if (!json) io.stdout(text);
  };
  const rows: SuiteRow[] = [];
  const counts: Counts = { passed: 0, failed: 0, skipped: 0, known: 0 };
  // Test files that could not be read as tests: bad input (exit 2), not failed tests; the others still run.
  const unreadable: Diagnostic[] = [];
  for (const p of args.positionals) {
    if (!existsSync(p)) {
      reportDiagnostics(io, [diagnostic('TM1004', { phase: 'io', message: `${p}: no such file or folder` })], 'text');
      return EXIT.badInput;
    }
    const isFile = statSync(p).isFile();
    if (isFile && basename(p) !== TEST_FILE_NAME && !isKaptestFile(p)) {
      reportDiagnostics(io, [diagnostic('TM7001', { phase: 'cli', message: `${p}: not a golden case folder or a ${TEST_FILE_NAME}, nor a kaptest manifest` })], 'text');
      return EXIT.badInput;
    }
    const golden = isFile ? undefined : goldenDirs(p);
    if (golden && golden.dirs.length > 0) {
      const status = runGolden(p, golden, Boolean(args.values.update), counts, rows, out);
      if (status !== undefined) {
        reportDiagnostics(io, [diagnostic('TM7003', { phase: 'io', message: status })], 'text');
        return EXIT.badInput;
      }
    }
    // A golden case folder holds no Kyverno tests; anywhere else, every kyverno-test.yaml below PATH runs.
    if (golden?.isCase) continue;
    for (const file of findTestFiles(p)) unreadable.push(...runSuite(file, counts, rows, out, mode));
    for (const file of findKaptestFiles(p)) unreadable.push(...runKaptestFile(file, counts, rows, out));
  }
  if (json) {
    const results = rows.map(({ file, policy, rule, resource, status, reason }) => ({ file, policy, rule, resource, status, reason }));
    io.stdout(`${JSON.stringify({ total: rows.length, passed: counts.passed, failed: counts.failed, skipped: counts.skipped, results }, null, 2)}\n`);
  } else {
    if (counts.known) io.stdout(`${counts.known} of the failures are known divergences listed in golden/exceptions.yaml\n`);
    io.stdout(`${counts.passed} passed, ${counts.failed} failed${counts.skipped ? `, ${counts.skipped} skipped` : ''}\n`);
  }
  if (unreadable.length > 0) {
    reportDiagnostics(io, unreadable, 'text');
    return EXIT.badInput;
  }
  return counts.failed - counts.known > 0 ? EXIT.checkFailed : EXIT.ok;
}

function goldenDirs(p: string): { dirs: string[]; isCase: boolean } {
  const isCase = existsSync(join(p, 'case.yaml'));
  return { dirs: isCase ? [p] : listCases(p), isCase };
}

/** Runs golden case folders; returns an error message when the exceptions file is unreadable. */
function runGolden(p: string, golden: { dirs: string[]; isCase: boolean }, update: boolean, counts: Counts, rows: SuiteRow[], out: (t: string) => void): string | undefined {
  const root = golden.isCase ? dirname(resolve(p)) : resolve(p);
  const exceptions = loadExceptions(join(dirname(root), 'exceptions.yaml'));
  if ('error' in exceptions) return exceptions.error;
  for (const dir of golden.dirs) {
    const v = verdict(runCaseDir(dir, { update }), exceptions);
    const row = (status: SuiteRow['status'], reason: string): number => rows.push({ file: dir, policy: '', rule: '', resource: '', status, reason });
    if (v.status === 'failed') {
      counts.failed++;
      row('failed', v.messages.join('\n'));
      out(`FAIL ${dir}\n${v.messages.map((m) => `  ${m.replace(/\n/g, '\n    ')}`).join('\n')}\n`);
    } else if (v.status === 'known') {
      counts.known++;
      counts.failed++;
      row('failed', `known divergence: ${v.messages.join('\n')}`);
      out(`KNOWN ${dir}\n${v.messages.map((m) => `  ${m}`).join('\n')}\n`);
    } else {
      counts.passed++;
      row('passed', 'Ok');
      out(`ok   ${dir}\n`);
    }
  }
  return undefined;
}

/** The project's own golden/exceptions.yaml, found from this module (src/ or dist/src/). */
function projectExceptions(): GoldenException[] {
  for (let dir = dirname(fileURLToPath(import.meta.url)); dir !== dirname(dir); dir = dirname(dir)) {
    if (existsSync(join(dir, 'package.json')) && existsSync(join(dir, 'golden'))) {
      const list = loadExceptions(join(dir, 'golden', 'exceptions.yaml'));
      return 'error' in list ? [] : list;
    }
  }
  return [];
}

/**
 * A suite result listed in golden/exceptions.yaml as a known divergence (`case`: the suite's folder name,
 * `check`: `kyverno-test:<policy>/<rule>/<resource>`): it still counts as failed, but does not fail the run.
 */
function suiteException(file: string, r: SuiteRow, exceptions: readonly GoldenException[]): GoldenException | undefined {
  const check = `kyverno-test:${r.policy}/${r.rule}/${r.resource}`;
  return exceptions.find((e) => e.case === basename(dirname(file)) && e.check === check);
}

/** Runs one Kyverno test; returns the diagnostics of a test file that cannot be read as a test (then nothing ran). */
function runSuite(file: string, counts: Counts, rows: SuiteRow[], out: (t: string) => void, mode: ValidateMode): Diagnostic[] {
  const suite = loadTestSuite(file, file);
  if (!suite.ok) return suite.diagnostics;
  const suiteRows = runTestSuite(suite.value, mode);
  const exceptions = projectExceptions();
  for (const r of suiteRows) {
    const exception = suiteException(file, r, exceptions);
    if (exception && r.status === 'passed') {
      r.status = 'failed';
      r.reason = `passes but is listed in golden/exceptions.yaml; remove the stale exception`;
    } else if (exception && r.status === 'failed') {
      counts.known++;
      r.reason = `known divergence (golden/exceptions.yaml): ${exception.reason}; ${r.reason}`;
    }
    printRow(file, r, counts, rows, out);
  }
  return [];
}

function printRow(file: string, r: SuiteRow, counts: Counts, rows: SuiteRow[], out: (t: string) => void): void {
  rows.push(r);
  counts[r.status]++;
  const what = `${file}: ${r.policy}${r.rule ? `/${r.rule}` : ''} ${r.resource}`.trimEnd();
  if (r.status === 'failed') {
    out(`FAIL ${what}\n  ${r.reason.replace(/\n/g, '\n  ')}\n`);
    // Indent non-empty lines only: a diff ends with a newline, and the next row must start at column 0.
    if (r.diff) out(`${r.diff.replace(/^(?=.)/gm, '    ')}${r.diff.endsWith('\n') ? '' : '\n'}`);
  } else {
    out(`${r.status === 'skipped' ? 'skip' : 'ok  '} ${what}\n`);
  }
}

function runKaptestFile(file: string, counts: Counts, rows: SuiteRow[], out: (t: string) => void): Diagnostic[] {
  const manifest = loadKaptest(file, file);
  if (!manifest.ok) return manifest.diagnostics;
  for (const r of runKaptest(manifest.value)) printRow(file, r, counts, rows, out);
  return [];
}
