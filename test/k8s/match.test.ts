import { describe, expect, it } from 'vitest';
import type { JsonObject } from '../../src/ir/json.js';
import type { GlobStyle, MatchClause, MatchSpec, ResourcePattern } from '../../src/ir/match.js';
import { parseKindSelector } from '../../src/k8s/kinds.js';
import { compileMatch, type MatchProfile } from '../../src/k8s/match.js';
import type { AdmissionRequest } from '../../src/k8s/request.js';

function obj(apiVersion: string, kind: string, metadata: JsonObject = {}): JsonObject {
  return { apiVersion, kind, metadata };
}
const pod = (metadata: JsonObject = { name: 'web', namespace: 'team-a' }): JsonObject => obj('v1', 'Pod', metadata);
const ns = (name: string, labels: Record<string, string> = {}): JsonObject => obj('v1', 'Namespace', { name, labels });
const node = (name = 'n1', labels: Record<string, string> = {}): JsonObject => obj('v1', 'Node', { name, labels });

function create(object: JsonObject, extra: Partial<AdmissionRequest> = {}): AdmissionRequest {
  return { object, operation: 'CREATE', ...extra };
}

function spec(globs: GlobStyle, s: Omit<MatchSpec, 'globs'>): MatchSpec {
  return { globs, ...s };
}
/** One clause under `any`, read by `profile` (glob style follows the profile). */
function one(clause: MatchClause, profile: MatchProfile = 'kyverno'): ReturnType<typeof compileMatch> {
  const globs: GlobStyle = profile === 'kyverno' ? 'wildcard' : profile === 'gatekeeper' ? 'prefixSuffix' : 'exact';
  return compileMatch(spec(globs, { any: [clause] }));
}
const matches = (clause: MatchClause, req: AdmissionRequest, profile: MatchProfile = 'kyverno'): boolean =>
  one(clause, profile).test(req).matched;

describe('spec structure: any, all, exclude', () => {
  it('an empty spec matches everything', () => {
    const r = compileMatch({ globs: 'wildcard' }).test(create(pod()));
    expect(r).toEqual({ matched: true, reason: 'matched (no match constraints)' });
  });

  it('any holds when one clause holds, and says which', () => {
    const m = compileMatch(spec('wildcard', { any: [{ kinds: [{ kind: 'Deployment' }] }, { kinds: [{ kind: 'Pod' }] }] }));
    expect(m.test(create(pod()))).toEqual({ matched: true, reason: 'matched any[1]' });
    const miss = m.test(create(obj('v1', 'Service')));
    expect(miss.matched).toBe(false);
    expect(miss.reason).toContain('any[0]: kind core/v1/Service not in [*/*/Deployment]');
    expect(miss.reason).toContain('any[1]: kind core/v1/Service not in [*/*/Pod]');
  });

  it('an empty any list matches nothing', () => {
    expect(compileMatch(spec('wildcard', { any: [] })).test(create(pod())).matched).toBe(false);
  });

  it('all requires every clause; any and all combine with AND', () => {
    const m = compileMatch(
      spec('wildcard', { all: [{ kinds: [{ kind: 'Pod' }] }, { namespaces: ['team-*'] }] }),
    );
    expect(m.test(create(pod())).matched).toBe(true);
    const r = m.test(create(pod({ name: 'web', namespace: 'default' })));
    expect(r).toEqual({ matched: false, reason: 'all[1]: namespace "default" not in [team-*]' });
    const both = compileMatch(spec('wildcard', { any: [{ kinds: [{ kind: 'Pod' }] }], all: [{ names: ['w*'] }] }));
    expect(both.test(create(pod()))).toEqual({ matched: true, reason: 'matched any[0] and all[*]' });
    expect(both.test(create(pod({ name: 'api', namespace: 'x' }))).matched).toBe(false);
  });

  it('exclude.any excludes when one clause holds; exclude.all only when every clause holds', () => {
    const exAny = compileMatch(
      spec('wildcard', { any: [{ kinds: [{ kind: 'Pod' }] }], exclude: { any: [{ namespaces: ['kube-*'] }, { names: ['skip'] }] } }),
    );
    expect(exAny.test(create(pod({ name: 'skip', namespace: 'a' })))).toEqual({ matched: false, reason: 'excluded by exclude.any[1]' });
    expect(exAny.test(create(pod({ name: 'ok', namespace: 'a' }))).matched).toBe(true);
    const exAll = compileMatch(
      spec('wildcard', { any: [{ kinds: [{ kind: 'Pod' }] }], exclude: { all: [{ namespaces: ['kube-*'] }, { names: ['skip'] }] } }),
    );
    expect(exAll.test(create(pod({ name: 'skip', namespace: 'a' }))).matched).toBe(true);
    expect(exAll.test(create(pod({ name: 'skip', namespace: 'kube-system' })))).toEqual({
      matched: false,
      reason: 'excluded by exclude.all[*]',
    });
  });

  it('compiles once and tests many requests', () => {
    const m = compileMatch(spec('wildcard', { any: [{ kinds: [{ kind: 'Pod' }], namespaces: ['team-*'] }] }));
    let n = 0;
    for (let i = 0; i < 2000; i++) if (m.test(create(pod({ name: `p${i}`, namespace: i % 2 ? 'team-a' : 'b' }))).matched) n++;
    expect(n).toBe(1000);
  });
});

