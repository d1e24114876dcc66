import { readFileSync } from 'node:fs';
import { runCelCommand } from '../cel/cli.js';
import { runConformanceCommand } from '../conformance/command.js';
import { escapeControls, renderDiagnosticLine } from '../diagnostics/render.js';
import { decodeUtf8 } from '../io/text-check.js';
import { diagnostic } from '../diagnostics/diagnostic.js';
import { runApply } from './commands/apply.js';
import { runIr } from './commands/ir.js';
import { runMigrate } from './commands/migrate.js';
import { runTest } from './commands/test.js';
import { runTranslate } from './commands/translate.js';
import { EXIT, processIO, type CliIO } from './io.js';

interface Command {
  summary: string;
  run(argv: string[], io: CliIO): Promise<number>;
}

const COMMANDS: Record<string, Command> = {
  apply: { summary: 'run policies against resources and print the result, a patch or a diff', run: runApply },
  translate: { summary: 'translate policies into another dialect', run: runTranslate },
  migrate: { summary: 'migrate a policy library and its kyverno-test suites to MutatingPolicy, proving each migration', run: runMigrate },
  test: { summary: 'run golden cases and test suites', run: runTest },
  conformance: { summary: 'run upstream conformance cases (../shared/conformance format)', run: (a, io) => runConformanceCommand(a, io) },
  ir: { summary: 'print the optimized intermediate representation of policies', run: runIr },
  cel: {
    summary: 'evaluate one CEL expression as a MutatingAdmissionPolicy would',
    run: (a, io) => runCelCommand(a, { stdout: io.stdout, stderr: io.stderr, readFile: (p: string) => (p === '-' ? io.stdin() : decodeUtf8(readFileSync(p))) }),
  },
};

export function mainHelp(): string {
  const width = Math.max(...Object.keys(COMMANDS).map((c) => c.length));
  return `Usage: transmute COMMAND [options]

transmute compiles Kubernetes mutation policies (Kyverno, Gatekeeper, MutatingAdmissionPolicy and its own IR)
into one intermediate representation, runs it, and writes it back in any dialect.

Commands:
${Object.entries(COMMANDS)
  .map(([name, c]) => `  ${name.padEnd(width)}  ${c.summary}`)
  .join('\n')}

Run 'transmute COMMAND --help' for a command's options.
Exit codes: 0 success, 1 a check failed, 2 bad usage or bad input.
`;
}

/** Runs the command line; never throws: an unexpected error is reported in one line with exit code 2. */
export async function main(argv: string[], io: CliIO = processIO()): Promise<number> {
  const [name, ...rest] = argv;
  if (name === undefined || name === '--help' || name === '-h' || name === 'help') {
    io.stdout(mainHelp());
    return name === undefined ? EXIT.badInput : EXIT.ok;
  }
  const command = COMMANDS[name];
  if (!command) {
    io.stderr(renderDiagnosticLine(diagnostic('TM7001', { phase: 'cli', message: `unknown command "${name}"` })) + `\nRun 'transmute --help' for usage.\n`);
    return EXIT.badInput;
  }
  try {
    return await command.run(rest, io);
  } catch (e) {
    const message = e instanceof RangeError && /call stack/i.test(e.message) ? 'input nested too deeply' : e instanceof Error ? e.message : String(e);
    io.stderr(escapeControls(`error: internal error in '${name}': ${message}\n`));
    return EXIT.badInput;
  }
}
