/**
 * Stage (a), anchor preprocessing, on behaviours the corpus does not pin; expectations follow
 * strategicPreprocessing.go and kyverno.md 1.8a/1.9.
 */
import { describe, expect, it } from 'vitest';
import type { JsonObject, JsonValue } from '../../../src/ir/json.js';
import { matchPattern, preprocessPattern, strategicMerge } from '../../../src/merge/smp/index.js';

const pod = (spec: JsonObject, metadata: JsonObject = { name: 'p' }): JsonObject => ({ apiVersion: 'v1', kind: 'Pod', metadata, spec });

function patchOf(pattern: JsonValue, resource: JsonValue): JsonValue {
  const r = preprocessPattern(pattern, resource);
  if (!r.ok) throw new Error(`${r.error.kind}: ${r.error.message}`);
  return r.patch;
}

describe('condition anchors', () => {
  it('a failed condition outside a list skips the whole rule, with upstream message', () => {
    const resource = pod({ hostNetwork: false });
    const r = strategicMerge(resource, { metadata: { labels: { x: 'y' } }, spec: { '(hostNetwork)': true } });
    expect(r.ok).toBe(true);
    if (!r.ok) return;
    expect(r.value.value).toEqual(resource);
    expect(r.value.skipped).toBe("condition failed: resource value 'false' does not match 'true' at path /");
  });

  it('a condition on a missing key skips the rule', () => {
    const r = preprocessPattern({ spec: { '(hostNetwork)': true } }, pod({}));
    expect(r).toEqual({ ok: false, error: { kind: 'condition', message: 'condition failed: could not found "hostNetwork" key in the resource' } });
  });

  it('compares a scalar condition as YAML text, with pattern operators', () => {
    const deploy = (replicas: number) => ({ apiVersion: 'apps/v1', kind: 'Deployment', metadata: { name: 'd' }, spec: { replicas } });
    const pattern = { metadata: { labels: { big: 'true' } }, spec: { '(replicas)': '>1' } };
    expect(patchOf(pattern, deploy(3))).toEqual({ metadata: { labels: { big: 'true' } } });
    expect(preprocessPattern(pattern, deploy(1)).ok).toBe(false);
    expect(patchOf({ metadata: { labels: { three: 'yes' } }, spec: { '(replicas)': 3 } }, deploy(3))).toEqual({ metadata: { labels: { three: 'yes' } } });
  });

  it('in a list element, selects the matching elements and re-emits them by name', () => {
    const resource = pod({ containers: [{ name: 'a', image: 'nginx:1' }, { name: 'b', image: 'busybox' }] });
    expect(patchOf({ spec: { containers: [{ '(image)': 'nginx*', imagePullPolicy: 'Always' }] } }, resource)).toEqual({
      spec: { containers: [{ imagePullPolicy: 'Always', name: 'a' }] },
    });
  });

  it('turns a condition on a subtree inside a list element into plain content ("nested anchors")', () => {
    const resource = pod({ containers: [{ name: 'a', securityContext: { runAsNonRoot: true } }, { name: 'b' }] });
    expect(patchOf({ spec: { containers: [{ '(securityContext)': { runAsNonRoot: true }, image: 'x' }] } }, resource)).toEqual({
      spec: { containers: [{ securityContext: { runAsNonRoot: true }, image: 'x', name: 'a' }] },
    });
  });

  it('evaluates validate anchors inside a condition value (X() negation, =() equality)', () => {
    const resource = pod({ securityContext: { runAsUser: 0 } });
    const pattern = (cond: JsonObject) => ({ metadata: { labels: { ok: 'y' } }, spec: { '(securityContext)': cond } });
    expect(preprocessPattern(pattern({ 'X(runAsUser)': null }), resource).ok).toBe(false);
    expect(preprocessPattern(pattern({ '=(runAsUser)': 1 }), resource).ok).toBe(false);
    // A passing condition whose value keeps non-deletable content loses only its anchor wrapper
    // (deleteAnchorsInMap): the validate anchors stay in the patch as literal keys.
    expect(patchOf(pattern({ 'X(runAsGroup)': null }), resource)).toEqual({
      metadata: { labels: { ok: 'y' } },
      spec: { securityContext: { 'X(runAsGroup)': null } },
    });
    const r = strategicMerge(resource, pattern({ 'X(runAsGroup)': null }));
    expect(r.ok && r.value.value).toEqual(pod({ securityContext: { runAsUser: 0 } }, { name: 'p', labels: { ok: 'y' } }));
    expect(patchOf(pattern({ '=(runAsUser)': 0 }), resource)).toEqual({ metadata: { labels: { ok: 'y' } }, spec: { securityContext: { '=(runAsUser)': 0 } } });
  });

  it('leaves X(), =() and ^() keys outside condition values in the patch (mutate does not process them)', () => {
    expect(patchOf({ metadata: { labels: { 'X(foo)': 'bar' } } }, pod({}))).toEqual({ metadata: { labels: { 'X(foo)': 'bar' } } });
  });
});

