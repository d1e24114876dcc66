/**
 * A MutatingAdmissionPolicy binding's params as the Kyverno CLI picks them (params.ts kyvernoCliVariants,
 * Kyverno's pkg/admissionpolicy/mutate.go processMAPWithoutClient), beside kube-apiserver's: a selector gives
 * one invocation over every matching param as `params.items`; a name, the first param of that name.
 */
import { describe, expect, it } from 'vitest';
import { mapDialect } from '../../../src/dialects/map/index.js';
import { apply } from '../../../src/interpreter/index.js';
import type { JsonObject } from '../../../src/ir/json.js';
import { docs, policy, POD, PODS } from './support.js';

const PARAMS = `apiVersion: v1
kind: ConfigMap
metadata: {name: one, namespace: default, labels: {pick: "yes"}}
data: {k: a}
---
apiVersion: v1
kind: ConfigMap
metadata: {name: two, namespace: other, labels: {pick: "yes"}}
data: {k: b}
`;

function run(text: string, paramResolution: 'apiserver' | 'kyverno-cli') {
  const all = [...docs(text), ...docs(PARAMS, 'params.yaml')];
  const parsed = mapDialect.parse(all.filter((d) => mapDialect.recognizes(d)), { siblings: all.filter((d) => !mapDialect.recognizes(d)), paramResolution });
  expect(parsed.diagnostics.filter((d) => d.severity === 'error')).toEqual([]);
  const r = apply(parsed.policies, { object: POD, operation: 'CREATE' });
  return { allowed: r.allowed, labels: ((r.object as JsonObject).metadata as JsonObject).labels, errors: r.diagnostics.map((d) => d.message) };
}

const spec = (expression: string) => `paramKind: {apiVersion: v1, kind: ConfigMap}
${PODS}
failurePolicy: Fail
mutations:
- patchType: ApplyConfiguration
  applyConfiguration:
    expression: '${expression}'`;

describe("a binding's params under the Kyverno CLI", () => {
  it('with a selector: one invocation over every match, of any namespace, as params.items', () => {
    const text = policy('p', spec('Object{metadata: Object.metadata{labels: {"ks": params.items.map(i, i.data.k).join(",")}}}'), 'paramRef: {selector: {matchLabels: {pick: "yes"}}}');
    expect(run(text, 'kyverno-cli')).toEqual({ allowed: true, labels: { app: 'x', ks: 'a,b' }, errors: [] });
    // kube-apiserver: one invocation per param of the request's namespace, each params a ConfigMap.
    const apiserver = run(text, 'apiserver');
    expect(apiserver.allowed).toBe(false);
    expect(apiserver.errors[0]).toContain('no such key: items');
  });

  it('with a selector nothing matches, params is null; by name, the first param of that name, in any namespace', () => {
    const none = policy('p', spec('Object{metadata: Object.metadata{labels: {"none": string(params == null)}}}'), 'paramRef: {selector: {matchLabels: {pick: "no"}}}');
    expect(run(none, 'kyverno-cli').labels).toEqual({ app: 'x', none: 'true' });
    const byName = policy('p', spec('Object{metadata: Object.metadata{labels: {"k": params.data.k}}}'), 'paramRef: {name: two}');
    expect(run(byName, 'kyverno-cli').labels).toEqual({ app: 'x', k: 'b' });
    // kube-apiserver reads a namespaced param from the request's namespace: "two" is not in "default".
    expect(run(byName, 'apiserver').labels).toEqual({ app: 'x' });
  });
});
