/**
 * Reading standard input with a bound: `cat dump.yaml | transmute ...` has no size to check beforehand, and
 * `readFileSync(0)` would hold all of an endless or huge stream before any limit could refuse it.
 */
import { readSync } from 'node:fs';
import { DEFAULT_MAX_BYTES } from './yaml-load.js';

/** Standard input held more than the limit: it was not read to its end. */
export class InputTooLargeError extends Error {
  constructor(readonly limit: number) {
    super(`standard input is larger than the limit of ${limit} bytes`);
  }
}

const CHUNK = 1 << 20;
const PAUSE = new Int32Array(new SharedArrayBuffer(4));

/** All of file descriptor `fd` (standard input by default), or InputTooLargeError past `limit` bytes. */
export function readBounded(limit: number = DEFAULT_MAX_BYTES, fd = 0): Buffer {
  const chunks: Buffer[] = [];
  let total = 0;
  for (;;) {
    const chunk = Buffer.allocUnsafe(Math.min(CHUNK, limit + 1 - total));
    let n: number;
    try {
      n = readSync(fd, chunk, 0, chunk.length, null);
    } catch (e) {
      const code = (e as NodeJS.ErrnoException).code;
      if (code === 'EAGAIN') {
        // A non-blocking pipe with nothing in it yet: wait for the writer without spinning.
        Atomics.wait(PAUSE, 0, 0, 10);
        continue;
      }
      if (code === 'EOF') break;
      throw e;
    }
    if (n === 0) break;
    chunks.push(n === chunk.length ? chunk : chunk.subarray(0, n));
    total += n;
    if (total > limit) throw new InputTooLargeError(limit);
  }
  return Buffer.concat(chunks, total);
}
