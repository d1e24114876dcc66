import { readdirSync, readFileSync } from 'node:fs';
import { relative } from 'node:path';
import { expect, it } from 'vitest';
import { parse } from 'yaml';
import { discoverCases } from '../../src/conformance/discover.js';
import { LoadCache, loadCase } from '../../src/conformance/loaders/index.js';
import type { CaseRef, ConformanceCase } from '../../src/conformance/types.js';
import { describeShared, REPO_ROOT, sharedPath } from '../support/shared.js';

/** DIR arguments spelled as a user in the repository root would: `../shared/conformance/...`. */
const dirArg = (...parts: string[]): string => relative(REPO_ROOT, sharedPath('conformance', ...parts));
const discover = (...dirs: string[]): CaseRef[] => {
  const found = discoverCases(dirs, REPO_ROOT);
  expect(found.missing).toEqual([]);
  return found.refs;
};
const index = (corpus: string): string => readFileSync(sharedPath('conformance', corpus, 'INDEX.md'), 'utf8');
const number = (text: string, re: RegExp): number => {
  const m = re.exec(text);
  if (!m) throw new Error(`INDEX.md has no match for ${re}`);
  return Number(m[1]);
};
const loadAll = (refs: CaseRef[]): ConformanceCase[] => {
  const cache = new LoadCache();
  return refs.map((r) => {
    const c = loadCase(r, cache);
    if (!c.ok) throw new Error(`${r.id}: ${c.diagnostics[0]?.message}`);
    return c.value;
  });
};

describeShared('conformance discovery: gatekeeper', () => {
  const text = index('gatekeeper');

  it('finds the case folders and table rows INDEX.md states', () => {
    const refs = discover(dirArg('gatekeeper'));
    const cases = refs.filter((r) => r.kind === 'manifest');
    const rows = refs.filter((r) => r.kind === 'table-row');
    expect(cases).toHaveLength(number(text, /\*\*(\d+) cases\*\*/));
    const tableRows = [...text.matchAll(/^\| [a-z_]+\.json \| (\d+) \|/gm)].reduce((n, m) => n + Number(m[1]), 0);
    expect(tableRows).toBeGreaterThan(0);
    expect(rows).toHaveLength(tableRows);
    expect(refs).toHaveLength(cases.length + rows.length);
  });

  it('counts each source folder as its INDEX section says', () => {
    for (const source of ['go-unit', 'bats-e2e', 'webhook-validation', 'derived-system']) {
      const stated = number(text, new RegExp(`^## ${source} \\((\\d+) cases\\)`, 'm'));
      expect(discover(dirArg('gatekeeper', source)), source).toHaveLength(stated);
    }
  });

  it('classifies expectations as INDEX.md counts them (object, error, accepted)', () => {
    const cases = loadAll(discover(dirArg('gatekeeper')).filter((r) => r.kind === 'manifest'));
    const kinds = cases.map((c) => (c.format === 'gatekeeper' ? c.expect.kind : 'other'));
    const objects = number(text, /\((\d+) with an expected object/);
    const errors = number(text, /(\d+) expecting an error/);
    expect(kinds.filter((k) => k === 'object')).toHaveLength(objects);
    expect(kinds.filter((k) => k === 'error')).toHaveLength(errors);
    // "the rest: mutator must be accepted"
    expect(kinds.filter((k) => k === 'valid')).toHaveLength(cases.length - objects - errors);
  });

  it('keeps the user spelling of DIR, with sorted, unique ids and #row suffixes for tables', () => {
    const dir = dirArg('gatekeeper');
    const refs = discover(`${dir}/`);
    expect(refs.every((r) => r.id.startsWith(`${dir}/`))).toBe(true);
    expect(new Set(refs.map((r) => r.id)).size).toBe(refs.length);
    expect(refs.map((r) => r.id)).toContain(`${dir}/go-unit/assign-frommetadata-name`);
    expect(refs.map((r) => r.id)).toContain(`${dir}/go-unit-tables/parser.json#0`);
    const caseIds = refs.filter((r) => r.kind === 'manifest').map((r) => r.id);
    expect(caseIds).toEqual([...caseIds].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0)));
    const parserRows = refs.filter((r) => r.kind === 'table-row' && r.id.includes('/parser.json#')).map((r) => (r as { row: number }).row);
    expect(parserRows).toEqual(parserRows.map((_, i) => i));
  });

  it('accepts a single case folder, a table file, and overlapping DIRs without duplicates', () => {
    const one = dirArg('gatekeeper', 'go-unit', 'assign-frommetadata-name');
    expect(discover(one).map((r) => r.id)).toEqual([one]);
    const table = JSON.parse(readFileSync(sharedPath('conformance', 'gatekeeper', 'go-unit-tables', 'scanner.json'), 'utf8')) as { cases: unknown[] };
    expect(discover(dirArg('gatekeeper', 'go-unit-tables', 'scanner.json'))).toHaveLength(table.cases.length);
    expect(discover(dirArg('gatekeeper', 'go-unit'), one)).toHaveLength(discover(dirArg('gatekeeper', 'go-unit')).length);
  });
});

