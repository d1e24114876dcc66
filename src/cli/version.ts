/**
 * The package version for `transmute --version`. The bundle (scripts/build-cli.mjs) defines TRANSMUTE_VERSION
 * from package.json; run from source (tsx, vitest) or from tsc's output, the nearest package.json above this
 * file is read instead.
 */
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

declare const TRANSMUTE_VERSION: string | undefined;

export function packageVersion(): string {
  if (typeof TRANSMUTE_VERSION === 'string') return TRANSMUTE_VERSION;
  for (let dir = dirname(fileURLToPath(import.meta.url)); ; dir = dirname(dir)) {
    try {
      const pkg = JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')) as { version?: unknown; bin?: unknown };
      if (typeof pkg.version === 'string' && typeof pkg.bin === 'object' && pkg.bin !== null && 'transmute' in pkg.bin) return pkg.version;
    } catch {
      // No package.json here (or not ours): look further up.
    }
    if (dirname(dir) === dir) return 'unknown';
  }
}
