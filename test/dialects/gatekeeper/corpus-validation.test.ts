/**
 * Every case of the Gatekeeper conformance corpus, at the mutator-construction level: a case whose expected
 * error is in the `mutator-validation` phase must have a mutator refused with the expected reason; every
 * other case's mutators must all be accepted.
 */
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { expect, it } from 'vitest';
import { parseLocation } from '../../../grammars/gatekeeper-location.js';
import { nodesEqual, printLocation } from '../../../src/dialects/gatekeeper/location.js';
import { parseMutator } from '../../../src/dialects/gatekeeper/mutators.js';
import { describeShared, HAS_SHARED, sharedPath } from '../../support/shared.js';
import { sourceDocsFromFile } from './support.js';

interface Manifest {
  id: string;
  expectedError?: { phase: string; contains?: string | null; errorType?: string | null };
}

/**
 * Upstream tests that assert an error type instead of a message (assignimage/errors.go types): the text
 * each type's message always contains.
 */
const ERROR_TYPE_TEXT: Record<string, string> = {
  domainLikePathError: 'assignDomain must be set if the first part of assignPath',
  metadataRootError: "can't change metadata",
  listTerminalError: 'cannot mutate list-type fields',
};

function caseDirs(): string[] {
  if (!HAS_SHARED) return [];
  const root = sharedPath('conformance', 'gatekeeper');
  const dirs: string[] = [];
  for (const source of readdirSync(root).sort()) {
    const sourceDir = join(root, source);
    if (!statSync(sourceDir).isDirectory()) continue;
    for (const c of readdirSync(sourceDir).sort()) {
      if (existsSync(join(sourceDir, c, 'manifest.json'))) dirs.push(join(sourceDir, c));
    }
  }
  return dirs;
}

describeShared('gatekeeper corpus: mutator construction', () => {
  const dirs = caseDirs();
  it('finds the 128 corpus cases', () => expect(dirs).toHaveLength(128));

  for (const dir of dirs) {
    const manifest = JSON.parse(readFileSync(join(dir, 'manifest.json'), 'utf8')) as Manifest;
    const expected = manifest.expectedError?.phase === 'mutator-validation' ? manifest.expectedError : undefined;
    it(`${manifest.id}: ${expected ? 'refused' : 'accepted'}`, () => {
      const results = sourceDocsFromFile(join(dir, 'mutators.yaml')).map(parseMutator);
      expect(results.length).toBeGreaterThan(0);
      if (!expected) {
        for (const r of results) {
          expect(r.diagnostics.filter((d) => d.severity === 'error')).toEqual([]);
          expect(r.ok).toBe(true);
          if (!r.ok) continue;
          // The canonical text of every accepted location parses back to the same nodes.
          const again = parseLocation(printLocation(r.value.location));
          expect(again.ok && again.path.length === r.value.location.length && again.path.every((n, i) => nodesEqual(n, r.value.location[i]!))).toBe(true);
        }
        return;
      }
      const refusals = results.filter((r) => !r.ok).flatMap((r) => r.diagnostics.filter((d) => d.severity === 'error'));
      expect(refusals.length).toBeGreaterThan(0);
      const reason = expected.contains ?? (expected.errorType ? ERROR_TYPE_TEXT[expected.errorType] : undefined);
      if (reason !== undefined) expect(refusals.map((d) => d.message).join('\n')).toContain(reason);
      for (const d of refusals) expect(d.span).toBeDefined();
    });
  }
});