describeShared('conformance discovery: kyverno', () => {
  const text = index('kyverno');
  const totals = /\*\*Totals:\*\*(.*)$/m.exec(text)?.[1] ?? '';
  const stated = (source: string): { total: number; offline: number } => {
    const m = new RegExp(`${source}: (\\d+) \\((\\d+) offline-usable\\)`).exec(totals);
    if (!m) throw new Error(`no total for ${source}`);
    return { total: Number(m[1]), offline: Number(m[2]) };
  };

  it('finds each source folder with the totals INDEX.md states, and skips exactly the cases not usable offline', () => {
    for (const source of ['kyverno-cli', 'kyverno-chainsaw', 'kyverno-chainsaw-mpol-to-map', 'kyverno-unit']) {
      const refs = discover(dirArg('kyverno', source));
      const { total, offline } = stated(source);
      expect(refs, source).toHaveLength(total);
      const cases = loadAll(refs);
      expect(cases.filter((c) => c.needsCluster === undefined), source).toHaveLength(offline);
    }
  });

  it('finds one case per results[] entry of every kyverno-test.yaml under suites/', () => {
    const files: string[] = [];
    const walk = (dir: string): void => {
      for (const e of readdirSync(dir, { withFileTypes: true })) {
        if (e.isDirectory()) walk(`${dir}/${e.name}`);
        else if (e.name === 'kyverno-test.yaml') files.push(`${dir}/${e.name}`);
      }
    };
    walk(sharedPath('conformance', 'kyverno', 'suites'));
    const results = files.reduce((n, f) => n + ((parse(readFileSync(f, 'utf8')) as { results: unknown[] }).results.length), 0);
    const refs = discover(dirArg('kyverno', 'suites'));
    expect(refs).toHaveLength(results);
    expect(refs.every((r) => r.kind === 'suite-result' && /kyverno-test\.yaml#\d+$/.test(r.id))).toBe(true);
    expect(loadAll(refs)).toHaveLength(results);
  });
});

describeShared('conformance discovery: map', () => {
  const text = index('map');

  it('finds the MAP cases and SMD triplets INDEX.md states, and no case in k8s-schema', () => {
    const refs = discover(dirArg('map'));
    expect(refs.filter((r) => r.kind === 'manifest')).toHaveLength(number(text, /Total MAP cases: \*\*(\d+)\*\*/));
    expect(refs.filter((r) => r.kind === 'smd-triplet')).toHaveLength(number(text, /\(\+ (\d+) SMD merge-engine triplets/));
    expect(refs.some((r) => r.id.includes('k8s-schema'))).toBe(false);
    for (const source of ['k8s-unit', 'k8s-integration', 'kyverno-cli']) {
      const statedCount = number(text, new RegExp(`^\\| \`${source}/\` \\|.*\\| (\\d+) \\|$`, 'm'));
      expect(discover(dirArg('map', source)), source).toHaveLength(statedCount);
    }
  });

  it('classifies outcomes as INDEX.md counts them', () => {
    const cases = loadAll(discover(dirArg('map')).filter((r) => r.kind === 'manifest'));
    const errors = cases.filter((c) => c.format === 'map' && c.expect.kind === 'error');
    expect(errors).toHaveLength(number(text, /Outcomes: error=(\d+)/));
    const objects = cases.filter((c) => c.format === 'map' && c.expect.kind === 'object');
    expect(objects).toHaveLength(number(text, /mutated=(\d+)/) + number(text, /unchanged=(\d+)/));
  });
});

describeShared('conformance loaders rebuild requests as the upstream tools do', () => {
  const metadataOf = (o: unknown): Record<string, unknown> => ((o as { metadata?: Record<string, unknown> } | null)?.metadata ?? {});

  it('gatekeeper: the Namespace reaches the matcher only for objects in it (or a Namespace itself)', () => {
    const cases = loadAll(discover(dirArg('gatekeeper')).filter((r) => r.kind === 'manifest'));
    let withNamespace = 0;
    for (const c of cases) {
      if (c.format !== 'gatekeeper' || !c.request?.namespaceObject) continue;
      withNamespace++;
      const object = c.request.object as { kind?: string };
      if (object.kind === 'Namespace') expect(c.request.namespaceObject).toBe(c.request.object);
      else expect(metadataOf(c.request.namespaceObject).name, c.id).toBe(metadataOf(object).namespace);
    }
    expect(withNamespace).toBeGreaterThan(0);
  });

  it('kyverno CLI: namespaced inputs and expectations get the "default" namespace, cluster-scoped ones none', () => {
    const cases = loadAll(discover(dirArg('kyverno', 'kyverno-cli')));
    for (const c of cases) {
      // In mutate-existing cases the request is the trigger and the expectation a target elsewhere.
      if (c.format !== 'kyverno-cli' || !c.request || c.expect.kind !== 'object' || c.mutateExisting) continue;
      const object = c.request.object as { kind?: string };
      const namespace = metadataOf(object).namespace;
      if (object.kind === 'Namespace') expect(namespace, c.id).toBeUndefined();
      else expect(typeof namespace === 'string' && namespace !== '', c.id).toBe(true);
      expect(metadataOf(c.expect.object).namespace, c.id).toBe(namespace);
      if (namespace) expect(metadataOf(c.request.namespaceObject).name, c.id).toBe(namespace);
    }
  });

  it('map: the request attributes and the namespace object come from the manifest', () => {
    const refs = discover(dirArg('map')).filter((r) => r.kind === 'manifest');
    for (const c of loadAll(refs)) {
      if (c.format !== 'map' || !c.request) continue;
      const manifest = JSON.parse(readFileSync(`${c.path}/manifest.json`, 'utf8')) as { request: { operation: string; namespace: string } };
      expect(c.request.operation, c.id).toBe(manifest.request.operation);
      if (c.request.namespaceObject) expect(metadataOf(c.request.namespaceObject).name, c.id).toBe(manifest.request.namespace);
    }
  });
});
