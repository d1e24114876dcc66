import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { expect, it } from 'vitest';
import { parseAllDocuments } from 'yaml';
import { isJsonObject, jsonEqual, type JsonObject } from '../../src/ir/json.js';
import type { GvkPattern, LabelSelector, MatchClause, MatchSpec } from '../../src/ir/match.js';
import { compileMatch } from '../../src/k8s/match.js';
import { gatekeeperApplyToOperations } from '../../src/k8s/operations.js';
import type { AdmissionRequest, Operation } from '../../src/k8s/request.js';
import { describeShared, sharedPath } from '../support/shared.js';

/**
 * A test-only lowering of a Gatekeeper mutator's `match` and `applyTo` onto a MatchSpec (the Gatekeeper
 * dialect owns the real one): `match` becomes one `all` clause, each applyTo entry one `any` clause.
 */
function lowerMutator(mutator: JsonObject): MatchSpec {
  const spec = (mutator['spec'] ?? {}) as JsonObject;
  const m = (spec['match'] ?? {}) as JsonObject;
  const clause: MatchClause = {};
  const kinds = (m['kinds'] ?? []) as { apiGroups?: string[]; kinds?: string[] }[];
  if (kinds.length > 0) {
    clause.kinds = kinds.flatMap((k): GvkPattern[] => {
      const groups = k.apiGroups?.length ? k.apiGroups : ['*'];
      const names = k.kinds?.length ? k.kinds : ['*'];
      return groups.flatMap((group) => names.map((kind) => ({ group, kind })));
    });
  }
  if (typeof m['scope'] === 'string') clause.scope = m['scope'] as MatchClause['scope'];
  if (Array.isArray(m['namespaces'])) clause.namespaces = m['namespaces'] as string[];
  if (Array.isArray(m['excludedNamespaces'])) clause.excludedNamespaces = m['excludedNamespaces'] as string[];
  if (isJsonObject(m['labelSelector'])) clause.labelSelector = m['labelSelector'] as LabelSelector;
  if (isJsonObject(m['namespaceSelector'])) clause.namespaceSelector = m['namespaceSelector'] as LabelSelector;
  if (typeof m['name'] === 'string' && m['name'] !== '') clause.names = [m['name']];
  const out: MatchSpec = { globs: 'prefixSuffix', all: [clause] };
  if (mutator['kind'] !== 'AssignMetadata') {
    const applyTo = (spec['applyTo'] ?? []) as { groups?: string[]; versions?: string[]; kinds?: string[]; operations?: string[] }[];
    out.any = applyTo.flatMap((a): MatchClause[] => {
      const operations = gatekeeperApplyToOperations(a.operations);
      if (operations === null) return [];
      const gvks = (a.groups ?? []).flatMap((group) =>
        (a.versions ?? []).flatMap((version) => (a.kinds ?? []).map((kind) => ({ group, version, kind }))),
      );
      return gvks.length > 0 ? [{ kinds: gvks, operations }] : [];
    });
  }
  return out;
}

const load = (file: string): JsonObject[] =>
  parseAllDocuments(readFileSync(file, 'utf8'))
    .map((d) => d.toJS() as unknown)
    .filter(isJsonObject);

const metaOf = (o: JsonObject): JsonObject => (isJsonObject(o['metadata']) ? o['metadata'] : {});

describeShared('Gatekeeper corpus: a mutated object implies a matching mutator', () => {
  const root = sharedPath('conformance/gatekeeper');
  const cases = ['go-unit', 'bats-e2e', 'derived-system'].flatMap((source) =>
    readdirSync(`${root}/${source}`).map((c) => `${root}/${source}/${c}`),
  );
  const withObjects = cases.filter((dir) => existsSync(`${dir}/input.yaml`) && existsSync(`${dir}/expected.yaml`));

  it('finds the cases', () => expect(withObjects.length).toBeGreaterThan(50));

  for (const dir of withObjects) {
    const id = dir.slice(root.length + 1);
    it(id, () => {
      const manifest = JSON.parse(readFileSync(`${dir}/manifest.json`, 'utf8')) as { context?: { operation?: string } };
      const input = load(`${dir}/input.yaml`)[0]!;
      const expected = load(`${dir}/expected.yaml`)[0]!;
      const namespaceDoc = existsSync(`${dir}/namespace.yaml`) ? load(`${dir}/namespace.yaml`)[0] : undefined;
      // The corpus passes the Namespace to the matcher only when the object lives in it.
      const namespaceObject =
        namespaceDoc && metaOf(namespaceDoc)['name'] === metaOf(input)['namespace'] ? namespaceDoc : null;
      const req: AdmissionRequest = {
        object: input,
        operation: (manifest.context?.operation ?? 'CREATE') as Operation,
        namespaceObject,
      };
      const mutators = load(`${dir}/mutators.yaml`).filter((d) => String(d['apiVersion'] ?? '').startsWith('mutations.gatekeeper.sh'));
      expect(mutators.length).toBeGreaterThan(0);
      const outcomes = mutators.map((m) => compileMatch(lowerMutator(m)).test(req));
      for (const o of outcomes) expect(o.error, o.reason).toBeUndefined();
      if (!jsonEqual(input, expected)) {
        expect(outcomes.some((o) => o.matched), outcomes.map((o) => o.reason).join('; ')).toBe(true);
      }
    });
  }

  it('namespace-selector-and-excluded: excludedNamespaces wins over a matching namespaceSelector', () => {
    const dir = `${root}/derived-system/namespace-selector-and-excluded`;
    const [mutator] = load(`${dir}/mutators.yaml`);
    const input = load(`${dir}/input.yaml`)[0]!;
    const ns = load(`${dir}/namespace.yaml`)[0]!;
    const r = compileMatch(lowerMutator(mutator!)).test({ object: input, operation: 'CREATE', namespaceObject: ns });
    expect(r.matched).toBe(false);
    expect(r.reason).toContain('excludedNamespaces');
  });
});