describe('kinds', () => {
  const k = (s: string): MatchClause => ({ kinds: [parseKindSelector(s)] });

  it('Kyverno selectors match group, version and kind with wildcards', () => {
    const deploy = create(obj('apps/v1', 'Deployment', { name: 'd', namespace: 'a' }));
    expect(matches(k('Deployment'), deploy)).toBe(true);
    expect(matches(k('apps/v1/Deployment'), deploy)).toBe(true);
    expect(matches(k('apps/v1beta1/Deployment'), deploy)).toBe(false);
    expect(matches(k('v1/Deployment'), deploy)).toBe(true);
    expect(matches(k('Deploy*'), deploy)).toBe(true);
    expect(matches(k('Deploymen?'), deploy)).toBe(true);
    expect(matches(k('*'), deploy)).toBe(true);
    expect(matches(k('deployment'), deploy)).toBe(false); // case-sensitive
  });

  it('a plain kind does not match subresource requests; Kind/sub and */* do', () => {
    const status = create(pod(), { subResource: 'status', resource: { group: '', version: 'v1', resource: 'pods' } });
    expect(matches(k('Pod'), status)).toBe(false);
    expect(matches(k('Pod/status'), status)).toBe(true);
    expect(matches(k('*/*/Pod/status'), status)).toBe(true);
    expect(matches(k('*/status'), status)).toBe(true);
    expect(matches(k('*/*'), status)).toBe(true);
    expect(matches(k('Pod/exec'), status)).toBe(false);
  });

  it('Kyverno lets a plain Pod rule match pods/ephemeralcontainers', () => {
    const eph = create(pod(), { operation: 'UPDATE', subResource: 'ephemeralcontainers' });
    expect(matches(k('Pod'), eph)).toBe(true);
    expect(matches(k('Deployment'), eph)).toBe(false);
    expect(matches({ kinds: [{ group: '', version: 'v1', kind: 'Pod', subresource: '' }] }, eph, 'gatekeeper')).toBe(false);
  });

  it('subresource requests match on the parent kind (deployments/scale carries a Scale)', () => {
    const scale = create(obj('autoscaling/v1', 'Scale', { name: 'd', namespace: 'a' }), {
      operation: 'UPDATE',
      kind: { group: 'autoscaling', version: 'v1', kind: 'Scale' },
      resource: { group: 'apps', version: 'v1', resource: 'deployments' },
      subResource: 'scale',
    });
    expect(matches(k('Deployment/scale'), scale)).toBe(true);
    expect(matches(k('apps/v1/Deployment/scale'), scale)).toBe(true);
    expect(matches(k('Scale'), scale)).toBe(false);
  });

  it('Gatekeeper and Kubernetes compare kinds exactly or with `*`; absent fields match anything', () => {
    const deploy = create(obj('apps/v1', 'Deployment', { name: 'd', namespace: 'a' }));
    expect(matches({ kinds: [{ group: 'apps', kind: 'Deployment' }] }, deploy, 'gatekeeper')).toBe(true);
    expect(matches({ kinds: [{ group: '*', kind: '*' }] }, deploy, 'gatekeeper')).toBe(true);
    expect(matches({ kinds: [{ group: '', kind: 'Deployment' }] }, deploy, 'gatekeeper')).toBe(false);
    expect(matches({ kinds: [{ kind: 'Deploy*' }] }, deploy, 'gatekeeper')).toBe(false);
    expect(matches({ kinds: [{ group: 'apps', kind: 'Pod' }, { kind: 'Deployment' }] }, deploy, 'gatekeeper')).toBe(true);
  });

  it('request kind wins over the object when both are given', () => {
    const r = create(pod(), { kind: { group: 'apps', version: 'v1', kind: 'Deployment' } });
    expect(matches(k('Deployment'), r)).toBe(true);
    expect(matches(k('Pod'), r)).toBe(false);
  });
});

