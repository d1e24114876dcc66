import { diagnostic } from '../diagnostics/diagnostic.js';
import { parse, type Options } from './args.js';
import { EXIT, type CliIO } from './io.js';
import { diagnosticsFormat, reportDiagnostics, type DiagnosticsFormat } from './report.js';

const HELP_OPTION = { help: { type: 'boolean', short: 'h' } } as const satisfies Options;

export interface CommandSpec {
  /** The command's flags; -h/--help is added. */
  options: Options;
  positionals?: boolean;
  help: string | (() => string);
  /** When given, a flag parse error is followed by "Run 'transmute NAME --help' for usage.". */
  name?: string;
}

export type CommandStart<T> =
  | { exit: number }
  | {
      flags: T;
      positionals: string[];
      format: DiagnosticsFormat;
      /** Reports a usage error (TM7001) in the chosen diagnostics format; returns the exit code to return. */
      usage: (message: string) => number;
    };

/**
 * What every command does before its own work: strict flag parsing, `--help`, and `--diagnostics text|json`
 * (text for commands without that flag). `exit` means the command is over with that code.
 */
export function startCommand<T extends { help?: boolean; diagnostics?: string }>(argv: string[], io: CliIO, spec: CommandSpec): CommandStart<T> {
  const args = parse<T>(argv, { ...spec.options, ...HELP_OPTION }, spec.positionals ?? false);
  if (!args.ok) {
    reportDiagnostics(io, [args.diagnostic], 'text');
    if (spec.name) io.stderr(`Run 'transmute ${spec.name} --help' for usage.\n`);
    return { exit: EXIT.badInput };
  }
  const flags = args.values;
  if (flags.help) {
    io.stdout(typeof spec.help === 'string' ? spec.help : spec.help());
    return { exit: EXIT.ok };
  }
  const format = diagnosticsFormat(flags.diagnostics);
  const usage = (message: string): number => {
    reportDiagnostics(io, [diagnostic('TM7001', { phase: 'cli', message })], format ?? 'text');
    return EXIT.badInput;
  };
  if (!format) return { exit: usage(`--diagnostics must be text or json, not "${flags.diagnostics}"`) };
  return { flags, positionals: args.positionals, format, usage };
}
