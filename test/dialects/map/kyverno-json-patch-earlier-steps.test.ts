/**
 * A Kyverno `patchesJson6902` of several steps, translated to MAP and re-executed. Kyverno (evanphx v5,
 * EnsurePathExistsOnAdd) applies each step to the object the steps before it left, while the translated
 * tests read the object before the patch: a later step below a map an earlier `add` created must not read
 * that map from the object (it is not there), and a step through a list's element must find the list the
 * object had. `-1` on the way names the list's last element (SupportNegativeIndices), or a new one where
 * the list is empty.
 */
import { describe, expect, it } from 'vitest';
import type { JsonObject } from '../../../src/ir/json.js';
import type { Policy } from '../../../src/ir/nodes.js';
import { outcome, podRule, refusal, toMap } from './kyverno-support.js';

function kyverno(patch: string): Policy[] {
  return podRule('earlier-steps', `mutate:\n  patchesJson6902: |-\n${patch.replace(/^/gm, '    ')}`);
}

function pod(spec: JsonObject = {}): JsonObject {
  return { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'p', namespace: 'prod' }, spec: { containers: [{ name: 'c', image: 'nginx' }], ...spec } };
}

function expectKyvernosResults(source: Policy[], objects: readonly JsonObject[]): void {
  const map = toMap(source);
  for (const object of objects) expect(outcome(map, object), JSON.stringify(object)).toEqual(outcome(source, object));
}

const TERMS = 'spec/affinity/nodeAffinity/requiredDuringSchedulingIgnoredDuringExecution/nodeSelectorTerms';

function terms(list: JsonObject[] | undefined): JsonObject {
  return list === undefined ? {} : { affinity: { nodeAffinity: { requiredDuringSchedulingIgnoredDuringExecution: { nodeSelectorTerms: list } } } };
}

const EXPRESSION = { key: 'k0', operator: 'Exists' };

describe('Kyverno JSON patch steps after earlier ones, to MAP', () => {
  it('a later step below a map an earlier add created reads nothing of it from the object', () => {
    const source = kyverno(`- op: add
  path: /spec/securityContext/runAsUser
  value: 1000
- op: add
  path: /spec/securityContext/seccompProfile/type
  value: RuntimeDefault`);
    expectKyvernosResults(source, [
      pod(),
      pod({ securityContext: {} }),
      pod({ securityContext: { runAsGroup: 3000 } }),
      pod({ securityContext: { seccompProfile: { type: 'Localhost', localhostProfile: 'p.json' } } }),
    ]);
  });

  it('maps below several created ones, to any depth', () => {
    const source = kyverno(`- op: add
  path: /spec/affinity/podAffinity/requiredDuringSchedulingIgnoredDuringExecution
  value: []
- op: add
  path: /spec/affinity/nodeAffinity/preferredDuringSchedulingIgnoredDuringExecution
  value: []`);
    expectKyvernosResults(source, [pod(), pod({ affinity: {} }), pod({ affinity: { nodeAffinity: {} } }), pod(terms([{ matchExpressions: [EXPRESSION] }]))]);
  });

  it('a step through an element of a list an earlier step may have created is refused', () => {
    const text = refusal(
      kyverno(`- op: add
  path: /spec/tolerations/0/key
  value: a
- op: add
  path: /spec/tolerations/0/value
  value: b`),
    );
    expect(text).toContain('a JSON patch step through an element of /spec/tolerations, a list an earlier step of the patch may create or resize');
  });

  it('a step through an element of a list an earlier step removed from is refused', () => {
    const text = refusal(
      kyverno(`- op: remove
  path: /spec/containers/0
- op: add
  path: /spec/containers/1/imagePullPolicy
  value: Always`),
    );
    expect(text).toContain('a JSON patch step through an element of /spec/containers, a list an earlier step of the patch may create or resize');
  });

  it('-1 on the way is the last element, or a new one appended where the list is empty', () => {
    const source = kyverno(`- op: add
  path: /${TERMS}/-1/matchExpressions/-1
  value: {key: zone, operator: In, values: ["a"]}`);
    expectKyvernosResults(source, [
      pod(),
      pod(terms([])),
      pod(terms([{ matchFields: [{ key: 'metadata.name', operator: 'In', values: ['n'] }] }])),
      pod(terms([{ matchExpressions: [EXPRESSION] }, { matchExpressions: [{ key: 'k1', operator: 'Exists' }] }])),
    ]);
  });

  it('-1 twice on one list, by two steps, is refused (the second may name what the first appended)', () => {
    const text = refusal(
      kyverno(`- op: add
  path: /${TERMS}/-1/matchExpressions/-1
  value: {key: zone, operator: In, values: ["a"]}
- op: add
  path: /${TERMS}/-1/matchFields/-1
  value: {key: metadata.name, operator: In, values: ["n"]}`),
    );
    expect(text).toContain(`a JSON patch step through an element of /${TERMS}, a list an earlier step of the patch may create or resize`);
  });
});
