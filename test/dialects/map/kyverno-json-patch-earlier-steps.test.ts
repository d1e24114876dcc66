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
import { generateMap } from '../../../src/dialects/map/generate.js';
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

const CREATED_LIST_NOTE =
  'a JSON patch step through an element of a list that an earlier step of the same patch created or lengthened (the list was missing or too short) is not translated: the CEL fails there, where Kyverno writes into the list that step left';

function warnings(source: Policy[]): string[] {
  return generateMap(source)
    .diagnostics.filter((d) => d.severity === 'warning')
    .map((d) => d.message);
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

  it('a step through an element of a list an earlier step went through: exact where that step found the list, else the CEL fails, with a note', () => {
    const source = kyverno(`- op: add
  path: /spec/tolerations/0/key
  value: a
- op: add
  path: /spec/tolerations/0/value
  value: b
- op: add
  path: /spec/tolerations/1/key
  value: c`);
    expect(warnings(source)).toContain(CREATED_LIST_NOTE);
    const toleration = { key: 'k', operator: 'Exists' };
    expectKyvernosResults(source, [pod({ tolerations: [toleration] }), pod({ tolerations: [toleration, { key: 'other', operator: 'Exists' }] }), pod({ tolerations: [toleration, toleration, toleration] })]);
  });

  it('a step through an element of a list an earlier step removed from or added to is refused', () => {
    for (const earlier of ['- op: remove\n  path: /spec/containers/0', '- op: add\n  path: /spec/containers/0\n  value: {name: x, image: y}']) {
      const text = refusal(
        kyverno(`${earlier}
- op: add
  path: /spec/containers/1/imagePullPolicy
  value: Always`),
      );
      expect(text).toContain('a JSON patch step through an element of /spec/containers, a list an earlier step of the patch adds to or removes from');
    }
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

  it('-1 twice on one list, by two steps: exact where the first found a last element, else the CEL fails, with a note', () => {
    const source = kyverno(`- op: add
  path: /${TERMS}/-1/matchExpressions/-1
  value: {key: zone, operator: In, values: ["a"]}
- op: add
  path: /${TERMS}/-1/matchFields/-1
  value: {key: metadata.name, operator: In, values: ["n"]}`);
    expect(warnings(source)).toContain(CREATED_LIST_NOTE);
    expectKyvernosResults(source, [pod(terms([{ matchFields: [{ key: 'metadata.name', operator: 'In', values: ['m'] }] }])), pod(terms([{ matchExpressions: [EXPRESSION] }, { matchExpressions: [EXPRESSION] }]))]);
  });
});
