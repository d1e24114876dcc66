/**
 * Condition and global anchors below the top of a list element (`- hostPath: {<(path): "*"}`,
 * `- configMap: {(name): x}`), translated to MAP and re-executed: the MAP must give what our Kyverno engine
 * gives (strategicPreprocessing.go walkMap: a map's global anchors, then its conditions, then its plain keys
 * in order, each against the resource's value or nothing; the first failure decides whether the element is
 * skipped or the whole patch is) on every object.
 */
import { describe, expect, it } from 'vitest';
import type { JsonObject } from '../../../src/ir/json.js';
import type { Policy } from '../../../src/ir/nodes.js';
import { outcome, refusal, smpPolicy, toMap } from './kyverno-support.js';

const kyverno = (patch: string): Policy[] => smpPolicy('nested', patch);

const hostPath = (name: string, path: string): JsonObject => ({ name, hostPath: { path } });
const configMap = (name: string, cm: string, extra: JsonObject = {}): JsonObject => ({ name, configMap: { name: cm, ...extra } });
const emptyDir = (name: string): JsonObject => ({ name, emptyDir: {} });

const VOLUME_SETS: (JsonObject[] | undefined)[] = [
  undefined,
  [],
  [emptyDir('a')],
  [hostPath('h', '/var')],
  [emptyDir('a'), hostPath('h', '/data')],
  [configMap('c', 'app'), emptyDir('a')],
  [configMap('c', 'other'), configMap('d', 'app', { optional: true }), hostPath('h', '/var/log')],
  [emptyDir('a'), configMap('c', 'app', { defaultMode: 420 }), configMap('e', 'app')],
  [{ name: 'x', hostPath: {} }, emptyDir('b')],
];

function pod(volumes: JsonObject[] | undefined, annotations?: JsonObject): JsonObject {
  const spec: JsonObject = { containers: [{ name: 'c', image: 'nginx' }] };
  if (volumes !== undefined) spec.volumes = volumes;
  return { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'p', namespace: 'ns', ...(annotations ? { annotations } : {}) }, spec };
}

const SAME_AS_KYVERNO: [string, string][] = [
  [
    'a global anchor below a plain key (any hostPath volume)',
    `metadata:
  annotations:
    +(safe-to-evict): "true"
spec:
  volumes:
  - hostPath:
      <(path): "*"`,
  ],
  [
    'a global anchor with a pattern below a plain key',
    `metadata:
  labels:
    logs: "yes"
spec:
  volumes:
  - hostPath:
      <(path): "/var/*"`,
  ],
  [
    'a global anchor below a plain key beside a condition at the top (a condition error wins over a missing list)',
    `metadata:
  labels:
    cm: "yes"
spec:
  volumes:
  - (name): "c*"
    configMap:
      <(name): app`,
  ],
  [
    'a condition below a plain key selects the elements it holds for',
    `spec:
  volumes:
  - configMap:
      (name): app
      defaultMode: 256`,
  ],
  [
    'a condition below a plain key whose map holds nothing else',
    `spec:
  volumes:
  - configMap:
      (name): app
    emptyDir:
      medium: Memory`,
  ],
  [
    'conditions below two plain keys (the first failure in key order decides)',
    `spec:
  volumes:
  - hostPath:
      (path): "/var*"
    configMap:
      <(name): app`,
  ],
];

describe('Kyverno anchors below the top of a list element, to MAP', () => {
  for (const [what, patch] of SAME_AS_KYVERNO) {
    it(`${what} gives Kyverno's result on every object`, () => {
      const source = kyverno(patch);
      const map = toMap(source);
      for (const volumes of VOLUME_SETS) {
        for (const annotations of [undefined, { 'safe-to-evict': 'false' }]) {
          const object = pod(volumes, annotations);
          expect(outcome(map, object), JSON.stringify(object)).toEqual(outcome(source, object));
        }
      }
    });
  }

  it('a hostPath volume makes the patch apply, its absence skips it', () => {
    const map = toMap(kyverno(SAME_AS_KYVERNO[0]![1]));
    expect(((outcome(map, pod([hostPath('h', '/var')])) as JsonObject).metadata as JsonObject).annotations).toEqual({ 'safe-to-evict': 'true' });
    expect(outcome(map, pod([emptyDir('a')]))).toEqual(pod([emptyDir('a')]));
  });

  it('keeps refusing +() keys below the top beside conditions below it (decided by the first element the walk reaches)', () => {
    expect(
      refusal(
        kyverno(`spec:
  volumes:
  - configMap:
      (name): app
      +(defaultMode): 256`),
      ),
    ).toMatch(/not yet translate the \+\(\) anchor below configMap/);
  });

  it('keeps refusing conditions in a list below an anchored element', () => {
    expect(
      refusal(
        kyverno(`spec:
  volumes:
  - projected:
      sources:
      - <(configMap): {name: app}`),
      ),
    ).toMatch(/not yet translate a list holding conditions below projected/);
  });
});
