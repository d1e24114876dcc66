import { readFileSync } from 'node:fs';

/** The outside world as commands see it, so tests can run them in-process. */
export interface CliIO {
  stdout(text: string): void;
  stderr(text: string): void;
  /** Reads all of standard input (for `-`). */
  stdin(): string;
  isTTY: boolean;
}

export function processIO(): CliIO {
  return {
    stdout: (t) => process.stdout.write(t),
    stderr: (t) => process.stderr.write(t),
    stdin: () => readFileSync(0, 'utf8'),
    isTTY: Boolean(process.stdout.isTTY),
  };
}

/** Exit codes: 0 success, 1 a check failed, 2 bad usage or bad input. */
export const EXIT = { ok: 0, checkFailed: 1, badInput: 2 } as const;
