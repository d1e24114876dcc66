/**
 * MutatingAdmissionPolicy → Kyverno ClusterPolicy: each translation form re-executed on the same objects as
 * the MAP, including objects where kube-apiserver fails the mutation (missing parents, failing values) and
 * where it skips it (a failing JSONPatch test, a false matchCondition). The translation must give the MAP's
 * object, or deny where the MAP denies.
 */
import { describe, expect, it } from 'vitest';
import { parse as parseYaml } from 'yaml';
import { parseText } from '../../../src/golden/run.js';
import { apply } from '../../../src/interpreter/index.js';
import type { JsonObject, JsonValue } from '../../../src/ir/json.js';
import type { Policy } from '../../../src/ir/nodes.js';
import type { AdmissionRequest } from '../../../src/k8s/request.js';
import { translate } from '../../../src/pipeline.js';
import { parse as parseMap } from '../map/support.js';
import { describeShared, sharedPath } from '../../support/shared.js';
import { runConformance } from '../../../src/conformance/run.js';

const DEPLOYMENTS = `  matchConstraints:
    resourceRules:
    - apiGroups: [apps]
      apiVersions: [v1]
      operations: ["*"]
      resources: [deployments]`;

function mapText(spec: string, opts: { match?: string; failurePolicy?: 'Fail' | 'Ignore'; binding?: string; extraPolicySpec?: string } = {}): string {
  return `apiVersion: admissionregistration.k8s.io/v1
kind: MutatingAdmissionPolicy
metadata: {name: p}
spec:
${opts.match ?? DEPLOYMENTS}
  failurePolicy: ${opts.failurePolicy ?? 'Fail'}
${opts.extraPolicySpec ?? ''}
${spec}
---
apiVersion: admissionregistration.k8s.io/v1
kind: MutatingAdmissionPolicyBinding
metadata: {name: b}
spec:
  policyName: p
${opts.binding ?? ''}
`;
}

function jsonPatch(expression: string): string {
  return `  mutations:
  - patchType: JSONPatch
    jsonPatch:
      expression: |
${expression
  .trim()
  .split('\n')
  .map((l) => `        ${l}`)
  .join('\n')}`;
}

function applyConfiguration(expression: string): string {
  return `  mutations:
  - patchType: ApplyConfiguration
    applyConfiguration:
      expression: |
${expression
  .trim()
  .split('\n')
  .map((l) => `        ${l}`)
  .join('\n')}`;
}

interface Translated {
  map: Policy[];
  kyverno: Policy[];
  text: string;
  warnings: string[];
}

function translated(text: string, params = ''): Translated {
  const parsed = parseMap(text, params);
  expect(parsed.diagnostics.filter((d) => d.severity === 'error')).toEqual([]);
  const out = translate(parsed.policies, 'kyverno');
  expect(out.diagnostics.filter((d) => d.severity === 'error').map((d) => d.message)).toEqual([]);
  const back = parseText('out.yaml', out.text);
  expect(back.diagnostics.filter((d) => d.severity === 'error')).toEqual([]);
  return { map: parsed.policies, kyverno: back.policies, text: out.text, warnings: out.diagnostics.map((d) => d.message) };
}

function refusal(text: string, params = ''): { class: string | undefined; message: string } {
  const parsed = parseMap(text, params);
  const out = translate(parsed.policies, 'kyverno');
  const d = out.diagnostics.find((x) => x.code === 'TM4001');
  expect(d).toBeDefined();
  return { class: d!.unsupported, message: d!.message };
}

type Outcome = { denied: true } | { denied: false; object: JsonValue | null | undefined };

function outcome(policies: Policy[], request: AdmissionRequest): Outcome {
  const r = apply(policies, request, { trace: false });
  return r.allowed ? { denied: false, object: r.object } : { denied: true };
}

function deployment(spec: JsonObject = {}, metadata: JsonObject = { name: 'd' }): JsonObject {
  return { apiVersion: 'apps/v1', kind: 'Deployment', metadata, spec };
}

