import { escapeControls, styledDiagnosticLine } from '../diagnostics/render.js';
import { diagnostic } from '../diagnostics/diagnostic.js';
import { colorOff, styleFor } from './color.js';
import { EXIT, processIO, type CliIO } from './io.js';
import { packageVersion } from './version.js';

type Run = (argv: string[], io: CliIO) => Promise<number>;

interface Command {
  summary: string;
  /**
   * The command's code, imported only when the command runs: the main help, `--version` and a mistyped command
   * name load no dialect, engine or parser (the bundle keeps each command in its own chunk).
   */
  load(): Promise<Run>;
}

export const COMMANDS: Record<string, Command> = {
  apply: { summary: 'run policies against resources and print the result, a patch or a diff', load: async () => (await import('./commands/apply.js')).runApply },
  translate: { summary: 'translate policies into another dialect', load: async () => (await import('./commands/translate.js')).runTranslate },
  migrate: { summary: 'migrate a policy library and its kyverno-test suites to MutatingPolicy, proving each migration', load: async () => (await import('./commands/migrate.js')).runMigrate },
  test: { summary: 'run golden cases and test suites', load: async () => (await import('./commands/test.js')).runTest },
  conformance: {
    summary: 'run upstream conformance cases (../shared/conformance format)',
    load: async () => {
      const { runConformanceCommand } = await import('../conformance/command.js');
      return (a, io) => runConformanceCommand(a, io);
    },
  },
  ir: { summary: 'print the optimized intermediate representation of policies', load: async () => (await import('./commands/ir.js')).runIr },
  expand: { summary: 'expand workloads into the resources they create (Gatekeeper ExpansionTemplates, as gator expand)', load: async () => (await import('./commands/expand.js')).runExpand },
  cel: {
    summary: 'evaluate one CEL expression as a MutatingAdmissionPolicy would',
    load: async () => {
      const [{ runCelCommand }, { readFileSync }, { decodeUtf8 }] = await Promise.all([import('../cel/cli.js'), import('node:fs'), import('../io/text-check.js')]);
      return (a, io) => runCelCommand(a, { stdout: io.stdout, stderr: io.stderr, readFile: (p: string) => (p === '-' ? io.stdin() : decodeUtf8(readFileSync(p))) });
    },
  },
  completion: {
    summary: 'print a shell completion script: transmute completion bash|zsh|fish',
    load: async () => {
      const { runCompletion } = await import('./completion.js');
      return (a, io) => runCompletion(a, io, COMMANDS);
    },
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

Options for every command:
      --no-color     no colour escapes (also when the NO_COLOR environment variable is set); colour is used
                     only on a terminal
  -h, --help         show this help, or a command's help with 'transmute COMMAND --help'
  -V, --version      print transmute's version

Exit codes: 0 success, 1 a check failed, 2 bad usage or bad input.
`;
}

/** `--no-color` may be given anywhere before `--`; it is taken out before the command parses its flags. */
function withoutNoColor(argv: string[]): { argv: string[]; noColor: boolean } {
  const end = argv.indexOf('--');
  const head = end < 0 ? argv : argv.slice(0, end);
  const kept = head.filter((a) => a !== '--no-color');
  return { argv: end < 0 ? kept : [...kept, ...argv.slice(end)], noColor: kept.length !== head.length };
}

/** Runs the command line; never throws: an unexpected error is reported in one line with exit code 2. */
export async function main(argvIn: string[], given?: CliIO): Promise<number> {
  const { argv, noColor } = withoutNoColor(argvIn);
  const ioIn = given ?? processIO();
  let io = noColor ? colorOff(ioIn) : ioIn;
  const [name, ...rest] = argv;
  if (name === undefined || name === '--help' || name === '-h' || name === 'help') {
    io.stdout(mainHelp());
    return name === undefined ? EXIT.badInput : EXIT.ok;
  }
  if (name === '--version' || name === '-V' || name === 'version') {
    io.stdout(`${packageVersion()}\n`);
    return EXIT.ok;
  }
  const command = Object.hasOwn(COMMANDS, name) ? COMMANDS[name] : undefined;
  if (!command) {
    const style = styleFor(io, 'stderr');
    io.stderr(styledDiagnosticLine(diagnostic('TM7001', { phase: 'cli', message: `unknown command "${name}"` }), style) + `\nRun 'transmute --help' for usage.\n`);
    return EXIT.badInput;
  }
  try {
    const [run, stdin] = await Promise.all([command.load(), given ? undefined : import('../io/stdin.js')]);
    if (stdin) io = { ...io, stdin: processIO(() => stdin.readBounded()).stdin };
    return await run(rest, io);
  } catch (e) {
    const message = e instanceof RangeError && /call stack/i.test(e.message) ? 'input nested too deeply' : e instanceof Error ? e.message : String(e);
    io.stderr(escapeControls(`error: internal error in '${name}': ${message}\n`));
    return EXIT.badInput;
  }
}
