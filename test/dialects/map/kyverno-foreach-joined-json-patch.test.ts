/**
 * A Kyverno foreach over joined lists (`request.object.spec.[ephemeralContainers, initContainers,
 * containers][]`) whose JSON patch names an element of one list by `{{elementIndex}}` (kyverno/policies
 * psp-migration add-capabilities), translated to MAP and re-executed. Kyverno substitutes the index in the
 * joined list: the patch lands on that index of the named list. Where the Pod has only containers the two
 * coincide and the translation gives Kyverno's result; where the index passes the end of the named list,
 * Kyverno pads it with nulls and the CEL fails, as the translation's note says.
 */
import { describe, expect, it } from 'vitest';
import { generateMap } from '../../../src/dialects/map/generate.js';
import type { JsonObject } from '../../../src/ir/json.js';
import { outcome, podRule, refusal, toMap } from './kyverno-support.js';

const RULE = `preconditions:
  all:
  - key: "{{request.operation || 'BACKGROUND'}}"
    operator: AnyIn
    value: [CREATE, UPDATE]
mutate:
  foreach:
  - list: request.object.spec.[ephemeralContainers, initContainers, containers][]
    preconditions:
      all:
      - key: SETFCAP
        operator: AnyNotIn
        value: "{{ element.securityContext.capabilities.drop[] || \`[]\` }}"
    patchesJson6902: |-
      - path: /spec/containers/{{elementIndex}}/securityContext/capabilities/add/-
        op: add
        value: SETFCAP`;

const pod = (containers: JsonObject[], extra: JsonObject = {}): JsonObject => ({ apiVersion: 'v1', kind: 'Pod', metadata: { name: 'p', namespace: 'prod' }, spec: { containers, ...extra } });

describe('Kyverno foreach JSON patch over joined lists, to MAP', () => {
  it("gives Kyverno's result where the joined index is the named list's own", () => {
    const source = podRule('joined', RULE);
    const map = toMap(source);
    const pods = [
      pod([{ name: 'a', image: 'nginx' }]),
      pod([{ name: 'a', image: 'nginx' }, { name: 'b', image: 'nginx', securityContext: { capabilities: { drop: ['SETFCAP'] } } }]),
      pod([{ name: 'a', image: 'nginx', securityContext: { runAsUser: 1, capabilities: { add: ['NET_ADMIN'] } } }]),
    ];
    let changed = 0;
    for (const object of pods) {
      const want = outcome(source, object);
      if (JSON.stringify(want) !== JSON.stringify(object)) changed++;
      expect(outcome(map, object), JSON.stringify(object)).toEqual(want);
    }
    expect(changed).toBe(pods.length);
  });

  it('says where the CEL fails: an index past the end of the named list', () => {
    const notes = generateMap(podRule('joined', RULE))
      .diagnostics.filter((d) => d.severity === 'warning')
      .map((d) => d.message);
    expect(notes.some((n) => n.includes('Kyverno pads or creates the list with nulls and the CEL fails'))).toBe(true);
    const map = toMap(podRule('joined', RULE));
    expect(outcome(map, pod([{ name: 'a', image: 'nginx' }], { initContainers: [{ name: 'i', image: 'busybox' }] }))).toEqual({ denied: true });
  });

  it('refuses paths that do not all name elements below one list', () => {
    const outside = RULE.replace('/spec/containers/{{elementIndex}}/securityContext/capabilities/add/-', '/metadata/labels/x');
    expect(refusal(podRule('joined', outside))).toContain('whose paths are not all below `/<list>/{{elementIndex}}/`');
    const atElement = RULE.replace('/spec/containers/{{elementIndex}}/securityContext/capabilities/add/-', '/spec/containers/{{elementIndex}}');
    expect(refusal(podRule('joined', atElement))).toContain('whose paths are not all below `/<list>/{{elementIndex}}/`');
  });
});
