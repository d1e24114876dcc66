import { readFileSync } from 'node:fs';
import { decodeUtf8 } from '../io/text-check.js';

/** The outside world as commands see it, so tests can run them in-process. */
export interface CliIO {
  stdout(text: string): void;
  stderr(text: string): void;
  /** Reads all of standard input (for `-`); throws InvalidUtf8Error when it is not UTF-8. */
  stdin(): string;
  isTTY: boolean;
}

export function processIO(): CliIO {
  return {
    stdout: (t) => process.stdout.write(t),
    stderr: (t) => process.stderr.write(t),
    stdin: () => decodeUtf8(readFileSync(0)),
    isTTY: Boolean(process.stdout.isTTY),
  };
}

/** Exit codes: 0 success, 1 a check failed, 2 bad usage or bad input. */
export const EXIT = { ok: 0, checkFailed: 1, badInput: 2 } as const;