describe('resource rules (Kubernetes rules.Matcher)', () => {
  const rule = (resources: string[], extra: Partial<ResourcePattern> = {}): MatchClause => ({
    resources: [{ groups: [''], versions: ['v1'], resources, operations: ['CREATE', 'UPDATE'], ...extra }],
  });
  const k8s = (clause: MatchClause, req: AdmissionRequest) => matches(clause, req, 'kubernetes');
  const podReq = create(pod());
  const statusReq = create(pod(), { operation: 'UPDATE', subResource: 'status' });

  it('matches resource, group, version and operation; `*` on each', () => {
    expect(k8s(rule(['pods']), podReq)).toBe(true);
    expect(k8s(rule(['services']), podReq)).toBe(false);
    expect(k8s(rule(['pods'], { groups: ['apps'] }), podReq)).toBe(false);
    expect(k8s(rule(['pods'], { groups: ['*'], versions: ['*'] }), podReq)).toBe(true);
    expect(k8s(rule(['pods'], { versions: ['v2'] }), podReq)).toBe(false);
    expect(k8s(rule(['pods'], { operations: ['UPDATE'] }), podReq)).toBe(false);
    expect(k8s(rule(['pods'], { operations: ['*'] }), podReq)).toBe(true);
    expect(k8s(rule(['*']), podReq)).toBe(true);
  });

  it('required lists that are empty match nothing', () => {
    expect(k8s(rule(['pods'], { groups: [] }), podReq)).toBe(false);
    expect(k8s(rule([]), podReq)).toBe(false);
  });

  it('subresources: `pods` is the main resource only; pods/status, pods/*, */status, */* ', () => {
    expect(k8s(rule(['pods']), statusReq)).toBe(false);
    expect(k8s(rule(['pods/status']), statusReq)).toBe(true);
    expect(k8s(rule(['pods/status']), podReq)).toBe(false);
    expect(k8s(rule(['pods/*']), statusReq)).toBe(true);
    expect(k8s(rule(['*/status']), statusReq)).toBe(true);
    expect(k8s(rule(['*']), statusReq)).toBe(false);
    expect(k8s(rule(['*/*']), statusReq)).toBe(true);
    const scale = create(obj('autoscaling/v1', 'Scale', { name: 'd', namespace: 'a' }), {
      operation: 'UPDATE',
      resource: { group: 'apps', version: 'v1', resource: 'deployments' },
      subResource: 'scale',
    });
    expect(k8s(rule(['*/scale'], { groups: ['apps'] }), scale)).toBe(true);
  });

  it('derives the resource of unknown kinds with the apimachinery plural guess', () => {
    const widget = create(obj('example.com/v1', 'Policy', { name: 'p' }));
    expect(k8s(rule(['policies'], { groups: ['example.com'] }), widget)).toBe(true);
  });

  it('resourceNames compare the request name exactly (a generateName CREATE has none)', () => {
    expect(k8s(rule(['pods'], { resourceNames: ['web'] }), podReq)).toBe(true);
    expect(k8s(rule(['pods'], { resourceNames: ['api'] }), podReq)).toBe(false);
    const generated = create(pod({ generateName: 'web-', namespace: 'a' }));
    expect(k8s(rule(['pods'], { resourceNames: ['web-'] }), generated)).toBe(false);
  });

  it('rule scope: Namespaced, Cluster (a Namespace is cluster-scoped), *', () => {
    expect(k8s(rule(['pods'], { scope: 'Namespaced' }), podReq)).toBe(true);
    expect(k8s(rule(['pods'], { scope: 'Cluster' }), podReq)).toBe(false);
    expect(k8s(rule(['namespaces'], { scope: 'Cluster' }), create(ns('team-a')))).toBe(true);
    expect(k8s(rule(['namespaces'], { scope: 'Namespaced' }), create(ns('team-a')))).toBe(false);
    expect(k8s(rule(['nodes'], { scope: 'Cluster' }), create(node()))).toBe(true);
    expect(k8s(rule(['pods'], { scope: '*' }), podReq)).toBe(true);
  });

  it('exclusions written as resource rules win', () => {
    const m = compileMatch(
      spec('exact', {
        all: [{ resources: [{ groups: ['*'], versions: ['*'], resources: ['*'], operations: ['*'] }] }],
        exclude: { any: [{ resources: [{ groups: [''], versions: ['v1'], resources: ['pods'], operations: ['*'] }] }] },
      }),
    );
    expect(m.test(podReq)).toEqual({ matched: false, reason: 'excluded by exclude.any[0]' });
    expect(m.test(create(node())).matched).toBe(true);
  });
});

