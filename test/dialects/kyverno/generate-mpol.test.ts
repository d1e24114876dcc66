/**
 * Kyverno MutatingPolicy → Kyverno ClusterPolicy / Policy, side by side: the MutatingPolicy and its translation
 * run on the same requests (missing fields, failing CEL, both failure policies, PolicyExceptions, autogen
 * variants, namespaced policies) and must give the same object, or both deny. What cannot be kept is refused
 * with its class.
 */
import { describe, expect, it } from 'vitest';
import { parse as parseYaml } from 'yaml';
import { parseText } from '../../../src/golden/run.js';
import { apply } from '../../../src/interpreter/index.js';
import type { JsonObject, JsonValue } from '../../../src/ir/json.js';
import type { Policy } from '../../../src/ir/nodes.js';
import type { AdmissionRequest } from '../../../src/k8s/request.js';
import { translate } from '../../../src/pipeline.js';
import { runConformance } from '../../../src/conformance/run.js';
import { describeShared, sharedPath } from '../../support/shared.js';
import { parse as parseCel } from '../../../src/cel/index.js';
import { compileJmes } from '../../../src/jmespath/index.js';
import { evaluateClosed, isClosed } from '../../../src/lowering/cel-kyverno/closed.js';
import { render } from '../../../src/lowering/cel-kyverno/cond.js';
import { compileCelText, isTerm } from '../../../src/lowering/cel-kyverno/compile.js';
import { MAP_ENV, MPOL_ENV } from '../../../src/lowering/cel-kyverno/env.js';
import { rewriteCel } from '../../../src/lowering/cel-kyverno/inline.js';

const DEPLOYMENTS = `  matchConstraints:
    resourceRules:
    - apiGroups: [apps]
      apiVersions: [v1]
      operations: ["*"]
      resources: [deployments]`;

const PODS = `  matchConstraints:
    resourceRules:
    - apiGroups: [""]
      apiVersions: [v1]
      operations: [CREATE, UPDATE]
      resources: [pods]`;

const indent = (text: string, n: number): string =>
  text
    .trim()
    .split('\n')
    .map((l) => `${' '.repeat(n)}${l}`)
    .join('\n');

function jsonPatch(expression: string): string {
  return `  - patchType: JSONPatch
    jsonPatch:
      expression: |
${indent(expression, 8)}`;
}

function applyConfiguration(expression: string): string {
  return `  - patchType: ApplyConfiguration
    applyConfiguration:
      expression: |
${indent(expression, 8)}`;
}

interface MpolOptions {
  name?: string;
  kind?: 'MutatingPolicy' | 'NamespacedMutatingPolicy';
  namespace?: string;
  match?: string;
  failurePolicy?: 'Fail' | 'Ignore';
  /** Extra spec fields (variables, matchConditions, autogen...), indented by two. */
  spec?: string;
}

function mpolText(mutations: string[], opts: MpolOptions = {}): string {
  const kind = opts.kind ?? 'MutatingPolicy';
  return `apiVersion: policies.kyverno.io/v1
kind: ${kind}
metadata:
  name: ${opts.name ?? 'p'}${opts.namespace ? `\n  namespace: ${opts.namespace}` : ''}
spec:
${opts.match ?? DEPLOYMENTS}
  failurePolicy: ${opts.failurePolicy ?? 'Fail'}
${opts.spec ?? ''}
  mutations:
${mutations.join('\n')}
`;
}

interface Translated {
  source: Policy[];
  kyverno: Policy[];
  text: string;
  warnings: string[];
}

function parsed(text: string): Policy[] {
  const p = parseText('in.yaml', text);
  expect(p.diagnostics.filter((d) => d.severity === 'error').map((d) => d.message)).toEqual([]);
  return p.policies;
}

