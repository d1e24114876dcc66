import { decodeUtf8 } from '../io/text-check.js';

/** The outside world as commands see it, so tests can run them in-process. */
export interface CliIO {
  stdout(text: string): void;
  stderr(text: string): void;
  /** Reads all of standard input (for `-`); throws InvalidUtf8Error when it is not UTF-8, InputTooLargeError past 64 MiB. */
  stdin(): string;
  isTTY: boolean;
  /** Whether standard error is a terminal: long runs then show a progress line there (never in a pipe or file). */
  stderrTTY?: boolean;
  /** Whether colour escapes may be written to each stream; absent means no colour (tests, pipes). */
  color?: { stdout: boolean; stderr: boolean };
}

/**
 * Colour only on a terminal, and never when NO_COLOR is set to a non-empty value (https://no-color.org);
 * `--no-color` is handled by main. A pipe or a file gets exactly the bytes it got before colour existed.
 */
export function colorAllowed(isTTY: boolean | undefined, env: NodeJS.ProcessEnv = process.env): boolean {
  return Boolean(isTTY) && !env['NO_COLOR'] && env['TERM'] !== 'dumb';
}

/**
 * This process's streams. `readStdin` is src/io/stdin.ts's bounded reader, which main imports only when a command
 * runs: it pulls in the YAML loader's limits (and so the YAML library), which `--help` and `--version` never need.
 */
/**
 * `transmute ... | head`: the reader went away. Stop quietly, as a command-line tool does, instead of dying on
 * an unhandled EPIPE with a stack trace; any other stream error is still raised.
 */
function closedPipe(e: NodeJS.ErrnoException): void {
  if (e.code !== 'EPIPE') throw e;
  process.exit(typeof process.exitCode === 'number' ? process.exitCode : 0);
}

export function processIO(readStdin: () => Buffer = () => {
  throw new Error('standard input is read only by a command');
}): CliIO {
  process.stdout.on('error', closedPipe);
  process.stderr.on('error', closedPipe);
  return {
    stdout: (t) => process.stdout.write(t),
    stderr: (t) => process.stderr.write(t),
    stdin: () => decodeUtf8(readStdin()),
    isTTY: Boolean(process.stdout.isTTY),
    stderrTTY: Boolean(process.stderr.isTTY) && process.env['TERM'] !== 'dumb',
    color: { stdout: colorAllowed(process.stdout.isTTY), stderr: colorAllowed(process.stderr.isTTY) },
  };
}

/** Exit codes: 0 success, 1 a check failed, 2 bad usage or bad input. */
export const EXIT = { ok: 0, checkFailed: 1, badInput: 2 } as const;
