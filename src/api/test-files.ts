/**
 * The library's `test` (Node only: it reads files): the golden cases, `kyverno-test.yaml` suites and kaptest
 * manifests under each path, run as `transmute test PATH...` runs them (src/cli/commands/test.ts), with one
 * runtime, and their rows returned instead of printed.
 */
import { existsSync, statSync } from 'node:fs';
import { basename, dirname, join, resolve } from 'node:path';
import type { Diagnostic } from '../diagnostics/diagnostic.js';
import { findTestFiles, loadTestSuites, runTestSuite, TEST_FILE_NAME } from '../dialects/kyverno/test-suite/index.js';
import { findKaptestFiles, isKaptestFile, loadKaptest, runKaptest } from '../dialects/map/kaptest/index.js';
import { listCases } from '../golden/case.js';
import { loadExceptions, verdict } from '../golden/exceptions.js';
import { runCaseDir } from '../golden/run.js';
import type { TestRow } from '../io/test-row.js';
import { createRuntime } from '../runtime/create.js';
import type { Runtime } from '../runtime/runtime.js';
import type { ValidateMode } from '../validate/admit.js';

export interface TestOptions {
  /** The runtime every test runs with (default: createRuntime()). */
  runtime?: Runtime;
  /** How Kyverno tests treat a policy the cluster would refuse (default `strict`). */
  validate?: ValidateMode;
}

export interface TestRun {
  rows: TestRow[];
  /** Test files that could not be read as tests (nothing of them ran). */
  diagnostics: Diagnostic[];
  /** How many golden cases, Kyverno tests and kaptest manifests were found. */
  found: number;
}

function goldenRows(path: string, runtime: Runtime): { rows: TestRow[]; found: number; isCase: boolean } | { error: string } {
  const isCase = existsSync(join(path, 'case.yaml'));
  const dirs = isCase ? [path] : listCases(path);
  if (dirs.length === 0) return { rows: [], found: 0, isCase };
  const root = isCase ? dirname(resolve(path)) : resolve(path);
  const exceptions = loadExceptions(join(dirname(root), 'exceptions.yaml'));
  if ('error' in exceptions) return exceptions;
  const rows = dirs.map((dir): TestRow => {
    const v = verdict(runCaseDir(dir, { runtime }), exceptions);
    const row = { file: dir, policy: '', rule: '', resource: '' };
    if (v.status === 'failed') return { ...row, status: 'failed', reason: v.messages.join('\n') };
    if (v.status === 'known') return { ...row, status: 'failed', reason: `known divergence: ${v.messages.join('\n')}` };
    return { ...row, status: 'passed', reason: 'Ok' };
  });
  return { rows, found: dirs.length, isCase };
}

export function test(paths: readonly string[], opts: TestOptions = {}): TestRun {
  const runtime = opts.runtime ?? createRuntime();
  const validate = opts.validate ?? 'strict';
  const run: TestRun = { rows: [], diagnostics: [], found: 0 };
  for (const path of paths) {
    const isFile = existsSync(path) && statSync(path).isFile();
    const golden = isFile ? undefined : goldenRows(path, runtime);
    if (golden && 'error' in golden) {
      run.rows.push({ file: path, policy: '', rule: '', resource: '', status: 'failed', reason: golden.error });
      continue;
    }
    if (golden) {
      run.rows.push(...golden.rows);
      run.found += golden.found;
      if (golden.isCase) continue;
    }
    const suites = isFile ? (basename(path) === TEST_FILE_NAME ? [path] : []) : findTestFiles(path);
    for (const file of suites) {
      run.found++;
      for (const suite of loadTestSuites(file, file)) {
        if (!suite.ok) run.diagnostics.push(...suite.diagnostics);
        else run.rows.push(...runTestSuite(suite.value, validate, { asKyvernoTest: true, runtime }));
      }
    }
    const manifests = isFile ? (isKaptestFile(path) ? [path] : []) : findKaptestFiles(path);
    for (const file of manifests) {
      run.found++;
      const manifest = loadKaptest(file, file);
      if (!manifest.ok) run.diagnostics.push(...manifest.diagnostics);
      else run.rows.push(...runKaptest(manifest.value, { runtime }));
    }
  }
  return run;
}
