/**
 * A foreach strategic merge that selects each element of the iterated list by its own key
 * (`(name): "{{ element.name }}"`) means "merge into that element" only where kyaml merges the list by that key:
 * a Service's ports are merged by `port`, so Kyverno's copy (which has no `port`) changes nothing there, where
 * a translation writing into each named port would add the field. Found by comparing the source and its
 * translation on Services; the translation is refused.
 */
import { describe, expect, it } from 'vitest';
import type { JsonObject } from '../../../src/ir/json.js';
import { kyvernoPolicies, outcome, refusal } from './kyverno-support.js';

const PORTS = kyvernoPolicies(`apiVersion: kyverno.io/v1
kind: ClusterPolicy
metadata: {name: ports}
spec:
  rules:
  - name: ports
    match:
      any:
      - resources: {kinds: [Service]}
    mutate:
      foreach:
      - list: request.object.spec.ports
        patchStrategicMerge:
          spec:
            ports:
            - (name): "{{element.name}}"
              appProtocol: tcp
`);

const service: JsonObject = {
  apiVersion: 'v1',
  kind: 'Service',
  metadata: { name: 's', namespace: 'prod' },
  spec: { selector: { app: 'web' }, ports: [{ name: 'web', port: 80, targetPort: 80 }] },
};

describe('a foreach merge selecting elements by a key kyaml does not merge the list by', () => {
  it('Kyverno leaves the ports as they are (kyaml merges them by port)', () => {
    expect(outcome(PORTS, service)).toEqual(service);
  });

  it('is refused, not translated as a write into each named port', () => {
    expect(refusal(PORTS)).toContain('which kyaml does not merge by name');
  });
});