describe('add-if-not-present anchors', () => {
  it('adds only the absent keys; a present key (even null) is left alone', () => {
    const resource = pod({}, { name: 'p', annotations: { a: '1', n: null } });
    expect(patchOf({ metadata: { annotations: { '+(a)': 'x', '+(b)': 'y', '+(n)': 'z' } } }, resource)).toEqual({ metadata: { annotations: { b: 'y' } } });
  });

  it('in a list, decides on the first resource element only (one shared copy, #6686)', () => {
    const pattern = { spec: { containers: [{ '(name)': '*', securityContext: { '+(runAsNonRoot)': true } }] } };
    const firstHasIt = pod({ containers: [{ name: 'a', securityContext: { runAsNonRoot: false } }, { name: 'b' }] });
    expect(patchOf(pattern, firstHasIt)).toEqual({});
    const firstLacksIt = pod({ containers: [{ name: 'b' }, { name: 'a', securityContext: { runAsNonRoot: false } }] });
    expect(patchOf(pattern, firstLacksIt)).toEqual({
      spec: {
        containers: [
          { securityContext: { runAsNonRoot: true }, name: 'b' },
          { securityContext: { runAsNonRoot: true }, name: 'a' },
        ],
      },
    });
  });
});

describe('global anchors', () => {
  const pattern = { metadata: { annotations: { '+(safe-to-evict)': 'true' } }, spec: { volumes: [{ '<(hostPath)': { path: '*' } }] } };

  it('apply the rest of the patch when one element satisfies them', () => {
    const resource = pod({ volumes: [{ name: 'a', emptyDir: {} }, { name: 'h', hostPath: { path: '/data' } }] });
    expect(patchOf(pattern, resource)).toEqual({ metadata: { annotations: { 'safe-to-evict': 'true' } } });
  });

  it('cancel the whole rule when no element does, or when the list is absent', () => {
    const none = preprocessPattern(pattern, pod({ volumes: [{ name: 'a', emptyDir: {} }] }));
    expect(none.ok === false && none.error.kind).toBe('global');
    const absent = preprocessPattern(pattern, pod({}));
    expect(absent).toEqual({ ok: false, error: { kind: 'global', message: 'global condition failed: could not found "hostPath" key in the resource' } });
  });

  it('do not block the patch when the list is present but empty (nothing is evaluated)', () => {
    expect(patchOf(pattern, pod({ volumes: [] }))).toEqual({ metadata: { annotations: { 'safe-to-evict': 'true' } } });
  });
});

describe('cleanup', () => {
  it('drops empty maps, so `emptyDir: {}` cannot be added', () => {
    const r = strategicMerge(pod({ containers: [{ name: 'c' }] }), { spec: { volumes: [{ name: 'cache', emptyDir: {} }] } });
    expect(r.ok && (r.value.value as JsonObject).spec).toEqual({ containers: [{ name: 'c' }], volumes: [{ name: 'cache' }] });
  });

  it('reports structural errors as errors, not skips', () => {
    const r = strategicMerge(pod({ containers: { name: 'c' } }), { spec: { containers: [{ '(name)': '*', image: 'x' }] } });
    expect(r.ok).toBe(false);
    if (!r.ok) expect(r.diagnostics[0]!.message).toMatch(/^failed to preProcess rule: wrong Node Kind/);
  });
});

describe('validate.MatchPattern (used by conditions)', () => {
  it('matches wildcards, operators, ranges, quantities and durations', () => {
    expect(matchPattern('nginx:1.2', 'nginx:*')).toBeUndefined();
    expect(matchPattern('nginx', '!nginx')).toBeDefined();
    expect(matchPattern('5', '1-10')).toBeUndefined();
    expect(matchPattern('50', '1!-10')).toBeUndefined();
    expect(matchPattern('512Mi', '<1Gi')).toBeUndefined();
    expect(matchPattern('90s', '>1m')).toBeUndefined();
    expect(matchPattern('a', 'b | a')).toBeUndefined();
    expect(matchPattern(3, 3)).toBeUndefined();
    expect(matchPattern(null, null)).toBeUndefined();
    expect(matchPattern({ a: 1 }, { a: '*' })).toBeUndefined();
    expect(matchPattern({}, { a: '*' })).toBeDefined();
  });

  it('skips list elements that fail a conditional anchor but needs one to pass', () => {
    const volumes: JsonValue = [{ name: 'a', emptyDir: {} }, { name: 'h', hostPath: { path: '/var/run/docker.sock' } }];
    expect(matchPattern(volumes, [{ '(hostPath)': { path: '/var/run/docker.sock' } }])).toBeUndefined();
    expect(matchPattern([{ name: 'a', emptyDir: {} }], [{ '(hostPath)': { path: '*' } }])?.kind).toBe('skip');
    expect(matchPattern([], [{ '(hostPath)': { path: '*' } }])).toBeUndefined();
  });
});