function translated(text: string): Translated {
  const source = parsed(text);
  const out = translate(source, 'kyverno');
  expect(out.diagnostics.filter((d) => d.severity === 'error').map((d) => d.message)).toEqual([]);
  const back = parseText('out.yaml', out.text);
  expect(back.diagnostics.filter((d) => d.severity === 'error')).toEqual([]);
  return { source, kyverno: back.policies, text: out.text, warnings: out.diagnostics.map((d) => d.message) };
}

function refusal(text: string): { class: string | undefined; message: string } {
  const out = translate(parsed(text), 'kyverno');
  const d = out.diagnostics.find((x) => x.code === 'TM4001');
  expect(d, out.text).toBeDefined();
  return { class: d!.unsupported, message: d!.message };
}

type Outcome = { denied: true } | { denied: false; object: JsonValue | null | undefined };

function outcome(policies: Policy[], request: AdmissionRequest): Outcome {
  const r = apply(policies, request, { trace: false });
  return r.allowed ? { denied: false, object: r.object } : { denied: true };
}

/** An admission request as kube-apiserver sends it (kind, resource and namespace filled from the object). */
function request(object: JsonValue, extra: Partial<AdmissionRequest> = {}): AdmissionRequest {
  const o = object as JsonObject;
  const [group, version] = String(o.apiVersion).includes('/') ? String(o.apiVersion).split('/') : ['', String(o.apiVersion)];
  const kind = String(o.kind);
  const resource = `${kind.toLowerCase()}s`;
  const meta = (o.metadata ?? {}) as JsonObject;
  return {
    object,
    oldObject: null,
    operation: 'CREATE',
    userInfo: { username: 'alice', groups: ['devs'], roles: ['ns:editor'], clusterRoles: ['viewer'] },
    namespace: typeof meta.namespace === 'string' ? meta.namespace : '',
    name: typeof meta.name === 'string' ? meta.name : '',
    kind: { group: group!, version: version!, kind },
    resource: { group: group!, version: version!, resource },
    ...extra,
  };
}

/** The translation gives the MutatingPolicy's outcome on every request; returns the outcomes for spot checks. */
function agrees(t: Translated, requests: AdmissionRequest[]): Outcome[] {
  return requests.map((r) => {
    const want = outcome(t.source, r);
    const got = outcome(t.kyverno, r);
    expect(got, `on ${JSON.stringify(r.object)}\n${t.text}`).toEqual(want);
    return want;
  });
}

function documents(text: string): JsonObject[] {
  return text.split(/^---$/m).map((d) => parseYaml(d) as JsonObject);
}

function ruleNames(text: string): string[] {
  return documents(text).flatMap((d) => ((d.spec as JsonObject).rules as JsonObject[]).map((r) => String(r.name)));
}

function deployment(spec: JsonObject = {}, metadata: JsonObject = { name: 'd', namespace: 'dev' }): JsonObject {
  return { apiVersion: 'apps/v1', kind: 'Deployment', metadata, spec };
}

function pod(spec: JsonObject = { containers: [{ name: 'c', image: 'nginx' }] }, metadata: JsonObject = { name: 'p', namespace: 'dev' }): JsonObject {
  return { apiVersion: 'v1', kind: 'Pod', metadata, spec };
}

const objects = [
  deployment(),
  deployment({ replicas: 1 }),
  deployment({ replicas: 4 }),
  deployment({}, { name: 'd', namespace: 'dev', labels: { x: '1', count: '7' } }),
  deployment({}, { name: 'd', namespace: 'dev', labels: {} }),
  deployment({ replicas: 2 }, { name: 'd', namespace: 'prod', labels: { count: 'x' } }),
  deployment({}, { generateName: 'd-', namespace: 'dev' }),
].map((o) => request(o));