describe('operations', () => {
  it('absent or empty: any operation; otherwise membership, `*` for all', () => {
    const p = create(pod());
    expect(matches({ operations: [] }, p)).toBe(true);
    expect(matches({ operations: ['CREATE'] }, p)).toBe(true);
    expect(matches({ operations: ['UPDATE', 'DELETE'] }, p)).toBe(false);
    expect(matches({ operations: ['*'] }, { ...p, operation: 'CONNECT' })).toBe(true);
    expect(one({ operations: ['UPDATE'] }).test(p).reason).toBe('any[0]: operation CREATE not in [UPDATE]');
  });
});

describe('names', () => {
  it('Kyverno: wildcard on the name, or on generateName when the name is empty', () => {
    expect(matches({ names: ['we*'] }, create(pod()))).toBe(true);
    expect(matches({ names: ['w?b'] }, create(pod()))).toBe(true);
    expect(matches({ names: ['api', 'web'] }, create(pod()))).toBe(true);
    expect(matches({ names: ['api'] }, create(pod()))).toBe(false);
    expect(matches({ names: ['web-*'] }, create(pod({ generateName: 'web-', namespace: 'a' })))).toBe(true);
    expect(matches({ names: ['web-'] }, create(pod({ generateName: 'web-', namespace: 'a' })))).toBe(true);
  });

  it('Gatekeeper: prefix/suffix/contains on the name; generateName only for x* and *x*', () => {
    const gen = create(pod({ generateName: 'web-', namespace: 'a' }));
    expect(matches({ names: ['we*'] }, create(pod()), 'gatekeeper')).toBe(true);
    expect(matches({ names: ['*eb'] }, create(pod()), 'gatekeeper')).toBe(true);
    expect(matches({ names: ['w?b'] }, create(pod()), 'gatekeeper')).toBe(false);
    expect(matches({ names: ['web-*'] }, gen, 'gatekeeper')).toBe(true);
    expect(matches({ names: ['*eb*'] }, gen, 'gatekeeper')).toBe(true);
    expect(matches({ names: ['*-'] }, gen, 'gatekeeper')).toBe(false);
    expect(matches({ names: ['web-'] }, gen, 'gatekeeper')).toBe(false);
    expect(matches({ names: [''] }, create(pod()), 'gatekeeper')).toBe(true); // blank = any name
  });

  it('Kubernetes: exact name only', () => {
    expect(matches({ names: ['web'] }, create(pod()), 'kubernetes')).toBe(true);
    expect(matches({ names: ['we*'] }, create(pod()), 'kubernetes')).toBe(false);
  });

  it('request name wins over metadata.name', () => {
    expect(matches({ names: ['other'] }, create(pod(), { name: 'other' }))).toBe(true);
  });
});

