import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { expect, it } from 'vitest';
import { parseAllDocuments } from 'yaml';
import { isJsonObject, type JsonObject } from '../../src/ir/json.js';
import type { LabelSelector, MatchClause, MatchSpec, ResourcePattern } from '../../src/ir/match.js';
import { compileMatch } from '../../src/k8s/match.js';
import type { AdmissionRequest } from '../../src/k8s/request.js';
import { describeShared, sharedPath } from '../support/shared.js';

interface Rule {
  apiGroups?: string[];
  apiVersions?: string[];
  resources?: string[];
  operations?: string[];
  resourceNames?: string[];
  scope?: ResourcePattern['scope'];
}

const toPattern = (r: Rule): ResourcePattern => ({
  groups: r.apiGroups ?? [],
  versions: r.apiVersions ?? [],
  resources: r.resources ?? [],
  ...(r.operations ? { operations: r.operations } : {}),
  ...(r.resourceNames ? { resourceNames: r.resourceNames } : {}),
  ...(r.scope ? { scope: r.scope } : {}),
});

/**
 * A test-only lowering of MAP `matchConstraints` and a binding's `matchResources` (the MAP dialect owns the
 * real one): each becomes an `all` clause, and every excludeResourceRules entry an `exclude.any` clause.
 */
function lowerMap(policy: JsonObject, bindings: JsonObject[]): MatchSpec {
  const spec: MatchSpec = { globs: 'exact', all: [], exclude: { any: [] } };
  const add = (mr: JsonObject | undefined): void => {
    if (!mr) return;
    const clause: MatchClause = {};
    const rules = (mr['resourceRules'] ?? []) as Rule[];
    if (rules.length > 0) clause.resources = rules.map(toPattern);
    if (isJsonObject(mr['namespaceSelector'])) clause.namespaceSelector = mr['namespaceSelector'] as LabelSelector;
    if (isJsonObject(mr['objectSelector'])) clause.labelSelector = mr['objectSelector'] as LabelSelector;
    spec.all!.push(clause);
    for (const r of (mr['excludeResourceRules'] ?? []) as Rule[]) spec.exclude!.any!.push({ resources: [toPattern(r)] });
  };
  add((policy['spec'] as JsonObject)['matchConstraints'] as JsonObject);
  const name = (policy['metadata'] as JsonObject)['name'];
  for (const b of bindings) {
    const bs = b['spec'] as JsonObject;
    if (bs['policyName'] === name) add(bs['matchResources'] as JsonObject | undefined);
  }
  return spec;
}

const load = (file: string): JsonObject[] =>
  existsSync(file)
    ? parseAllDocuments(readFileSync(file, 'utf8'))
        .map((d) => d.toJS() as unknown)
        .filter(isJsonObject)
    : [];

describeShared('MutatingAdmissionPolicy suites (kyverno test/cli): passed resources match, the others do not', () => {
  const root = sharedPath('conformance/kyverno/suites/test-mutating-admission-policy');
  const suites = readdirSync(root).filter((d) => existsSync(`${root}/${d}/kyverno-test.yaml`));

  it('finds the suites', () => expect(suites.length).toBeGreaterThan(10));

  for (const suite of suites) {
    const dir = `${root}/${suite}`;
    const policy = load(`${dir}/policy.yaml`).find((p) => p['kind'] === 'MutatingAdmissionPolicy');
    const policySpec = (policy?.['spec'] ?? {}) as JsonObject;
    // Suites whose outcome also depends on CEL matchConditions or params are decided outside the match block.
    if (!policy || policySpec['matchConditions'] || policySpec['paramKind']) continue;
    it(suite, () => {
      const test = load(`${dir}/kyverno-test.yaml`)[0]!;
      const passed = new Set(
        ((test['results'] ?? []) as { result: string; resources?: string[] }[])
          .filter((r) => r.result === 'pass')
          .flatMap((r) => r.resources ?? []),
      );
      const bindings = [...load(`${dir}/policy.yaml`), ...load(`${dir}/bindings.yaml`)].filter(
        (d) => d['kind'] === 'MutatingAdmissionPolicyBinding',
      );
      const values = load(`${dir}/values.yaml`)[0];
      const namespaces = (values?.['namespaceSelector'] ?? []) as { name: string; labels: Record<string, string> }[];
      const match = compileMatch(lowerMap(policy, bindings));
      const resources = load(`${dir}/resource.yaml`);
      expect(resources.length).toBeGreaterThan(0);
      for (const resource of resources) {
        const meta = resource['metadata'] as JsonObject;
        const name = meta['name'] as string;
        // The CLI files namespaced objects without a namespace under "default" and takes namespace labels from values.
        const namespace = resource['kind'] === 'Namespace' ? '' : ((meta['namespace'] as string | undefined) ?? 'default');
        const labels = namespaces.find((n) => n.name === namespace)?.labels ?? {};
        const req: AdmissionRequest = {
          object: resource,
          operation: 'CREATE',
          namespace,
          namespaceObject: namespace === '' ? null : { apiVersion: 'v1', kind: 'Namespace', metadata: { name: namespace, labels } },
        };
        const outcome = match.test(req);
        expect(outcome.error).toBeUndefined();
        expect(outcome.matched, `${name}: ${outcome.reason}`).toBe(passed.has(name));
      }
    });
  }
});
