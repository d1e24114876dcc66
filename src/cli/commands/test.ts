import { existsSync, statSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { diagnostic } from '../../diagnostics/diagnostic.js';
import { listCases } from '../../golden/case.js';
import { loadExceptions, verdict } from '../../golden/exceptions.js';
import { runCaseDir } from '../../golden/run.js';
import { parse } from '../args.js';
import { EXIT, type CliIO } from '../io.js';
import { reportDiagnostics } from '../report.js';

export const TEST_HELP = `Usage: transmute test PATH... [--update]

Runs golden cases: a case folder (with case.yaml) or a folder of case folders. For each case it checks that
every input parses to ir.txt, that the IR gives the expected objects, that each target dialect emits the
expected text, that the emitted policies give the same objects again, and that round trips are stable.
Known divergences are listed in golden/exceptions.yaml next to the cases folder.

Options:
      --update     rewrite ir.txt, emit/*, diagnostics and expected results (review the diff!)
  -h, --help       show this help

Exit codes: 0 all passed, 1 a case failed, 2 bad usage.
Last line: 'N passed, N failed'.
`;

export async function runTest(argv: string[], io: CliIO): Promise<number> {
  const args = parse<{ update?: boolean; help?: boolean }>(argv, { update: { type: 'boolean' }, help: { type: 'boolean', short: 'h' } }, true);
  if (!args.ok) {
    reportDiagnostics(io, [args.diagnostic], 'text');
    return EXIT.badInput;
  }
  if (args.values.help) {
    io.stdout(TEST_HELP);
    return EXIT.ok;
  }
  if (args.positionals.length === 0) {
    reportDiagnostics(io, [diagnostic('TM7001', { phase: 'cli', message: 'give at least one golden case folder' })], 'text');
    return EXIT.badInput;
  }
  let passed = 0;
  let failed = 0;
  let known = 0;
  for (const p of args.positionals) {
    if (!existsSync(p) || !statSync(p).isDirectory()) {
      reportDiagnostics(io, [diagnostic('TM1004', { phase: 'io', message: `${p}: no such folder` })], 'text');
      return EXIT.badInput;
    }
    const isCase = existsSync(join(p, 'case.yaml'));
    const dirs = isCase ? [p] : listCases(p);
    const root = isCase ? dirname(resolve(p)) : resolve(p);
    const exceptions = loadExceptions(join(dirname(root), 'exceptions.yaml'));
    if ('error' in exceptions) {
      reportDiagnostics(io, [diagnostic('TM7003', { phase: 'io', message: exceptions.error })], 'text');
      return EXIT.badInput;
    }
    for (const dir of dirs) {
      const v = verdict(runCaseDir(dir, { update: Boolean(args.values.update) }), exceptions);
      if (v.status === 'failed') {
        failed++;
        io.stdout(`FAIL ${dir}\n${v.messages.map((m) => `  ${m.replace(/\n/g, '\n    ')}`).join('\n')}\n`);
      } else if (v.status === 'known') {
        known++;
        failed++;
        io.stdout(`KNOWN ${dir}\n${v.messages.map((m) => `  ${m}`).join('\n')}\n`);
      } else {
        passed++;
        io.stdout(`ok   ${dir}\n`);
      }
    }
  }
  if (known) io.stdout(`${known} of the failures are known divergences listed in golden/exceptions.yaml\n`);
  io.stdout(`${passed} passed, ${failed} failed\n`);
  return failed - known > 0 ? EXIT.checkFailed : EXIT.ok;
}
