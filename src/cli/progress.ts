/**
 * A progress line on a terminal's standard error for long runs (`apply` over a cluster's dump): rewritten in
 * place at most five times a second, erased at the end, so the output and the diagnostics are unchanged.
 */
import type { CliIO } from './io.js';

/** Runs over fewer items than this finish before a progress line would help. */
export const PROGRESS_FROM = 1000;

export interface Progress {
  step(done: number): void;
  end(): void;
}

const NONE: Progress = { step: () => undefined, end: () => undefined };

export function progressLine(io: CliIO, total: number, what: string, now: () => number = Date.now): Progress {
  if (!io.stderrTTY || total < PROGRESS_FROM) return NONE;
  let last = -Infinity;
  const show = (done: number): void => io.stderr(`\r\x1b[Ktransmute: ${done.toLocaleString('en-US')}/${total.toLocaleString('en-US')} ${what}`);
  return {
    step(done) {
      const t = now();
      if (t - last < 200) return;
      last = t;
      show(done);
    },
    end() {
      if (last !== -Infinity) io.stderr('\r\x1b[K');
    },
  };
}