/** An admission request as kube-apiserver sends it (kind and resource filled from the object). */
function request(object: JsonValue, extra: Partial<AdmissionRequest> = {}): AdmissionRequest {
  const o = object as JsonObject;
  const [group, version] = String(o.apiVersion).includes('/') ? String(o.apiVersion).split('/') : ['', String(o.apiVersion)];
  const kind = String(o.kind);
  const resource = `${kind.toLowerCase()}s`;
  return {
    object,
    oldObject: null,
    operation: 'CREATE',
    userInfo: { username: 'alice', groups: [] },
    namespace: '',
    kind: { group: group!, version: version!, kind },
    resource: { group: group!, version: version!, resource },
    ...extra,
  };
}

/** The conditions of the Kyverno rule named `name`, as written (YAML read back). */
function keysOf(text: string, name: string): string[] {
  const docs = text.split(/^---$/m).map((d) => parseYaml(d) as JsonObject);
  const rule = docs.flatMap((d) => ((d.spec as JsonObject).rules as JsonObject[])).find((r) => r.name === name)!;
  return (((rule.preconditions as JsonObject | undefined)?.all as JsonObject[] | undefined) ?? []).map((e) => String(e.key));
}

/** The translation gives the MAP's outcome on every request; returns the outcomes for spot checks. */
function agrees(t: Translated, requests: AdmissionRequest[]): Outcome[] {
  return requests.map((r) => {
    const want = outcome(t.map, r);
    const got = outcome(t.kyverno, r);
    expect(got, `on ${JSON.stringify(r.object)}\n${t.text}`).toEqual(want);
    return want;
  });
}

const CONTAINERS = (...names: string[]): JsonObject => ({ template: { spec: { containers: names.map((name) => ({ name, image: 'i' })) } } });