describe('MutatingPolicy JSONPatch and ApplyConfiguration → Kyverno', () => {
  const forms: [string, string][] = [
    ['add a map member (parent required)', jsonPatch('[JSONPatch{op: "add", path: "/metadata/labels/x", value: "2"}]')],
    ['remove a member (must exist)', jsonPatch('[JSONPatch{op: "remove", path: "/metadata/labels/x"}]')],
    ['a failing test is a no-op', jsonPatch('[JSONPatch{op: "test", path: "/spec/replicas", value: 4}, JSONPatch{op: "replace", path: "/spec/replicas", value: 3}]')],
    ['a computed value that fails where replicas is missing', jsonPatch('[JSONPatch{op: "replace", path: "/spec/replicas", value: object.spec.replicas + 10}]')],
    ['the parent-may-be-missing idiom', jsonPatch('has(object.metadata.labels) ? [JSONPatch{op: "add", path: "/metadata/labels/seen", value: "yes"}] : [JSONPatch{op: "add", path: "/metadata/labels", value: {"seen": "yes"}}]')],
    ['arithmetic on a field that may be missing', applyConfiguration('Object{spec: Object.spec{replicas: object.spec.replicas * 2}}')],
    ['optional reads and int(string)', applyConfiguration('Object{metadata: Object.metadata{labels: {"next": string(int(object.?metadata.labels["count"].orValue("1")) + 1)}}}')],
    ['a conditional patch', applyConfiguration('object.spec.?replicas.orValue(0) > 2 ? Object{metadata: Object.metadata{labels: {"big": "yes"}}} : Object{spec: Object.spec{replicas: 3}}')],
  ];
  for (const policy of ['Fail', 'Ignore'] as const) {
    for (const [what, mutation] of forms) {
      it(`${what} (failurePolicy ${policy})`, () => {
        agrees(translated(mpolText([mutation], { failurePolicy: policy })), objects);
      });
    }
  }

  it('names the failing engine in the rule that denies where Kyverno would', () => {
    const t = translated(mpolText([jsonPatch('[JSONPatch{op: "add", path: "/metadata/labels/x", value: "2"}]')]));
    expect(ruleNames(t.text)).toEqual(['p-fail', 'p']);
    expect(t.text).toContain('Kyverno (MutatingPolicy p) fails its mutations here');
    const [, , , applied, , , generated] = agrees(t, objects);
    expect(applied).toMatchObject({ denied: false, object: { metadata: { labels: { x: '2', count: '7' } } } });
    expect(generated).toEqual({ denied: true });
  });
});

describe('MutatingPolicy mutations: one unit, abandoned whole where one fails', () => {
  const two = [applyConfiguration('Object{metadata: Object.metadata{annotations: {"first": "yes"}}}'), applyConfiguration('Object{spec: Object.spec{replicas: object.spec.replicas + 1}}')];
  it('failurePolicy Fail denies where the second mutation fails', () => {
    const out = agrees(translated(mpolText(two)), objects);
    expect(out[0]).toEqual({ denied: true });
    expect(out[1]).toMatchObject({ denied: false, object: { metadata: { annotations: { first: 'yes' } }, spec: { replicas: 2 } } });
  });

  it('failurePolicy Ignore drops the first mutation too where the second fails (Kyverno abandons the policy)', () => {
    const out = agrees(translated(mpolText(two, { failurePolicy: 'Ignore' })), objects);
    expect(out[0]).toEqual({ denied: false, object: objects[0]!.object });
    expect(out[1]).toMatchObject({ denied: false, object: { metadata: { annotations: { first: 'yes' } }, spec: { replicas: 2 } } });
  });

  it('refuses a later mutation that reads what an earlier one wrote (not translated yet)', () => {
    const r = refusal(mpolText([applyConfiguration('Object{spec: Object.spec{replicas: 3}}'), applyConfiguration('Object{spec: Object.spec{paused: object.spec.replicas == 3}}')]));
    expect(r).toMatchObject({ class: 'yet', message: expect.stringContaining('earlier part of the same MutatingPolicy') });
  });

  it('refuses a later JSON patch whose failure depends on what an earlier mutation wrote', () => {
    const r = refusal(mpolText([applyConfiguration('Object{metadata: Object.metadata{labels: {"a": "b"}}}'), jsonPatch('[JSONPatch{op: "remove", path: "/metadata/labels/a"}]')]));
    expect(r.class).toBe('yet');
  });
});

