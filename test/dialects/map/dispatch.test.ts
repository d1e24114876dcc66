import { describe, expect, it } from 'vitest';
import { policy, PODS, POD, run } from './support.js';

const addLabel = (k: string, v: string) => `- patchType: JSONPatch
  jsonPatch:
    expression: '[JSONPatch{op: "add", path: "/metadata/labels/${k}", value: ${v}}]'`;

const labels = (r: { object: unknown }) => (r.object as { metadata: { labels: Record<string, string> } }).metadata.labels;

describe('MAP dispatch', () => {
  it('runs mutations in order, each seeing the previous result', () => {
    const r = run(policy('p', `${PODS}\nmutations:\n${addLabel('a', '"1"')}\n${addLabel('b', 'object.metadata.labels["a"] + "2"')}`), POD);
    expect(r.allowed).toBe(true);
    expect(labels(r)).toEqual({ app: 'x', a: '1', b: '12' });
  });

  it('never runs on DELETE and honours matchConstraints', () => {
    const text = policy('p', `${PODS}\nmutations:\n${addLabel('a', '"1"')}`);
    expect(run(text, POD, { operation: 'DELETE', oldObject: POD }).object).toBe(POD);
    const cm = { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'c', namespace: 'default', labels: {} } };
    expect(run(text, cm).object).toBe(cm);
  });

  it('binding matchResources restricts further (both must match)', () => {
    const text = policy('p', `${PODS}\nmutations:\n${addLabel('a', '"1"')}`, `matchResources:\n  objectSelector:\n    matchLabels: {app: "yy"}`);
    expect(run(text, POD).object).toBe(POD);
  });

  it('matchConditions: false skips the invocation; an error follows failurePolicy', () => {
    const skip = policy('p', `${PODS}\nmatchConditions:\n- {name: never, expression: 'false'}\nmutations:\n${addLabel('a', '"1"')}`);
    expect(run(skip, POD).object).toBe(POD);
    const failing = (fp: string) =>
      policy('p', `${PODS}\nfailurePolicy: ${fp}\nmatchConditions:\n- {name: boom, expression: 'object.metadata.nope == "x"'}\nmutations:\n${addLabel('a', '"1"')}`);
    const denied = run(failing('Fail'), POD);
    expect(denied.allowed).toBe(false);
    expect(denied.diagnostics[0]!.message).toBe("policy 'p' with binding 'p-binding' denied request: no such key: nope");
    const ignored = run(failing('Ignore'), POD);
    expect(ignored.allowed).toBe(true);
    expect(ignored.object).toBe(POD);
  });

  it('failurePolicy Ignore skips the failing mutation and keeps earlier and later ones', () => {
    const text = policy('p', `${PODS}\nfailurePolicy: Ignore\nmutations:\n${addLabel('a', '"1"')}\n${addLabel('b', 'object.nope')}\n${addLabel('c', '"3"')}`);
    const r = run(text, POD);
    expect(r.allowed).toBe(true);
    expect(labels(r)).toEqual({ app: 'x', a: '1', c: '3' });
  });

  it('ApplyConfiguration: atomic guard and unknown fields, with the apiserver words', () => {
    const deploy = { apiVersion: 'apps/v1', kind: 'Deployment', metadata: { name: 'd', namespace: 'default' }, spec: { replicas: 1 } };
    const rules = `matchConstraints:\n  resourceRules:\n  - {apiGroups: [apps], apiVersions: [v1], operations: [CREATE], resources: [deployments]}`;
    const ac = (e: string) => policy('p', `${rules}\nmutations:\n- patchType: ApplyConfiguration\n  applyConfiguration:\n    expression: '${e}'`);
    const atomic = run(ac('Object{spec: Object.spec{selector: Object.spec.selector{matchLabels: {"a": "b"}}}}'), deploy);
    expect(atomic.diagnostics[0]!.message).toContain('error applying patch: invalid ApplyConfiguration: may not mutate atomic arrays, maps or structs: .spec.selector');
    const unknown = run(ac('Object{spec: Object.spec{replicasx: 2}}'), deploy);
    expect(unknown.diagnostics[0]!.message).toContain('.spec.replicasx: field not declared in schema');
    const ok = run(ac('Object{spec: Object.spec{replicas: 3}}'), deploy);
    expect((ok.object as { spec: { replicas: number } }).spec.replicas).toBe(3);
  });

  it('variables are lazy and see the current object', () => {
    const text = policy(
      'p',
      `${PODS}\nvariables:\n- {name: count, expression: 'size(object.metadata.labels)'}\n- {name: bad, expression: 'object.nope'}\nmutations:\n${addLabel('a', 'string(variables.count)')}\n${addLabel('b', 'string(variables.count)')}`,
    );
    expect(labels(run(text, POD))).toEqual({ app: 'x', a: '1', b: '2' });
    const failing = policy('p', `${PODS}\nvariables:\n- {name: bad, expression: 'object.nope'}\nmutations:\n${addLabel('a', 'variables.bad')}`);
    expect(run(failing, POD).diagnostics[0]!.message).toContain('composited variable "bad" fails to evaluate: no such key: nope');
  });

  it('params by name, by selector (one invocation each), and parameterNotFoundAction', () => {
    const params = `apiVersion: v1
kind: ConfigMap
metadata: {name: one, namespace: default, labels: {pick: "yes"}}
data: {k: a}
---
apiVersion: v1
kind: ConfigMap
metadata: {name: two, namespace: default, labels: {pick: "yes"}}
data: {k: b}
`;
    const spec = `paramKind: {apiVersion: v1, kind: ConfigMap}\n${PODS}\nmutations:\n${addLabel('" + params.data.k + "', '"on"')}`;
    const byName = run(policy('p', spec, 'paramRef: {name: two, parameterNotFoundAction: Deny}'), POD, { namespace: 'default' }, params);
    expect(labels(byName)).toEqual({ app: 'x', b: 'on' });
    const bySelector = run(policy('p', spec, 'paramRef: {selector: {matchLabels: {pick: "yes"}}, parameterNotFoundAction: Deny}'), POD, { namespace: 'default' }, params);
    expect(labels(bySelector)).toEqual({ app: 'x', a: 'on', b: 'on' });
    const other = { ...POD, metadata: { ...POD.metadata, namespace: 'other' } };
    const deny = run(policy('p', spec, 'paramRef: {name: two, parameterNotFoundAction: Deny}'), other, { namespace: 'other' }, params);
    expect(deny.allowed).toBe(false);
    expect(deny.diagnostics[0]!.message).toContain('no params found for policy binding with `Deny` parameterNotFoundAction');
    const allow = run(policy('p', spec, 'paramRef: {name: two, parameterNotFoundAction: Allow}'), other, { namespace: 'other' }, params);
    expect(allow.allowed).toBe(true);
    expect(allow.object).toBe(other);
  });

  it('matchConditions read the params of their own invocation', () => {
    const params = `apiVersion: v1
kind: ConfigMap
metadata: {name: on, namespace: default, labels: {pick: "yes"}}
data: {k: a, enabled: "true"}
---
apiVersion: v1
kind: ConfigMap
metadata: {name: off, namespace: default, labels: {pick: "yes"}}
data: {k: b, enabled: "false"}
`;
    const spec = `paramKind: {apiVersion: v1, kind: ConfigMap}\n${PODS}\nmatchConditions:\n- {name: enabled, expression: 'params.data.enabled == "true"'}\nmutations:\n${addLabel('" + params.data.k + "', '"on"')}`;
    const r = run(policy('p', spec, 'paramRef: {selector: {matchLabels: {pick: "yes"}}, parameterNotFoundAction: Deny}'), POD, { namespace: 'default' }, params);
    expect(r.allowed).toBe(true);
    expect(labels(r)).toEqual({ app: 'x', a: 'on' });
  });

  it('reinvocation: IfNeeded policies that ran before a later change run once more', () => {
    const inc = (name: string, reinvocation: string) =>
      policy(
        name,
        `${PODS}\nreinvocationPolicy: ${reinvocation}\nmutations:\n- patchType: JSONPatch\n  jsonPatch:\n    expression: '[JSONPatch{op: "replace", path: "/metadata/labels/n", value: string(int(object.metadata.labels["n"]) + 1)}]'`,
      );
    const pod = { ...POD, metadata: { ...POD.metadata, labels: { n: '0' } } };
    const r = run([inc('p1', 'IfNeeded'), inc('p2', 'IfNeeded'), inc('p3', 'Never')].join('---\n'), pod);
    expect(labels(r)).toEqual({ n: '5' });
  });

  it('a failed JSONPatch test makes its mutation a no-op; other JSONPatch errors deny', () => {
    const noop = policy('p', `${PODS}\nmutations:\n- patchType: JSONPatch\n  jsonPatch:\n    expression: '[JSONPatch{op: "test", path: "/metadata/name", value: "q"}, JSONPatch{op: "add", path: "/metadata/labels/a", value: "1"}]'`);
    expect(run(noop, POD).object).toBe(POD);
    const broken = policy('p', `${PODS}\nmutations:\n- patchType: JSONPatch\n  jsonPatch:\n    expression: '[JSONPatch{op: "replace", path: "/spec/containers/-", value: {}}]'`);
    expect(run(broken, POD).diagnostics[0]!.message).toBe(
      "policy 'p' with binding 'p-binding' denied request: JSONPath: replace operation does not apply: doc is missing key: /spec/containers/-: missing value",
    );
  });
});