describe('MAP JSONPatch → Kyverno', () => {
  const objects = [
    deployment(),
    deployment({ replicas: 1 }),
    deployment({ replicas: 100 }),
    deployment({}, { name: 'd', labels: { x: '1', y: '2' } }),
    deployment({}, { name: 'd', labels: { y: '2' } }),
    deployment({}, { name: 'd', labels: {} }),
    deployment(CONTAINERS()),
    deployment(CONTAINERS('a')),
    deployment(CONTAINERS('a', 'b', 'c')),
    deployment({ template: { spec: { containers: null } } }),
    deployment({ template: {} }),
  ].map((o) => request(o));

  const forms: [string, string][] = [
    ['add a map member (parent required)', '[JSONPatch{op: "add", path: "/metadata/labels/x", value: "2"}]'],
    ['add a whole map', '[JSONPatch{op: "add", path: "/metadata/labels", value: {"y": "2"}}]'],
    ['add to the end of a list', '[JSONPatch{op: "add", path: "/spec/template/spec/containers/-", value: {"name": "x"}}]'],
    ['add at a list index', '[JSONPatch{op: "add", path: "/spec/template/spec/containers/1", value: {"name": "x"}}]'],
    ['add at a negative index', '[JSONPatch{op: "add", path: "/spec/template/spec/containers/-2", value: {"name": "x"}}]'],
    ['remove a member (must exist)', '[JSONPatch{op: "remove", path: "/metadata/labels/x"}]'],
    ['remove a list element', '[JSONPatch{op: "remove", path: "/spec/template/spec/containers/1"}]'],
    ['replace a missing member adds it', '[JSONPatch{op: "replace", path: "/metadata/labels/x", value: "3"}]'],
    ['replace a list element', '[JSONPatch{op: "replace", path: "/spec/template/spec/containers/0", value: {"name": "x"}}]'],
    ['replace "-" fails', '[JSONPatch{op: "replace", path: "/spec/template/spec/containers/-", value: {"name": "x"}}]'],
    ['a failing test is a no-op', '[JSONPatch{op: "test", path: "/spec/replicas", value: 100}, JSONPatch{op: "replace", path: "/spec/replicas", value: 3}]'],
    ['test of a map', '[JSONPatch{op: "test", path: "/metadata/labels", value: {"x": "1", "y": "2"}}, JSONPatch{op: "add", path: "/metadata/labels/z", value: "3"}]'],
    ['move a member', '[JSONPatch{op: "move", from: "/metadata/labels/x", path: "/metadata/labels/z"}]'],
    ['move within a list', '[JSONPatch{op: "move", from: "/spec/template/spec/containers/0", path: "/spec/template/spec/containers/-"}]'],
    ['copy a list element', '[JSONPatch{op: "copy", from: "/spec/template/spec/containers/0", path: "/spec/template/spec/containers/1"}]'],
    ['a map written, then a member of it', '[JSONPatch{op: "add", path: "/metadata/labels", value: {}}, JSONPatch{op: "add", path: "/metadata/labels/" + jsonpatch.escapeKey("k8s.io/x~y"), value: "true"}]'],
    ['a computed value that fails where replicas is missing', '[JSONPatch{op: "replace", path: "/spec/replicas", value: object.spec.replicas + 10}]'],
    ['a value computed from the request', "[JSONPatch{op: \"add\", path: \"/spec/replicas\", value: request.kind.group == 'apps' ? 10 : 0}]"],
    ['a constant value (JSONPatch type has())', '[JSONPatch{op: "add", path: "/metadata/labels", value: {"op": string(has(JSONPatch{op: "x"}.op)), "from": string(has(JSONPatch{}.from))}}]'],
  ];
  for (const policy of ['Fail', 'Ignore'] as const) {
    for (const [what, expression] of forms) {
      it(`${what} (failurePolicy ${policy})`, () => {
        agrees(translated(mapText(jsonPatch(expression), { failurePolicy: policy })), objects);
      });
    }
  }

  it('states each outcome: applied, denied where v4 fails, unchanged where a test fails', () => {
    const t = translated(mapText(jsonPatch('[JSONPatch{op: "test", path: "/spec/replicas", value: 1}, JSONPatch{op: "add", path: "/metadata/labels/x", value: "2"}]')));
    const [applied, denied, skipped] = agrees(t, [
      request(deployment({ replicas: 1 }, { name: 'd', labels: {} })),
      request(deployment({ replicas: 1 }, { name: 'd' })),
      request(deployment({ replicas: 2 }, { name: 'd' })),
    ]);
    expect(applied).toEqual({ denied: false, object: deployment({ replicas: 1 }, { name: 'd', labels: { x: '2' } }) });
    expect(denied).toEqual({ denied: true });
    expect(skipped).toEqual({ denied: false, object: deployment({ replicas: 2 }, { name: 'd' }) });
    // The Kyverno user reads the conditions: the patch runs where the test holds and the parent is there.
    expect(keysOf(t.text, 'p')).toEqual(["{{ request.object.spec.replicas == `1` && type(request.object.metadata.labels) == 'object' }}"]);
    expect(keysOf(t.text, 'p-fail')).toEqual(["{{ request.object.spec.replicas == `1` && type(request.object.metadata.labels) != 'object' }}"]);
  });

  it('denies where the result has fields the kind does not declare (the strict decode), whatever the object', () => {
    const t = translated(mapText(jsonPatch('[JSONPatch{op: "add", path: "/spec/template/spec/containers/-", value: Object.spec.template.spec.containers{name: "x", ports: [Object.spec.template.spec.containers.ports{containerPortZ: 8080}]}}]')));
    expect(agrees(t, objects).every((o) => o.denied)).toBe(true);
  });

  it('denies a mutation whose expression always fails (an Object type name that does not match its field)', () => {
    const bad = '[JSONPatch{op: "add", path: "/spec/template/spec/containers/-", value: Object.spec.template.spec.containers{name: "x", ports: [Object.spec.template.spec.containers.portsZ{containerPort: 8080}]}}]';
    expect(agrees(translated(mapText(jsonPatch(bad))), objects).every((o) => o.denied)).toBe(true);
    expect(agrees(translated(mapText(jsonPatch(bad), { failurePolicy: 'Ignore' })), objects).every((o) => !o.denied)).toBe(true);
  });

  it('refuses what it cannot prove: an index inside a path, a copy from a member that may be missing', () => {
    expect(refusal(mapText(jsonPatch('[JSONPatch{op: "add", path: "/spec/template/spec/containers/0/image", value: "x"}]'))).class).toBe('yet');
    expect(refusal(mapText(jsonPatch('[JSONPatch{op: "copy", from: "/metadata/labels/x", path: "/metadata/labels/y"}]'))).message).toContain('kube-apiserver copies null');
  });
});

