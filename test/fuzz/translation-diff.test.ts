/**
 * The translation differential (test/fuzz/translation-diff.ts, `npm run translation-diff`) on the migrate
 * fixture library: every translation of it gives what its source gives on the library's objects and their
 * variations, and the run compared something. The variations keep list keys set and distinct.
 */
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { JsonObject } from '../../src/ir/json.js';
import { mulberry32 } from '../support/random.js';
import { describeShared, sharedPath } from '../support/shared.js';
import { translationDiff, variation } from './translation-diff.js';

const LIBRARY = join(import.meta.dirname, '..', 'fixtures', 'migrate', 'library');

describe('translation differential', () => {
  it('finds no difference between the fixture library and its translations, and compares objects', () => {
    for (const source of ['kyverno', 'gatekeeper'] as const) {
      const report = translationDiff({ dirs: [LIBRARY], source, targets: source === 'kyverno' ? ['kyverno-mpol', 'map'] : ['map', 'kyverno-mpol', 'kyverno'], perObject: 4, seed: 1, operation: 'CREATE' });
      expect(report.units, source).toBeGreaterThan(0);
      expect(report.compared, source).toBeGreaterThan(0);
      expect(report.differences.filter((d) => !d.stated), source).toEqual([]);
    }
  });

  it('varies an object without giving two elements of a list one key', () => {
    const pod: JsonObject = {
      apiVersion: 'v1',
      kind: 'Pod',
      metadata: { name: 'p', namespace: 'n' },
      spec: { containers: [{ name: 'a', image: 'x', ports: [{ containerPort: 80 }] }, { name: 'b', image: 'y' }] },
    };
    const r = mulberry32(7);
    const counter = { n: 0 };
    for (let i = 0; i < 300; i++) {
      const v = variation(pod, r, counter);
      expect((v.metadata as JsonObject).namespace).toBe('n');
      const containers = ((v.spec as JsonObject | undefined)?.containers ?? []) as JsonObject[];
      const names = containers.map((c) => c.name);
      expect(new Set(names).size, JSON.stringify(v)).toBe(names.length);
      for (const c of containers) {
        const ports = ((c.ports ?? []) as JsonObject[]).map((p) => p.containerPort);
        expect(new Set(ports).size).toBe(ports.length);
      }
    }
    // The base object is never changed.
    expect(pod.spec).toEqual({ containers: [{ name: 'a', image: 'x', ports: [{ containerPort: 80 }] }, { name: 'b', image: 'y' }] });
  });
});

describeShared('translation differential over the upstream corpora', () => {
  // Each corpus's policies against their translations, on the corpus's objects and two variations of each: a
  // foreach that reordered containers in Kyverno but not in the CEL was found this way (kyverno-cli
  // add-default-resources), and would be again.
  for (const [source, corpus, targets] of [
    ['kyverno', 'kyverno', ['kyverno-mpol', 'map']],
    ['gatekeeper', 'gatekeeper', ['map', 'kyverno-mpol', 'kyverno']],
    ['map', 'map', ['kyverno-mpol', 'kyverno', 'gatekeeper']],
  ] as const) {
    it(`${corpus}: no difference the translation does not state`, { timeout: 120_000 }, () => {
      const report = translationDiff({ dirs: [sharedPath('conformance', corpus)], source, targets, perObject: 2, seed: 0, operation: 'CREATE' });
      expect(report.compared).toBeGreaterThan(300);
      expect(report.differences.filter((d) => !d.stated).map((d) => `${d.target} ${d.unit}: ${d.what}`)).toEqual([]);
    });
  }
});
