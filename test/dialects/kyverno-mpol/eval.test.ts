import { describe, expect, it } from 'vitest';
import { parseImageReference } from '../../../src/cel/lib/kyverno-image.js';
import { deployment, pod, podPolicy, run } from './support.js';
import type { JsonObject } from '../../../src/ir/json.js';

const LABEL_FROM_VAR = `mutations:
- patchType: ApplyConfiguration
  applyConfiguration:
    expression: 'Object{metadata: Object.metadata{labels: Object.metadata.labels{env: variables.env}}}'`;

describe('kyverno-mpol: evaluation', () => {
  it('binds variables once, visible to matchConditions (unlike MAP) and to every mutation', () => {
    const text = podPolicy('p', `variables:
- name: env
  expression: "object.metadata.labels.?team.orValue('none') == 'a' ? 'prod' : 'dev'"
matchConditions:
- name: prod-only
  expression: variables.env == 'prod'
${LABEL_FROM_VAR}`);
    expect(run(text, pod({ team: 'a' })).object).toMatchObject({ metadata: { labels: { team: 'a', env: 'prod' } } });
    expect(run(text, pod({ team: 'b' })).object).toEqual(pod({ team: 'b' }));
  });

  it('reads request.object (Kyverno requests carry the object) and request.userInfo', () => {
    const text = podPolicy('p', `mutations:
- patchType: JSONPatch
  jsonPatch:
    expression: '[JSONPatch{op: "add", path: "/metadata/annotations", value: {"by": request.userInfo.username, "name": request.object.metadata.name}}]'`);
    const r = run(text, pod(), { userInfo: { username: 'alice' } });
    expect(r.object).toMatchObject({ metadata: { annotations: { by: 'alice', name: 'p' } } });
  });

  it('abandons the whole policy when a later mutation fails under failurePolicy Ignore', () => {
    const text = podPolicy('p', `failurePolicy: Ignore
mutations:
- patchType: ApplyConfiguration
  applyConfiguration:
    expression: 'Object{metadata: Object.metadata{labels: {"first": "yes"}}}'
- patchType: JSONPatch
  jsonPatch:
    expression: '[JSONPatch{op: "replace", path: "/spec/missing/deep", value: 1}]'`);
    const r = run(text, pod());
    expect(r.allowed).toBe(true);
    expect(r.trace.some((t) => t.node === 'rule' && t.outcome === 'error')).toBe(true);
    expect(r.object).toEqual(pod());
  });

  it('autogen rewrites Pod expressions for controllers (spec.template)', () => {
    const text = podPolicy('p', `mutations:
- patchType: ApplyConfiguration
  applyConfiguration:
    expression: >
      Object{spec: Object.spec{containers: object.spec.containers.map(c, Object.spec.containers{name: c.name, imagePullPolicy: "Always"})}}`);
    const r = run(text, deployment(), { operation: 'CREATE' });
    expect(r.object).toMatchObject({ spec: { template: { spec: { containers: [{ name: 'c', image: 'nginx', imagePullPolicy: 'Always' }] } } } });
  });

  it('a PolicyException whose matchConditions hold exempts the request', () => {
    const text = `${podPolicy('p', LABEL_FROM_VAR.replace('variables.env', '"x"'))}---
apiVersion: policies.kyverno.io/v1alpha1
kind: PolicyException
metadata:
  name: skip-team-b
spec:
  policyRefs:
  - name: p
    kind: MutatingPolicy
  matchConditions:
  - name: team-b
    expression: object.metadata.labels.team == 'b'
`;
    expect(run(text, pod({ team: 'a' })).object).toMatchObject({ metadata: { labels: { env: 'x' } } });
    const skipped = run(text, pod({ team: 'b' }));
    expect(skipped.object).toEqual(pod({ team: 'b' }));
    expect(skipped.trace.some((t) => t.node === 'policy' && t.outcome === 'skipped')).toBe(true);
  });

  it('evaluates the image library offline, and regex.replace with \\1 groups', () => {
    const text = podPolicy('p', `mutations:
- patchType: ApplyConfiguration
  applyConfiguration:
    expression: >
      Object{metadata: Object.metadata{labels: {"registry": image(object.spec.containers[0].image).registry(),
        "repo": image(object.spec.containers[0].image).repository().replace("/", "."),
        "tag": image(object.spec.containers[0].image).tag(),
        "mirror": regex.replace(object.spec.containers[0].image, "^([^/]+)/(.*)$", "mirror.io/\\\\2")}}}`);
    const r = run(text, pod({}, 'ghcr.io/org/app:1.2'));
    expect(r.object).toMatchObject({ metadata: { labels: { registry: 'ghcr.io', repo: 'org.app', tag: '1.2', mirror: 'mirror.io/org/app:1.2' } } });
    expect(parseImageReference('nginx')).toMatchObject({ registry: 'index.docker.io', repository: 'library/nginx', tag: 'latest' });
    expect(typeof parseImageReference('Bad/Upper')).toBe('string');
  });

  it('resource.Get reads the data the run supplies, null for a missing object; http fails with a message naming the library', () => {
    const text = podPolicy('p', `variables:
- name: cm
  expression: resource.Get("v1", "configmaps", object.metadata.namespace, "settings")
${LABEL_FROM_VAR.replace('variables.env', 'variables.cm.data.env')}`);
    const cm = { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'settings', namespace: 'default' }, data: { env: 'qa' } };
    const r = run(text, pod(), {}, { getResource: (av, res, ns, name) => (av === 'v1' && res === 'configmaps' && ns === 'default' && name === 'settings' ? cm : undefined) });
    expect(r.object).toMatchObject({ metadata: { labels: { env: 'qa' } } });
    // A missing object is null (kyverno/sdk resource library, since Kyverno 1.18): reading a field of it fails.
    const missing = run(text, pod(), {}, { getResource: () => undefined });
    expect(missing.allowed).toBe(false);
    const absent = run(podPolicy('absent', `variables:\n- name: env\n  expression: 'resource.Get("v1", "configmaps", "default", "settings") == null ? "none" : "some"'\n${LABEL_FROM_VAR}`), pod(), {}, { getResource: () => undefined });
    expect(absent.object).toMatchObject({ metadata: { labels: { env: 'none' } } });

    const http = run(podPolicy('h', `variables:\n- name: env\n  expression: http.Get("http://svc").env\n${LABEL_FROM_VAR}`), pod());
    expect(http.allowed).toBe(false);
    expect(http.diagnostics.find((d) => d.severity === 'error')?.message).toMatch(/unsupported offline: Kyverno CEL library http/);
    const post = run(podPolicy('s', `variables:\n- name: env\n  expression: 'string(resource.Post("authorization.k8s.io/v1", "subjectaccessreviews", {"spec": {}}).status.allowed)'\n${LABEL_FROM_VAR}`), pod());
    expect(post.diagnostics.find((d) => d.severity === 'error')?.message).toMatch(/unsupported offline: Kyverno CEL library resource \(resource.Post\)/);
  });

  it('resource.List with a label map lists the objects carrying every label (an empty map: all of them)', () => {
    const cm = (name: string, labels: Record<string, string>): JsonObject => ({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name, namespace: 'default', labels }, data: { env: name } });
    const objects = [cm('a', { tier: 'web', team: 'x' }), cm('b', { tier: 'web' }), cm('c', {})];
    const listed = (selector: string): unknown =>
      run(
        podPolicy('l', `variables:\n- name: env\n  expression: 'resource.List("v1", "configmaps", "default"${selector}).items.map(o, o.metadata.name).join(",")'\n${LABEL_FROM_VAR}`),
        pod(),
        {},
        { listResources: () => objects },
      ).object;
    expect(listed('')).toMatchObject({ metadata: { labels: { env: 'a,b,c' } } });
    expect(listed(', {"tier": "web"}')).toMatchObject({ metadata: { labels: { env: 'a,b' } } });
    expect(listed(', {"tier": "web", "team": "x"}')).toMatchObject({ metadata: { labels: { env: 'a' } } });
    expect(listed(', {}')).toMatchObject({ metadata: { labels: { env: 'a,b,c' } } });
  });

  it('a NamespacedMutatingPolicy only sees requests of its namespace', () => {
    const text = podPolicy('p', LABEL_FROM_VAR.replace('variables.env', '"x"'))
      .replace('kind: MutatingPolicy', 'kind: NamespacedMutatingPolicy')
      .replace('  name: p', '  name: p\n  namespace: team');
    expect(run(text, pod()).object).toEqual(pod());
    const inTeam = { ...(pod() as object), metadata: { name: 'p', namespace: 'team' } };
    expect(run(text, inTeam).object).toMatchObject({ metadata: { labels: { env: 'x' } } });
  });
});