describe('namespaces and excludedNamespaces', () => {
  it('Kyverno: a Namespace is matched by its own name; a cluster-scoped object by the empty string', () => {
    expect(matches({ namespaces: ['team-*'] }, create(pod()))).toBe(true);
    expect(matches({ namespaces: ['team-?'] }, create(pod()))).toBe(true);
    expect(matches({ namespaces: ['team-a'] }, create(ns('team-a')))).toBe(true);
    expect(matches({ namespaces: ['default'] }, create(node()))).toBe(false);
    expect(matches({ namespaces: ['*'] }, create(node()))).toBe(true);
  });

  it('Gatekeeper: own name for a Namespace, else the Namespace object, else metadata.namespace; none cannot disqualify', () => {
    expect(matches({ namespaces: ['team-*'] }, create(pod()), 'gatekeeper')).toBe(true);
    expect(matches({ namespaces: ['kube-*'] }, create(pod()), 'gatekeeper')).toBe(false);
    expect(matches({ namespaces: ['team-a'] }, create(ns('team-a')), 'gatekeeper')).toBe(true);
    expect(matches({ namespaces: ['other'] }, create(pod(), { namespaceObject: ns('other') }), 'gatekeeper')).toBe(true);
    expect(matches({ namespaces: ['default'] }, create(node()), 'gatekeeper')).toBe(true);
    expect(matches({ excludedNamespaces: ['default'] }, create(node()), 'gatekeeper')).toBe(true);
  });

  it('excludedNamespaces rejects listed namespaces', () => {
    expect(matches({ excludedNamespaces: ['team-*'] }, create(pod()), 'gatekeeper')).toBe(false);
    expect(matches({ excludedNamespaces: ['kube-*'] }, create(pod()), 'gatekeeper')).toBe(true);
    expect(one({ excludedNamespaces: ['team-*'] }, 'gatekeeper').test(create(pod())).reason).toBe(
      'any[0]: namespace "team-a" is in excludedNamespaces [team-*]',
    );
  });

  it('request namespace wins over metadata.namespace', () => {
    expect(matches({ namespaces: ['prod'] }, create(pod({ name: 'x' }), { namespace: 'prod' }))).toBe(true);
  });
});

describe('labelSelector', () => {
  const app = { matchLabels: { app: 'web' } };
  const labelled = (labels: Record<string, string>) => pod({ name: 'w', namespace: 'a', labels });

  it('matches the object labels', () => {
    expect(matches({ labelSelector: app }, create(labelled({ app: 'web' })))).toBe(true);
    expect(matches({ labelSelector: app }, create(labelled({ app: 'api' })))).toBe(false);
    expect(matches({ labelSelector: {} }, create(pod()))).toBe(true);
  });

  it('Kyverno and Gatekeeper match the old object on DELETE', () => {
    const del: AdmissionRequest = { object: null, oldObject: labelled({ app: 'web' }), operation: 'DELETE' };
    expect(matches({ labelSelector: app }, del)).toBe(true);
    expect(matches({ labelSelector: app, kinds: [{ kind: 'Pod' }] }, del, 'gatekeeper')).toBe(true);
  });

  it('Kubernetes objectSelector: the new or the old object; a null object never matches', () => {
    const update: AdmissionRequest = { object: labelled({}), oldObject: labelled({ app: 'web' }), operation: 'UPDATE' };
    expect(matches({ labelSelector: app }, update, 'kubernetes')).toBe(true);
    expect(matches({ labelSelector: app }, update, 'kyverno')).toBe(false);
    const none: AdmissionRequest = { object: null, operation: 'CONNECT' };
    expect(matches({ labelSelector: app }, none, 'kubernetes')).toBe(false);
    expect(matches({ labelSelector: {} }, none, 'kubernetes')).toBe(true);
  });

  it('Kyverno expands wildcards in matchLabels', () => {
    expect(matches({ labelSelector: { matchLabels: { 'app*': 'w*' } } }, create(labelled({ application: 'web' })))).toBe(true);
    expect(matches({ labelSelector: { matchLabels: { 'app*': 'w*' } } }, create(labelled({ tier: 'web' })))).toBe(false);
  });

  it('an invalid selector is a compile diagnostic; Kyverno then fails the clause, Gatekeeper errors', () => {
    const bad = { matchExpressions: [{ key: 'a', operator: 'In' as const, values: [] }] };
    const k = one({ labelSelector: bad });
    expect(k.diagnostics.map((d) => d.code)).toEqual(['TM2002']);
    expect(k.diagnostics[0]!.message).toContain('any[0].labelSelector: matchExpressions[0].values');
    expect(k.test(create(labelled({ a: 'x' })))).toEqual({ matched: false, reason: 'any[0]: any[0].labelSelector is invalid' });
    const g = one({ labelSelector: bad }, 'gatekeeper').test(create(labelled({ a: 'x' })));
    expect(g.matched).toBe(false);
    expect(g.error?.code).toBe('TM3003');
  });
});