describe('MAP ApplyConfiguration with computed values → Kyverno', () => {
  const objects = [deployment(), deployment({ replicas: 1 }), deployment({ replicas: 4 }), deployment({}, { name: 'd', labels: { count: '7' } }), deployment({}, { name: 'd', labels: { count: 'x7' } }), deployment({}, { name: 'd', labels: { count: '' } })].map((o) => request(o));

  const forms: [string, string][] = [
    ['arithmetic on a field that may be missing', 'Object{spec: Object.spec{replicas: object.spec.replicas + 100}}'],
    ['a conditional value', 'Object{spec: Object.spec{replicas: object.spec.replicas % 2 == 0 ? object.spec.replicas + 1 : object.spec.replicas}}'],
    ['optional reads and int(string)', 'Object{metadata: Object.metadata{labels: {"next": string(int(object.?metadata.labels["count"].orValue("1")) + 1)}}}'],
    ['a default for a missing field', 'Object{spec: Object.spec{replicas: object.spec.?replicas.hasValue() ? object.spec.replicas : 3, paused: object.spec.?paused.orValue(false)}}'],
    ['a literal next to a value that may fail (all of it or nothing)', 'Object{metadata: Object.metadata{labels: {"a": "b"}}, spec: Object.spec{paused: true, replicas: object.spec.replicas * 2}}'],
    ['a conditional patch', 'object.spec.?replicas.orValue(0) > 2 ? Object{metadata: Object.metadata{labels: {"big": "yes"}}} : Object{spec: Object.spec{replicas: 3}}'],
  ];
  for (const policy of ['Fail', 'Ignore'] as const) {
    for (const [what, expression] of forms) {
      it(`${what} (failurePolicy ${policy})`, () => {
        agrees(translated(mapText(applyConfiguration(expression), { failurePolicy: policy })), objects);
      });
    }
  }

  it('reads the old object on UPDATE (and fails on CREATE, where it is null)', () => {
    const t = translated(mapText(applyConfiguration('Object{spec: Object.spec{replicas: oldObject.spec.replicas + 1}}')));
    agrees(t, [request(deployment({ replicas: 1 })), request(deployment({ replicas: 1 }), { operation: 'UPDATE', oldObject: deployment({ replicas: 5 }) }), request(deployment({ replicas: 1 }), { operation: 'UPDATE', oldObject: deployment() })]);
  });

  it('inlines MAP variables (they are lazy: read where used)', () => {
    const t = translated(mapText(`  variables:
  - name: base
    expression: "object.spec.replicas"
  - name: unused
    expression: "object.spec.nope"
${applyConfiguration('Object{spec: Object.spec{replicas: variables.base * 2}}')}`));
    agrees(t, objects);
  });

  it('denies an apply configuration kube-apiserver rejects on every object (an undeclared field, an atomic struct)', () => {
    for (const ac of ['Object{spec: Object.spec{replicasx: 1}}', 'Object{spec: Object.spec{selector: Object.spec.selector{matchLabels: {"l": "v"}}}}']) {
      expect(agrees(translated(mapText(applyConfiguration(ac))), objects).every((o) => o.denied)).toBe(true);
      expect(agrees(translated(mapText(applyConfiguration(ac), { failurePolicy: 'Ignore' })), objects).every((o) => !o.denied)).toBe(true);
    }
  });

  it('refuses a computed value whose type is not the field\'s, and strings that may need escaping', () => {
    expect(refusal(mapText(applyConfiguration('Object{spec: Object.spec{replicas: string(object.spec.replicas)}}'))).class).toBe('yet');
    expect(refusal(mapText(applyConfiguration('Object{metadata: Object.metadata{labels: {"copy": object.metadata.name}}}'))).message).toContain('escaping');
  });
});

