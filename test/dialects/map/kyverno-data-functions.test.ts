/**
 * parse_json(), parse_yaml() and the hashes in a Kyverno rule, translated to a MutatingPolicy: Kyverno's CEL
 * environment decodes with the same two decoders (json.unmarshal, yaml.parse) and hashes alike (its hash
 * library), so the translation re-executed gives what our Kyverno engine gives, numbers and YAML 1.1 scalars
 * included; MAP has neither and refuses.
 */
import { describe, expect, it } from 'vitest';
import type { JsonObject } from '../../../src/ir/json.js';
import type { Policy } from '../../../src/ir/nodes.js';
import { translate } from '../../../src/pipeline.js';
import { outcome, podRule, translatedTo } from './kyverno-support.js';

function policy(decode: string): Policy[] {
  return podRule(
    'parse-text',
    `context:
- name: settings
  variable:
    jmesPath: request.object.metadata.annotations."example.com/settings" || '{}'
mutate:
  patchStrategicMerge:
    metadata:
      labels:
        owner: "{{ settings | ${decode}(@).owner || 'nobody' }}"
        replicas: "{{ to_string(settings | ${decode}(@).replicas || \`0\`) }}"
        enabled: "{{ to_string(settings | ${decode}(@).enabled || \`false\`) }}"`,
  );
}

const pod = (settings: string | undefined): JsonObject => ({
  apiVersion: 'v1',
  kind: 'Pod',
  metadata: { name: 'p', namespace: 'prod', ...(settings === undefined ? {} : { annotations: { 'example.com/settings': settings } }) },
  spec: { containers: [{ name: 'app', image: 'nginx' }] },
});

describe('parse_json() and parse_yaml() translated to a MutatingPolicy', () => {
  it('parse_yaml: YAML 1.1 scalars and numbers as Kyverno reads them', () => {
    const source = policy('parse_yaml');
    const target = translatedTo(source, 'kyverno-mpol');
    for (const settings of [undefined, 'owner: team-a\nreplicas: 3\nenabled: yes\n', 'owner: b\nreplicas: 2.5\n', '{owner: c, enabled: off}', 'a: [']) {
      expect(outcome(target, pod(settings)), JSON.stringify(settings)).toEqual(outcome(source, pod(settings)));
    }
  });

  it('parse_json: numbers as float64, invalid text an error in both', () => {
    const source = policy('parse_json');
    const target = translatedTo(source, 'kyverno-mpol');
    for (const settings of [undefined, '{"owner": "team-a", "replicas": 3, "enabled": true}', '{"replicas": 1e3}', '{"owner": 1}', '{']) {
      expect(outcome(target, pod(settings)), JSON.stringify(settings)).toEqual(outcome(source, pod(settings)));
    }
  });

  it('sha256(), sha1() and md5(): the same hex digests', () => {
    const source = podRule(
      'hashes',
      `mutate:
  patchStrategicMerge:
    metadata:
      labels:
        sha256: "{{ sha256(request.object.metadata.name) | truncate(@, \`63\`) }}"
        sha1: "{{ sha1(request.object.metadata.name) }}"
        md5: "{{ md5(request.object.metadata.name) }}"`,
    );
    const target = translatedTo(source, 'kyverno-mpol');
    for (const name of ['p', 'é-ü', '']) {
      const p = { ...pod(undefined), metadata: { name, namespace: 'prod' } };
      expect(outcome(target, p), name).toEqual(outcome(source, p));
    }
  });

  it('MAP has no decoder: refused as cannot', () => {
    const g = translate(policy('parse_yaml'), 'map', 'error');
    expect(g.diagnostics.map((d) => d.message).join('\n')).toContain('no YAML decoder');
  });
});