describe('MutatingPolicy variables, matchConditions and request → Kyverno', () => {
  const variables = `  variables:
  - name: replicas
    expression: "object.spec.replicas"
  - name: doubled
    expression: "variables.replicas * 2"
  - name: unused
    expression: "object.spec.nope.nope"`;
  for (const policy of ['Fail', 'Ignore'] as const) {
    it(`inlines variables read by a matchCondition and a mutation (failurePolicy ${policy})`, () => {
      const spec = `${variables}
  matchConditions:
  - name: some
    expression: "variables.replicas > 0"`;
      const t = translated(mpolText([applyConfiguration('Object{spec: Object.spec{replicas: variables.doubled}}')], { failurePolicy: policy, spec }));
      const out = agrees(t, objects);
      expect(out[2]).toMatchObject({ denied: false, object: { spec: { replicas: 8 } } });
      expect(t.text).not.toContain('variables');
    });

    it(`request.namespace, request.name and the user (failurePolicy ${policy})`, () => {
      const spec = `  matchConditions:
  - name: dev
    expression: "request.namespace == 'dev' && request.name != 'skip' && request.userInfo.username == 'alice'"`;
      const t = translated(mpolText([applyConfiguration('Object{metadata: Object.metadata{labels: {"seen": "yes"}}}')], { failurePolicy: policy, spec }));
      agrees(t, [...objects, request(deployment({}, { name: 'skip', namespace: 'dev' })), request(deployment(), { userInfo: {} })]);
    });
  }

  it("request.object is the admission request's object (before the policy's mutations)", () => {
    const spec = `  matchConditions:
  - name: labelled
    expression: "has(request.object.metadata.labels) && 'count' in request.object.metadata.labels"`;
    const t = translated(mpolText([jsonPatch('[JSONPatch{op: "add", path: "/spec/replicas", value: request.object.spec.replicas * 3}]')], { spec }));
    const out = agrees(t, [...objects, request(deployment({ replicas: 2 }, { name: 'd', labels: { count: '1' } }), { operation: 'UPDATE', oldObject: deployment({ replicas: 1 }) })]);
    expect(out[3]).toEqual({ denied: true });
    expect(out[7]).toMatchObject({ denied: false, object: { spec: { replicas: 6 } } });
  });

  it('request.oldObject on UPDATE, and roles (empty where Kyverno holds none)', () => {
    const t = translated(
      mpolText([applyConfiguration('Object{spec: Object.spec{replicas: request.oldObject.spec.replicas + size(request.roles)}}')], { failurePolicy: 'Ignore' }),
    );
    agrees(t, [
      request(deployment({ replicas: 1 }), { operation: 'UPDATE', oldObject: deployment({ replicas: 5 }) }),
      request(deployment({ replicas: 1 }), { operation: 'UPDATE', oldObject: deployment({ replicas: 5 }), userInfo: { username: 'bob' } }),
      request(deployment({ replicas: 1 })),
    ]);
  });

  it('refuses request.object after a policy of the set that writes what it reads', () => {
    const first = mpolText([applyConfiguration('Object{spec: Object.spec{replicas: 1}}')], { name: 'first' });
    const second = mpolText([applyConfiguration('Object{spec: Object.spec{minReadySeconds: request.object.spec.replicas * 10}}')], { name: 'second' });
    expect(refusal(`${first}---\n${second}`)).toMatchObject({ class: 'yet', message: expect.stringContaining("Kyverno's request.object") });
    // Where the earlier policy writes something else, the two agree.
    const other = mpolText([applyConfiguration('Object{spec: Object.spec{paused: true}}')], { name: 'first' });
    agrees(translated(`${other}---\n${second}`), objects);
  });

  it('chains policies whose conditional patches Kyverno writes else-branch first', () => {
    const policy = (name: string, field: string, value: string): string =>
      mpolText(
        [
          jsonPatch(`!has(object.spec.securityContext)
  ? [JSONPatch{op: "add", path: "/spec/securityContext", value: {"${field}": ${value}}}]
  : (!has(object.spec.securityContext.${field}) ? [JSONPatch{op: "add", path: "/spec/securityContext/${field}", value: ${value}}] : [])`),
        ],
        { name, match: PODS },
      );
    const t = translated(`${policy('non-root', 'runAsNonRoot', 'true')}---\n${policy('seccomp', 'seccompProfile', '{"type": "RuntimeDefault"}')}`);
    const out = agrees(t, [request(pod()), request(pod({ containers: [], securityContext: {} })), request(pod({ containers: [], securityContext: { runAsNonRoot: false } })), request(pod({ containers: [], securityContext: null }))]);
    expect(out[0]).toMatchObject({ denied: false, object: { spec: { securityContext: { runAsNonRoot: true, seccompProfile: { type: 'RuntimeDefault' } } } } });
    expect(ruleNames(t.text)).not.toContain('non-root-3');
  });
});