describe('namespaceSelector', () => {
  const prod = { matchLabels: { env: 'prod' } };
  const inProd = create(pod(), { namespaceObject: ns('team-a', { env: 'prod' }) });
  const inDev = create(pod(), { namespaceObject: ns('team-a', { env: 'dev' }) });

  it('every engine selects on the namespace object labels of a namespaced object', () => {
    for (const p of ['kyverno', 'gatekeeper', 'kubernetes'] as const) {
      expect(matches({ namespaceSelector: prod }, inProd, p), p).toBe(true);
      expect(matches({ namespaceSelector: prod }, inDev, p), p).toBe(false);
    }
  });

  it('a Namespace: Kyverno never matches, Gatekeeper and Kubernetes use its own labels', () => {
    const namespace = create(ns('team-a', { env: 'prod' }));
    expect(one({ namespaceSelector: prod }).test(namespace).reason).toContain('namespace selector is not applicable for namespace resource');
    expect(matches({ namespaceSelector: {} }, namespace, 'kyverno')).toBe(false);
    expect(matches({ namespaceSelector: prod }, namespace, 'gatekeeper')).toBe(true);
    expect(matches({ namespaceSelector: prod }, namespace, 'kubernetes')).toBe(true);
    expect(matches({ namespaceSelector: prod }, create(ns('x', { env: 'dev' })), 'kubernetes')).toBe(false);
  });

  it('a cluster-scoped object: Kyverno sees no labels, Gatekeeper and Kubernetes match', () => {
    const n = create(node('n1', { env: 'prod' }));
    expect(matches({ namespaceSelector: prod }, n, 'kyverno')).toBe(false);
    expect(matches({ namespaceSelector: {} }, n, 'kyverno')).toBe(true);
    expect(matches({ namespaceSelector: { matchExpressions: [{ key: 'env', operator: 'DoesNotExist' }] } }, n, 'kyverno')).toBe(true);
    expect(matches({ namespaceSelector: prod }, n, 'gatekeeper')).toBe(true);
    expect(matches({ namespaceSelector: prod }, n, 'kubernetes')).toBe(true);
  });

  it('a namespaced object without its Namespace: Kyverno sees no labels, Gatekeeper errors, Kubernetes errors unless `{}`', () => {
    const lonely = create(pod());
    expect(matches({ namespaceSelector: prod }, lonely, 'kyverno')).toBe(false);
    const g = one({ namespaceSelector: {} }, 'gatekeeper').test(lonely);
    expect(g.matched).toBe(false);
    expect(g.error?.message).toContain('namespace selector for namespace-scoped object but missing Namespace');
    expect(one({ namespaceSelector: {} }, 'kubernetes').test(lonely).matched).toBe(true);
    const k = one({ namespaceSelector: prod }, 'kubernetes').test(lonely);
    expect(k.error?.code).toBe('TM3003');
  });

  it('errors carry the spec origin as span', () => {
    const origin = { dialect: 'gatekeeper', file: 'm.yaml', line: 4, col: 3, endLine: 6, endCol: 10 };
    const m = compileMatch({ globs: 'prefixSuffix', origin, any: [{ namespaceSelector: prod }] });
    const r = m.test(create(pod()));
    expect(r.error?.span).toEqual({ file: 'm.yaml', line: 4, col: 3, endLine: 6, endCol: 10 });
    expect(r.error?.dialect).toBe('gatekeeper');
  });
});