describe('MAP matchConditions → Kyverno preconditions', () => {
  const cm = (labels?: JsonObject): JsonObject => ({ apiVersion: 'v1', kind: 'ConfigMap', metadata: labels ? { name: 'c', labels } : { name: 'c' } });
  const CONFIGMAPS = `  matchConstraints:
    resourceRules:
    - apiGroups: [""]
      apiVersions: [v1]
      operations: ["*"]
      resources: [configmaps]`;
  const objects = [cm(), cm({}), cm({ color: 'red' }), cm({ color: 'blue' }), cm({ environment: 'test' }), cm({ environment: '' })].map((o) => request(o));
  const conditions: [string, string[]][] = [
    ['an optional equality', ['object.metadata.?labels["environment"] == optional.of("test")']],
    ['orValue', ['object.?metadata.labels["environment"].orValue("") == ""']],
    ['a read that fails where the label is missing', ["object.metadata.labels['color'] == 'red'"]],
    // kube-apiserver skips on a false condition even when another fails; transmute's interpreter stops at the
    // first failing one, so the false one comes first here (the translation does not depend on the order).
    ['a false condition absorbs another one failing', ['has(object.metadata.labels)', "object.metadata.labels['color'] == 'red'"]],
    ['size()', ['object.metadata.labels.size() > 1']],
    ['exists() is not compiled', ['object.metadata.labels.exists(k, k == "color")']],
    ['the request', ['has(request.userInfo.username) && request.operation == "CREATE"']],
    ['&& and || absorb a failing side', ["has(object.metadata.labels) && object.metadata.labels['color'] != 'blue'", "object.metadata.labels['color'] == 'red' || has(object.metadata.labels)"]],
  ];
  for (const policy of ['Fail', 'Ignore'] as const) {
    for (const [what, exprs] of conditions) {
      it(`${what} (failurePolicy ${policy})`, () => {
        const mc = `  matchConditions:\n${exprs.map((e, i) => `  - name: c${i}\n    expression: ${JSON.stringify(e)}`).join('\n')}`;
        const text = mapText(applyConfiguration('Object{metadata: Object.metadata{labels: {"applied": "yes"}}}'), { match: CONFIGMAPS, failurePolicy: policy, extraPolicySpec: mc });
        const parsed = parseMap(text);
        const out = translate(parsed.policies, 'kyverno');
        if (out.diagnostics.some((d) => d.code === 'TM4001')) {
          // Macros are not compiled: the case must be refused, never approximated.
          expect(exprs.join(' ')).toContain('exists(');
          return;
        }
        agrees(translated(text), objects);
      });
    }
  }
});