describe('MutatingPolicy PolicyExceptions → Kyverno preconditions', () => {
  const exception = (expressions: string[]): string => `apiVersion: policies.kyverno.io/v1
kind: PolicyException
metadata: {name: e, namespace: dev}
spec:
  policyRefs:
  - {name: p, kind: MutatingPolicy}
  matchConditions:
${expressions.map((e, i) => `  - name: c${i}\n    expression: ${JSON.stringify(e)}`).join('\n')}
`;
  for (const policy of ['Fail', 'Ignore'] as const) {
    it(`exempts where every condition of an exception holds, fails where one fails (failurePolicy ${policy})`, () => {
      const text = `${mpolText([applyConfiguration('Object{metadata: Object.metadata{labels: {"seen": "yes"}}}')], { failurePolicy: policy })}---
${exception(["object.metadata.name == 'd'", "object.metadata.labels['x'] == '1'"])}---
${exception(['object.spec.replicas == 4']).replace('name: e,', 'name: e2,')}`;
      const out = agrees(translated(text), objects);
      expect(out[3]).toMatchObject({ denied: false, object: { metadata: { labels: { x: '1', count: '7' } } } });
    });
  }
});

describe('NamespacedMutatingPolicy → Kyverno Policy', () => {
  it('becomes a Policy in its namespace that only sees its namespace', () => {
    const t = translated(mpolText([applyConfiguration('Object{metadata: Object.metadata{labels: {"seen": "yes"}}}')], { kind: 'NamespacedMutatingPolicy', namespace: 'dev' }));
    const [doc] = documents(t.text);
    expect(doc).toMatchObject({ kind: 'Policy', metadata: { name: 'p', namespace: 'dev' } });
    const out = agrees(t, objects);
    expect(out[5]).toMatchObject({ denied: false, object: { metadata: { namespace: 'prod', labels: { count: 'x' } } } });
  });
});

