import { existsSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, it } from 'vitest';

/** The repository root and the `../shared` folder beside it (present in CI, absent in a user's clone). */
export const REPO_ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
export const SHARED_DIR = process.env.TRANSMUTE_SHARED ?? resolve(REPO_ROOT, '../shared');
export const HAS_SHARED = existsSync(resolve(SHARED_DIR, 'conformance'));

/** A describe block that needs ../shared: runs fully when it is there, and says loudly that it skipped when not. */
export function describeShared(name: string, body: () => void): void {
  if (!HAS_SHARED) {
    console.warn(`[transmute] SKIPPED "${name}": ${SHARED_DIR} is absent (it is present in CI)`);
    // The body is not even collected: it may read ../shared while declaring its tests.
    describe.skipIf(true)(name, () => {
      it(`needs ${SHARED_DIR}`, () => undefined);
    });
    return;
  }
  describe(name, body);
}

export function sharedPath(...parts: string[]): string {
  return resolve(SHARED_DIR, ...parts);
}
