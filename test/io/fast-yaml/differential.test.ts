/**
 * The fast YAML readers and printer against the reference on every YAML and JSON file of the corpus: golden/,
 * test/, examples/ and ../shared. Where a fast reader takes a file, everything must be equal (see support.ts);
 * the files it declines are counted and printed, so a change that quietly declines more shows up.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { describeShared, REPO_ROOT, SHARED_DIR } from '../../support/shared.js';
import { differences, yamlFiles, type Outcome } from './support.js';

function check(root: string, opts: { spans?: boolean } = {}): Record<Outcome, number> {
  const counts: Record<Outcome, number> = { block: 0, json: 0, reference: 0 };
  const diffs: string[] = [];
  for (const file of yamlFiles(root)) {
    const r = differences(file, readFileSync(file, 'utf8'), opts);
    counts[r.outcome]++;
    diffs.push(...r.diffs);
  }
  console.log(`[fast-yaml] ${root}: ${counts.block} block YAML, ${counts.json} JSON, ${counts.reference} left to the reference`);
  expect(diffs.slice(0, 10)).toEqual([]);
  return counts;
}

describe('fast YAML readers and printer equal the reference on the repository', () => {
  for (const dir of ['golden', 'test', 'examples']) {
    it(`${dir}/`, () => {
      const counts = check(join(REPO_ROOT, dir));
      expect(counts.block + counts.json).toBeGreaterThan(0);
    }, 300_000);
  }
});

describeShared('fast YAML readers and printer equal the reference on ../shared', () => {
  it('every YAML and JSON file', () => {
    const counts = check(SHARED_DIR);
    // Nearly every corpus file is block YAML or JSON; a drop means the fast path started declining them.
    expect(counts.block + counts.json).toBeGreaterThan(10 * counts.reference);
  }, 600_000);
});