describe('MutatingPolicy autogen → the controller rules of one ClusterPolicy', () => {
  const spec = (controllers?: string): string => `${controllers === undefined ? '' : `  autogen:\n    podControllers:\n      controllers: ${controllers}\n`}  matchConditions:
  - name: unset
    expression: "!has(object.spec.securityContext) || !has(object.spec.securityContext.runAsNonRoot)"`;
  const mutation = applyConfiguration('Object{spec: Object.spec{securityContext: Object.spec.securityContext{runAsNonRoot: true}}}');
  const podSpec = { containers: [{ name: 'c', image: 'nginx' }] };
  const requests = [
    request(pod()),
    request(pod({ ...podSpec, securityContext: { runAsNonRoot: false } })),
    request({ apiVersion: 'apps/v1', kind: 'Deployment', metadata: { name: 'd', namespace: 'dev' }, spec: { template: { spec: podSpec } } }),
    request({ apiVersion: 'apps/v1', kind: 'Deployment', metadata: { name: 'd', namespace: 'dev' }, spec: {} }),
    request({ apiVersion: 'apps/v1', kind: 'StatefulSet', metadata: { name: 's', namespace: 'dev' }, spec: { template: { spec: podSpec } } }),
    request({ apiVersion: 'batch/v1', kind: 'CronJob', metadata: { name: 'j', namespace: 'dev' }, spec: { jobTemplate: { spec: { template: { spec: podSpec } } } } }),
  ];

  it('writes every controller variant as Kyverno names them, with Kyverno\'s own autogen off', () => {
    const t = translated(mpolText([mutation], { match: PODS, spec: spec() }));
    const docs = documents(t.text);
    expect(docs).toHaveLength(1);
    expect(docs[0]!.metadata).toMatchObject({ name: 'p', annotations: { 'pod-policies.kyverno.io/autogen-controllers': 'none' } });
    expect(ruleNames(t.text).filter((n) => !n.endsWith('-fail'))).toEqual(['p', 'autogen-cronjob-p', 'autogen-p']);
    const out = agrees(t, requests);
    expect(out[2]).toMatchObject({ denied: false, object: { spec: { template: { spec: { securityContext: { runAsNonRoot: true } } } } } });
    expect(out[3]).toEqual({ denied: true });
  });

  it('only the selected controllers', () => {
    const t = translated(mpolText([mutation], { match: PODS, spec: spec('[deployments]'), failurePolicy: 'Ignore' }));
    expect(ruleNames(t.text)).toEqual(['p', 'autogen-p']);
    agrees(t, requests);
  });
});

describe("MutatingPolicy → Kyverno: Kyverno's CEL libraries", () => {
  it('folds a call with a constant value (regex.replace of a literal)', () => {
    const t = translated(mpolText([applyConfiguration('Object{metadata: Object.metadata{labels: {"registry": regex.replace("docker.io/nginx", "^docker\\\\.io/(.*)", "mirror.io/\\\\1").split("/")[0]}}}')]));
    const out = agrees(t, objects);
    expect(out[0]).toMatchObject({ denied: false, object: { metadata: { labels: { registry: 'mirror.io' } } } });
  });

  it('refuses the libraries that read the cluster, the network or the registry (a Kyverno counterpart is not written yet)', () => {
    for (const value of ['resource.Get("v1", "configmaps", "dev", "c").data["x"]', 'http.Get("http://example.com").x', 'globalContext.Get("entry", "")', 'image(object.metadata.name).registry()']) {
      expect(refusal(mpolText([applyConfiguration(`Object{metadata: Object.metadata{labels: {"x": ${value}}}}`)]))).toMatchObject({ class: 'yet' });
    }
  });

  it('refuses gzip, which JMESPath has no counterpart for', () => {
    const value = 'gzip.decompress(base64.decode(object.metadata.annotations["blob"]))';
    expect(refusal(mpolText([applyConfiguration(`Object{metadata: Object.metadata{labels: {"x": ${value}}}}`)]))).toMatchObject({ class: 'cannot', message: expect.stringContaining('gzip') });
  });
});

describeShared('MutatingPolicy conformance via Kyverno (a ratchet)', () => {
  it('translates the admission MutatingPolicy cases: at least 11 chainsaw and 3 CLI cases pass, none fails', async () => {
    const run = await runConformance([sharedPath('conformance', 'kyverno', 'kyverno-chainsaw'), sharedPath('conformance', 'kyverno', 'kyverno-cli')], { via: 'kyverno' });
    const mpol = run.outcomes.filter((o) => /mutating-polic|mpol/.test(o.id) && !/admission-policy/.test(o.id));
    const passed = (source: string): number => mpol.filter((o) => o.id.includes(source) && o.status === 'passed').length;
    expect(passed('kyverno-chainsaw')).toBeGreaterThanOrEqual(11);
    expect(passed('kyverno-cli')).toBeGreaterThanOrEqual(3);
    for (const o of mpol) expect(['passed', 'unsupported', 'skipped'], `${o.id}: ${o.reason ?? ''}`).toContain(o.status);
  }, 120_000);
});

