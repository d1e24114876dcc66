/**
 * Runtimes are values: evaluations with different runtimes run interleaved over the same policy objects (one
 * compiled plan) and each gets its own runtime's schemas and data. The fixtures are written for this test: a
 * MutatingAdmissionPolicy adding a port to a custom `Widget` kind whose CRD keys `spec.ports` by name.
 */
import { describe, expect, it } from 'vitest';
import { mapDialect } from '../../src/dialects/map/index.js';
import { apply, type ApplyResult } from '../../src/interpreter/index.js';
import type { JsonObject, JsonValue } from '../../src/ir/json.js';
import type { Policy } from '../../src/ir/nodes.js';
import { loadYamlText } from '../../src/io/yaml-load.js';
import type { AdmissionRequest } from '../../src/k8s/request.js';
import { kindSchemasFromCrds } from '../../src/merge/ssa/openapi/load.js';
import { createRuntime, deriveRuntime, emptyRuntime, type Runtime } from '../../src/runtime/index.js';
import { WIDGET_CRD } from '../support/widget-crd.js';

function docs(text: string) {
  const r = loadYamlText('runtime-test.yaml', text);
  if (!r.ok) throw new Error(r.diagnostics.map((d) => d.message).join('\n'));
  return r.value;
}

function mapPolicies(expression: string, resources = 'widgets', group = 'example.com'): Policy[] {
  const parsed = mapDialect.parse(
    docs(`apiVersion: admissionregistration.k8s.io/v1
kind: MutatingAdmissionPolicy
metadata: {name: p}
spec:
  matchConstraints:
    resourceRules:
    - apiGroups: ['${group}']
      apiVersions: [v1]
      operations: [CREATE]
      resources: [${resources}]
  failurePolicy: Fail
  mutations:
  - patchType: ApplyConfiguration
    applyConfiguration:
      expression: '${expression}'
---
apiVersion: admissionregistration.k8s.io/v1
kind: MutatingAdmissionPolicyBinding
metadata: {name: p}
spec: {policyName: p}
`),
    { siblings: [] },
  );
  expect(parsed.diagnostics.filter((d) => d.severity === 'error')).toEqual([]);
  return parsed.policies;
}


function widgetKinds() {
  const r = kindSchemasFromCrds(docs(WIDGET_CRD));
  if (!r.ok) throw new Error(r.diagnostics.map((d) => d.message).join('\n'));
  return r.value;
}

const WIDGET: JsonObject = { apiVersion: 'example.com/v1', kind: 'Widget', metadata: { name: 'w', namespace: 'default' }, spec: { ports: [{ name: 'http', port: 80 }] } };
const request = (object: JsonValue): AdmissionRequest => ({ object, oldObject: null, operation: 'CREATE' });
const ports = (r: ApplyResult): unknown => ((r.object as JsonObject | null)?.spec as JsonObject | undefined)?.ports;

describe('runtimes evaluate side by side', () => {
  const policies = mapPolicies('Object{spec: Object.spec{ports: [Object.spec.ports{name: "metrics", port: 9090}]}}');
  const withCrd = createRuntime({ schemas: { kinds: widgetKinds() } });
  const deduced = createRuntime({ schemas: { unknownKinds: 'deduced' } });
  const builtinOnly = createRuntime();

  it('a custom kind known in one runtime and not in another: merged by key, replaced (deduced), refused', () => {
    // Interleaved, twice over, on the same policy array: no runtime leaks into the next evaluation.
    for (let round = 0; round < 2; round++) {
      const merged = apply(policies, request(WIDGET), { runtime: withCrd });
      const refused = apply(policies, request(WIDGET), { runtime: builtinOnly });
      const replaced = apply(policies, request(WIDGET), { runtime: deduced });
      expect(merged.allowed).toBe(true);
      expect(ports(merged)).toEqual([
        { name: 'http', port: 80 },
        { name: 'metrics', port: 9090 },
      ]);
      // The deduced schema makes lists atomic (NewDeducedTypeConverter): the configuration's list wins whole.
      expect(replaced.allowed).toBe(true);
      expect(ports(replaced)).toEqual([{ name: 'metrics', port: 9090 }]);
      expect(refused.allowed).toBe(false);
      expect(refused.diagnostics.map((d) => d.message).join('\n')).toContain('Resource kind example.com/v1, Kind=Widget not found');
    }
  });

  it('apply without a runtime uses a default one: built-in kinds only', () => {
    const r = apply(policies, request(WIDGET));
    expect(r.allowed).toBe(false);
    expect(r.diagnostics.map((d) => d.message).join('\n')).toContain('Kind=Widget not found');
  });

  it('request attributes the request type does not carry come from each runtime', () => {
    const labelled = mapPolicies('Object{metadata: Object.metadata{labels: {"via": request.requestKind.kind + "/" + request.requestResource.resource}}}', 'configmaps', '');
    const cm: JsonObject = { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'c', namespace: 'default' } };
    const scaled = createRuntime({ requestExtras: { requestKind: { group: 'autoscaling', version: 'v1', kind: 'Scale' }, requestResource: { group: 'apps', version: 'v1', resource: 'deployments' } } });
    const label = (runtime: Runtime): unknown => (((apply(labelled, request(cm), { runtime }).object as JsonObject).metadata as JsonObject).labels as JsonObject).via;
    expect(label(scaled)).toBe('Scale/deployments');
    expect(label(builtinOnly)).toBe('ConfigMap/configmaps');
    expect(label(scaled)).toBe('Scale/deployments');
  });

  it('a runtime without engines reports the missing engine; a derived runtime adds one back', () => {
    const none = emptyRuntime();
    const r = apply(policies, request(WIDGET), { runtime: none });
    expect(r.allowed).toBe(false);
    expect(r.diagnostics.map((d) => d.code)).toEqual(['TM3005']);
    expect(r.diagnostics[0]!.message).toContain('no CEL engine is available to evaluate');
    const defaults = createRuntime();
    const again = deriveRuntime(none, { expressions: defaults.expressions, merges: defaults.merges, schemas: { kinds: widgetKinds() } });
    expect(ports(apply(policies, request(WIDGET), { runtime: again }))).toHaveLength(2);
  });

  it('a runtime is a frozen value; every createRuntime() is a new one sharing the stateless engines', () => {
    const a = createRuntime();
    const b = createRuntime();
    expect(a).not.toBe(b);
    expect(a).toEqual(b);
    expect(a.expressions['cel-kubernetes']).toBe(b.expressions['cel-kubernetes']);
    expect(Object.isFrozen(a)).toBe(true);
    expect(Object.isFrozen(a.expressions)).toBe(true);
    expect(Object.isFrozen(a.schemas)).toBe(true);
    expect(a.schemas.kinds).not.toBe(b.schemas.kinds);
  });
});