describe('MAP bindings → Kyverno', () => {
  const cm = (name: string, extra: JsonObject = {}): JsonObject => ({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name, ...extra } });
  const CONFIGMAPS = (names?: string): string => `  matchConstraints:
    resourceRules:
    - apiGroups: [""]
      apiVersions: [v1]
      operations: ["*"]
      resources: [configmaps]${names ? `\n      resourceNames: [${names}]` : ''}`;
  const LABEL = applyConfiguration('Object{metadata: Object.metadata{labels: {"applied": "yes"}}}');

  it('resourceNames match the request name, never a generateName', () => {
    const t = translated(mapText(LABEL, { match: CONFIGMAPS('game') }));
    const [named, other, generated] = agrees(t, [
      request(cm('game'), { name: 'game' }),
      request(cm('other'), { name: 'other' }),
      request({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: '', generateName: 'game' } }, { name: '' }),
    ]);
    expect(named!.denied === false && (named.object as JsonObject).metadata).toEqual({ name: 'game', labels: { applied: 'yes' } });
    expect(other).toEqual({ denied: false, object: cm('other') });
    expect(generated!.denied).toBe(false);
    expect(keysOf(t.text, 'p')[0]).toBe("{{ (request.name || '') != '' }}");
  });

  it('an exclusion by resourceNames covering the match is a precondition on the request name', () => {
    const binding = `  matchResources:
    excludeResourceRules:
    - apiGroups: [""]
      apiVersions: [v1]
      operations: ["*"]
      resources: [configmaps]
      resourceNames: [skip]`;
    const t = translated(mapText(LABEL, { match: CONFIGMAPS(), binding }));
    agrees(t, [
      request(cm('skip'), { name: 'skip' }),
      request(cm('keep'), { name: 'keep' }),
      request({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: '', generateName: 'skip' } }, { name: '' }),
    ]);
  });

  it('writes a literal param object into the policy, with a warning', () => {
    const text = mapText(applyConfiguration('Object{metadata: Object.metadata{annotations: params.data}}'), {
      match: CONFIGMAPS(),
      extraPolicySpec: '  paramKind: {apiVersion: v1, kind: ConfigMap}',
      binding: '  paramRef: {name: settings, namespace: default, parameterNotFoundAction: Deny}',
    });
    const params = 'apiVersion: v1\nkind: ConfigMap\nmetadata: {name: settings, namespace: default}\ndata: {team: a, tier: gold}\n';
    const t = translated(text, params);
    agrees(t, [request(cm('x', { namespace: 'default' }), { namespace: 'default' }), request(cm('y', { namespace: 'other', annotations: { team: 'b' } }), { namespace: 'other' })]);
    expect(t.warnings.some((w) => w.includes('param object default/settings'))).toBe(true);
  });

  it('gives every invocation of a param selector its own policy name', () => {
    const text = mapText(applyConfiguration('Object{metadata: Object.metadata{annotations: params.data}}'), {
      match: CONFIGMAPS(),
      extraPolicySpec: '  paramKind: {apiVersion: v1, kind: ConfigMap}',
      binding: '  paramRef: {selector: {matchLabels: {kind: setting}}, namespace: default, parameterNotFoundAction: Allow}',
    });
    const long = 'a-rather-long-parameter-object-name-that-fills-the-policy-name';
    const params = ['one', 'two'].map((n) => `apiVersion: v1\nkind: ConfigMap\nmetadata: {name: ${long}-${n}, namespace: default, labels: {kind: setting}}\ndata: {${n}: "x"}\n`).join('---\n');
    const t = translated(text, params);
    const names = t.text.split(/^---$/m).map((d) => ((parseYaml(d) as JsonObject).metadata as JsonObject).name);
    expect(new Set(names).size).toBe(names.length);
    agrees(t, [request(cm('x', { namespace: 'default' }), { namespace: 'default' })]);
  });

  it('a param read that always fails denies every request', () => {
    const text = mapText(applyConfiguration('Object{spec: Object.spec{replicas: int(params.items[0].data.replicas)}}'), {
      extraPolicySpec: '  paramKind: {apiVersion: v1, kind: ConfigMap}',
      binding: '  paramRef: {name: settings, namespace: default}',
    });
    const params = 'apiVersion: v1\nkind: ConfigMap\nmetadata: {name: settings, namespace: default}\ndata: {replicas: "3"}\n';
    const t = translated(text, params);
    expect(agrees(t, [request(deployment({}, { name: 'd', namespace: 'default' }), { namespace: 'default' })]).every((o) => o.denied)).toBe(true);
  });
});