describe('annotations (Kyverno)', () => {
  const annotated = (annotations: Record<string, string>) => pod({ name: 'w', namespace: 'a', annotations });

  it('every pattern pair must meet some annotation, wildcards on keys and values', () => {
    expect(matches({ annotations: { 'team.io/*': 'a*' } }, create(annotated({ 'team.io/owner': 'alice' })))).toBe(true);
    expect(matches({ annotations: { 'team.io/*': 'a*' } }, create(annotated({ 'team.io/owner': 'bob' })))).toBe(false);
    expect(
      matches({ annotations: { a: '1', b: '2' } }, create(annotated({ a: '1' }))),
    ).toBe(false);
    expect(matches({ annotations: { a: '1', b: '2' } }, create(annotated({ a: '1', b: '2', c: '3' })))).toBe(true);
    expect(matches({ annotations: { a: '*' } }, create(pod()))).toBe(false);
  });
});

describe('scope', () => {
  it('Namespaced, Cluster, and anything else matches (Gatekeeper scopeMatch)', () => {
    expect(matches({ scope: 'Namespaced' }, create(pod()), 'gatekeeper')).toBe(true);
    expect(matches({ scope: 'Cluster' }, create(pod()), 'gatekeeper')).toBe(false);
    expect(matches({ scope: 'Cluster' }, create(node()), 'gatekeeper')).toBe(true);
    expect(matches({ scope: 'Cluster' }, create(ns('x')), 'gatekeeper')).toBe(true);
    expect(matches({ scope: 'Namespaced' }, create(ns('x')), 'gatekeeper')).toBe(false);
    expect(matches({ scope: '*' }, create(node()), 'gatekeeper')).toBe(true);
    expect(matches({ scope: 'cluster' as never }, create(pod()), 'gatekeeper')).toBe(true);
    // A namespace object counts as having a namespace (gatekeeper `hasNamespace`).
    expect(matches({ scope: 'Namespaced' }, create(pod({ name: 'x' }), { namespaceObject: ns('a') }), 'gatekeeper')).toBe(true);
    expect(one({ scope: 'Cluster' }, 'gatekeeper').test(create(pod())).reason).toBe('any[0]: object is not cluster-scoped');
  });
});

describe('userInfo (Kyverno)', () => {
  const alice = { username: 'alice', groups: ['devs', 'system:authenticated'], roles: ['team-a:editor'], clusterRoles: ['view'] };

  it('usernames and groups are one OR list of subjects, with wildcards', () => {
    const r = create(pod(), { userInfo: alice });
    expect(matches({ userInfo: { usernames: ['al*'] } }, r)).toBe(true);
    expect(matches({ userInfo: { usernames: ['bob'] } }, r)).toBe(false);
    expect(matches({ userInfo: { groups: ['dev?'] } }, r)).toBe(true);
    expect(matches({ userInfo: { usernames: ['bob'], groups: ['devs'] } }, r)).toBe(true);
    expect(matches({ userInfo: { usernames: ['system:serviceaccount:kube-system:*'] } }, r)).toBe(false);
  });

  it('roles and clusterRoles are exact memberships ANDed with subjects', () => {
    const r = create(pod(), { userInfo: alice });
    expect(matches({ userInfo: { roles: ['team-a:editor'] } }, r)).toBe(true);
    expect(matches({ userInfo: { roles: ['team-a:*'] } }, r)).toBe(false);
    expect(matches({ userInfo: { clusterRoles: ['view', 'admin'] } }, r)).toBe(true);
    expect(matches({ userInfo: { clusterRoles: ['view'], usernames: ['bob'] } }, r)).toBe(false);
    expect(matches({ userInfo: { clusterRoles: ['admin'], usernames: ['alice'] } }, r)).toBe(false);
  });

  it('without user info, match ignores userInfo and exclusions on it cannot hold', () => {
    const anonymous = create(pod());
    expect(matches({ userInfo: { usernames: ['bob'] } }, anonymous)).toBe(true);
    expect(matches({ userInfo: { usernames: ['bob'] } }, create(pod(), { userInfo: {} }))).toBe(true);
    const m = compileMatch(
      spec('wildcard', { any: [{ kinds: [{ kind: 'Pod' }] }], exclude: { any: [{ userInfo: { clusterRoles: ['cluster-admin'] } }] } }),
    );
    expect(m.test(anonymous).matched).toBe(true);
    expect(m.test(create(pod(), { userInfo: { username: 'root', clusterRoles: ['cluster-admin'] } })).matched).toBe(false);
  });
});
