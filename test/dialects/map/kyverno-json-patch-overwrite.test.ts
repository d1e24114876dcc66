/**
 * A Kyverno JSON patch that overwrites a map member by removing it and adding it again (`remove` then `add`
 * of `.../capabilities/add`, nirmata/kyverno-policies' remediate-disallow-capabilities), or by adding it twice.
 * Under Kyverno's options (AllowMissingPathOnRemove, EnsurePathExistsOnAdd) the pair does what the last `add`
 * alone does, failing where it fails: the translation keeps that `add` only. Overlapping steps of any other
 * kind are still refused.
 */
import { describe, expect, it } from 'vitest';
import type { JsonObject } from '../../../src/ir/json.js';
import { outcome, podRule, refusal, translatedTo } from './kyverno-support.js';

const pod = (containers: JsonObject[], spec: JsonObject = {}): JsonObject => ({
  apiVersion: 'v1',
  kind: 'Pod',
  metadata: { name: 'p', namespace: 'prod' },
  spec: { containers, ...spec },
});

const PODS: JsonObject[] = [
  pod([{ name: 'app', image: 'nginx' }]),
  pod([{ name: 'app', image: 'nginx', securityContext: {} }]),
  pod([{ name: 'app', image: 'nginx', securityContext: { capabilities: {} } }]),
  pod([{ name: 'app', image: 'nginx', securityContext: { capabilities: { add: ['NET_ADMIN', 'chown'], drop: ['ALL'] } } }]),
  pod([
    { name: 'app', image: 'nginx', securityContext: { capabilities: { add: ['SYS_ADMIN'] } } },
    { name: 'side', image: 'envoy', securityContext: { runAsNonRoot: true, capabilities: { add: ['KILL'] } } },
    { name: 'plain', image: 'busybox' },
  ]),
];

const ALLOWED = '[AUDIT_WRITE, CHOWN, KILL]';

/** nirmata's remediation: every container adding a capability outside the list gets exactly the list. */
const REMEDIATE = `mutate:
  foreach:
  - list: request.object.spec.containers[]
    order: Descending
    preconditions:
      all:
      - key: "{{ element.securityContext.capabilities.add[].to_upper(@) || \`[]\` }}"
        operator: AnyNotIn
        value: ${ALLOWED}
    patchesJson6902: |-
      - op: remove
        path: /spec/containers/{{elementIndex}}/securityContext/capabilities/add
      - op: add
        path: /spec/containers/{{elementIndex}}/securityContext/capabilities/add
        value: ${ALLOWED}`;

function expectKyvernosResults(rule: string, pods: readonly JsonObject[] = PODS): void {
  const source = podRule('overwrite', rule);
  for (const to of ['map', 'kyverno-mpol'] as const) {
    const target = translatedTo(source, to);
    for (const p of pods) expect(outcome(target, p), `${to} ${JSON.stringify(p)}`).toEqual(outcome(source, p));
  }
}

describe('Kyverno JSON patch steps overwriting a map member', () => {
  it('remove then add of a member per foreach element: MAP and MutatingPolicy give what Kyverno gives', () => {
    expectKyvernosResults(REMEDIATE);
  });

  it('remove then add without a foreach, where the member, its parents or neither are there', () => {
    expectKyvernosResults(`mutate:
  patchesJson6902: |-
    - op: remove
      path: /spec/securityContext/sysctls
    - op: add
      path: /spec/securityContext/sysctls
      value: [{name: net.ipv4.ip_forward, value: "0"}]`, [
      pod([{ name: 'app', image: 'nginx' }]),
      pod([{ name: 'app', image: 'nginx' }], { securityContext: { runAsUser: 1000 } }),
      pod([{ name: 'app', image: 'nginx' }], { securityContext: { sysctls: [{ name: 'kernel.shm_rmid_forced', value: '1' }] } }),
    ]);
  });

  it('add twice at one member: the second wins', () => {
    expectKyvernosResults(`mutate:
  patchesJson6902: |-
    - op: add
      path: /metadata/labels/team
      value: a
    - op: add
      path: /metadata/labels/team
      value: b`, [pod([{ name: 'app', image: 'nginx' }]), { ...pod([{ name: 'app', image: 'nginx' }]), metadata: { name: 'p', namespace: 'prod', labels: { team: 'x' } } }]);
  });

  it('other overlapping steps stay refused: an add then a remove, a remove then an add at a list index', () => {
    for (const steps of [
      '- op: add\n  path: /metadata/labels/team\n  value: a\n- op: remove\n  path: /metadata/labels/team',
      '- op: remove\n  path: /spec/containers/0\n- op: add\n  path: /spec/containers/0\n  value: {name: x, image: y}',
      '- op: replace\n  path: /metadata/labels/team\n  value: a\n- op: add\n  path: /metadata/labels/team\n  value: b',
    ]) {
      const text = refusal(podRule('overlap', `mutate:\n  patchesJson6902: |-\n${steps.replace(/^/gm, '    ')}`));
      expect(text, steps).toMatch(/JSON patch steps on overlapping places|a list an earlier step of the patch adds to or removes from/);
    }
  });
});
