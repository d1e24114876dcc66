/**
 * Writes a file so that readers see either the old content or the whole new content, never a prefix: the text goes
 * to a temporary file in the same directory (same file system, so the rename is atomic), is flushed, then renamed
 * over the target. If anything fails, the temporary file is removed and the target is untouched.
 */
import { randomBytes } from 'node:crypto';
import { closeSync, fsyncSync, openSync, realpathSync, renameSync, statSync, unlinkSync, writeSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { diagnostic, fail, ok, type Result } from '../diagnostics/diagnostic.js';

/** Follows a symlinked target so the link keeps pointing at the (updated) real file. */
function resolveTarget(path: string): string {
  try {
    return realpathSync(path);
  } catch {
    return path;
  }
}

export function writeFileAtomic(path: string, text: string): Result<void> {
  const target = resolveTarget(path);
  const temp = join(dirname(target), `.${basename(target)}.${process.pid}.${randomBytes(6).toString('hex')}.tmp`);
  let fd: number | undefined;
  try {
    let mode = 0o666;
    try {
      mode = statSync(target).mode & 0o7777;
    } catch {
      // A new file: default mode, subject to the umask.
    }
    fd = openSync(temp, 'wx', mode);
    const bytes = Buffer.from(text, 'utf8');
    for (let off = 0; off < bytes.length; ) off += writeSync(fd, bytes, off, bytes.length - off);
    fsyncSync(fd);
    closeSync(fd);
    fd = undefined;
    renameSync(temp, target);
    return ok(undefined);
  } catch (e) {
    if (fd !== undefined) {
      try {
        closeSync(fd);
      } catch {
        // Already failing; the original error is the one to report.
      }
    }
    try {
      unlinkSync(temp);
    } catch {
      // Never created, or already renamed.
    }
    const err = e as NodeJS.ErrnoException;
    // No catalogue code for output errors yet; TM1004 (file not found or unreadable) is the closest.
    return fail(diagnostic('TM1004', { phase: 'io', message: `cannot write ${path}: ${err.code ?? err.message}` }));
  }
}