describe("cel-kyverno with Kyverno's CEL environment", () => {
  const expr = (text: string) => {
    const p = parseCel(text);
    if (!p.ok) throw new Error(text);
    return p.value;
  };

  it('a call that reads the cluster or the network is never closed, so never folded', () => {
    expect(isClosed(expr('resource.Get("v1", "configmaps", "ns", "n").data'), new Set(), MPOL_ENV)).toBe(false);
    expect(isClosed(expr('http.Get("http://x")'), new Set(), MPOL_ENV)).toBe(false);
    expect(isClosed(expr('base64.encode(bytes("x"))'), new Set(), MPOL_ENV)).toBe(true);
    expect(rewriteCel('"a" + string(base64.decode("Yg=="))', undefined, new Map(), MPOL_ENV)).toBe('"ab"');
    expect(rewriteCel('resource.Get("v1", "configmaps", "ns", "n").data', undefined, new Map(), MPOL_ENV)).toBe('resource.Get("v1", "configmaps", "ns", "n").data');
  });

  it('evaluates closed parts in the environment of the policy (Kyverno libraries are not in kube-apiserver\'s)', () => {
    expect(evaluateClosed('regex.replace("docker.io/x", "^docker\\\\.io/", "r/")', MPOL_ENV)).toMatchObject({ ok: true, value: 'r/x' });
    expect(evaluateClosed('regex.replace("docker.io/x", "^docker\\\\.io/", "r/")', MAP_ENV).ok).toBe(false);
  });

  it("marks reads through request.object as the admission request's object", () => {
    const t = compileCelText('request.object.spec.replicas == 3', { cel: MPOL_ENV });
    expect(isTerm(t) && t.reads).toEqual([{ root: 'object', fields: ['spec', 'replicas'], admission: true }]);
    expect(isTerm(compileCelText('request.object.spec.replicas', { cel: MAP_ENV }))).toBe(false);
  });

  it('request fields admission/v1 leaves out when empty are absent, as in the CEL request, with or without them in the context', () => {
    const search = (j: string, request: object): unknown => {
      const program = compileJmes(j);
      if (!program.ok) throw new Error(j);
      return program.value.search({ request });
    };
    const empty = [
      { operation: 'CREATE', userInfo: {} },
      { operation: 'CREATE', namespace: '', name: '', userInfo: { username: '', groups: [] } },
    ];
    const full = { operation: 'CREATE', namespace: 'x', name: 'n', userInfo: { username: 'u', groups: ['g'] } };
    // A bare read fails where the field is empty (CEL: "no such key").
    const bare = compileCelText("request.namespace == 'x' && request.name == 'n' && request.userInfo.username == 'u' && size(request.userInfo.groups) == 1", { cel: MPOL_ENV });
    if (!isTerm(bare)) throw new Error(bare.why);
    for (const request of empty) expect(search(render(bare.err), request)).toMatchObject({ ok: true, value: true });
    expect(search(render(bare.err), full)).toMatchObject({ ok: true, value: false });
    expect(search(bare.j, full)).toMatchObject({ ok: true, value: true });
    // has() and optional reads see them absent.
    const guarded = compileCelText("request.?namespace.orValue('') == '' && !has(request.name) && !has(request.userInfo.groups)", { cel: MPOL_ENV });
    if (!isTerm(guarded)) throw new Error(guarded.why);
    expect(render(guarded.err)).toBe('`false`');
    for (const request of empty) expect(search(guarded.j, request)).toMatchObject({ ok: true, value: true });
    expect(search(guarded.j, full)).toMatchObject({ ok: true, value: false });
  });
});