describe('MAP conditional JSONPatch and selectors → Kyverno', () => {
  const pods = ['{}', '{"nodeSelector": {}}', '{"nodeSelector": {"a": "b"}}', '{"nodeSelector": {"kubernetes.io/os": "windows"}}'].map((spec) => request({ apiVersion: 'v1', kind: 'Pod', metadata: { name: 'p' }, spec: JSON.parse(spec) as JsonObject }));
  const PODS = `  matchConstraints:
    resourceRules:
    - apiGroups: [""]
      apiVersions: [v1]
      operations: ["*"]
      resources: [pods]`;
  const branchy = `has(object.spec.nodeSelector)
  ? [JSONPatch{op: "add", path: "/spec/nodeSelector/" + jsonpatch.escapeKey("kubernetes.io/os"), value: "linux"}]
  : [JSONPatch{op: "add", path: "/spec/nodeSelector", value: {"kubernetes.io/os": "linux"}}]`;
  for (const policy of ['Fail', 'Ignore'] as const) {
    it(`c ? [patch] : [patch], the idiom for a parent that may be missing (failurePolicy ${policy})`, () => {
      const mc = `  matchConditions:
  - name: unset
    expression: "!has(object.spec.nodeSelector) || !('kubernetes.io/os' in object.spec.nodeSelector)"`;
      const t = translated(mapText(jsonPatch(branchy), { match: PODS, failurePolicy: policy, extraPolicySpec: mc }));
      const out = agrees(t, pods);
      expect(out.map((o) => !o.denied && ((o.object as JsonObject).spec as JsonObject).nodeSelector)).toEqual([{ 'kubernetes.io/os': 'linux' }, { 'kubernetes.io/os': 'linux' }, { a: 'b', 'kubernetes.io/os': 'linux' }, { 'kubernetes.io/os': 'windows' }]);
    });
  }

  it('an objectSelector matches the new or the old object (UPDATE), as kube-apiserver does', () => {
    const cm = (labels: JsonObject): JsonObject => ({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'c', labels } });
    const match = `  matchConstraints:
    objectSelector:
      matchLabels: {color: red}
      matchExpressions:
      - {key: tier, operator: NotIn, values: [gold]}
    resourceRules:
    - apiGroups: [""]
      apiVersions: [v1]
      operations: ["*"]
      resources: [configmaps]`;
    const t = translated(mapText(applyConfiguration('Object{metadata: Object.metadata{labels: {"seen": "yes"}}}'), { match }));
    const out = agrees(t, [
      request(cm({ color: 'red' })),
      request(cm({ color: 'blue' })),
      request(cm({ color: 'red', tier: 'gold' })),
      request(cm({ color: 'blue' }), { operation: 'UPDATE', oldObject: cm({ color: 'red' }) }),
      request(cm({ color: 'blue' }), { operation: 'UPDATE', oldObject: cm({ color: 'red', tier: 'gold' }) }),
    ]);
    expect(out.map((o) => !o.denied && ((o.object as JsonObject).metadata as JsonObject).labels)).toEqual([
      { color: 'red', seen: 'yes' },
      { color: 'blue' },
      { color: 'red', tier: 'gold' },
      { color: 'blue', seen: 'yes' },
      { color: 'blue' },
    ]);
    expect(t.warnings.some((w) => w.includes('objectSelector'))).toBe(false);
  });
});

describe('MAP → Kyverno refusals', () => {
  it('a policy reinvoked after a later policy of the set changed the object is not expressible', () => {
    const one = mapText(applyConfiguration('Object{metadata: Object.metadata{labels: {"a": "1"}}}'), { extraPolicySpec: '  reinvocationPolicy: IfNeeded' });
    const two = one.replaceAll('name: p}', 'name: q}').replaceAll('policyName: p', 'policyName: q').replaceAll('name: b}', 'name: b2}').replace('reinvocationPolicy: IfNeeded', 'reinvocationPolicy: Never');
    expect(refusal(`${one}---
${two}`)).toMatchObject({ class: 'cannot', message: expect.stringContaining('Kyverno runs each rule once') });
  });

  it('an authorizer check is not translated yet', () => {
    expect(refusal(mapText(jsonPatch("[JSONPatch{op: \"replace\", path: \"/spec/replicas\", value: authorizer.group('').resource('endpoints').check('create').allowed() ? 10 : 0}]"))).class).toBe('yet');
  });
});

describeShared('MAP conformance via Kyverno (a ratchet)', () => {
  it('passes at least 85 of the 93 MAP policy cases; every other one is a refusal with its class', async () => {
    const run = await runConformance([sharedPath('conformance', 'map')], { via: 'kyverno' });
    const cases = run.outcomes.filter((o) => !o.id.includes('smd-merge'));
    expect(cases.length).toBeGreaterThanOrEqual(93);
    expect(cases.filter((o) => o.status === 'passed').length).toBeGreaterThanOrEqual(85);
    for (const o of cases) if (o.status !== 'passed') expect([o.status, o.class]).toEqual(['unsupported', expect.stringMatching(/^(cannot|yet)$/)]);
  }, 120_000);
});

// Spot check that the YAML fixture helper is what the tests think it is.
it('builds a MAP policy and binding', () => {
  expect((parseYaml(mapText(jsonPatch('[]')).split('---')[0]!) as JsonObject).kind).toBe('MutatingAdmissionPolicy');
});
