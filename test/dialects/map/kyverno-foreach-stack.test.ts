/**
 * A Kyverno foreach whose JSON patch works only at the iterated element's own place
 * (`/<list>/{{elementIndex}}`) and leaves the list as long as it found it (`remove` then `add`, `add` then
 * `remove`, `replace`): each iteration rewrites its own element only, in either order, so it is translated
 * to one `replace` per element. Translated to MAP and re-executed against our Kyverno engine.
 */
import { describe, expect, it } from 'vitest';
import type { JsonObject } from '../../../src/ir/json.js';
import type { Policy } from '../../../src/ir/nodes.js';
import { outcome, podRule, refusal, toMap } from './kyverno-support.js';

function kyverno(order: string, steps: string, preconditions = ''): Policy[] {
  return podRule(
    'stack',
    `mutate:
  foreach:
  - list: request.object.spec.containers[0].env
    order: ${order}
${preconditions.replace(/^/gm, '    ')}
    patchesJson6902: |-
${steps.replace(/^/gm, '      ')}`,
  );
}

const pod = (env: JsonObject[]): JsonObject => ({
  apiVersion: 'v1',
  kind: 'Pod',
  metadata: { name: 'p', namespace: 'prod' },
  spec: { containers: [{ name: 'c', image: 'nginx', env }, { name: 'd', image: 'busybox', env: [{ name: 'X', value: 'x' }] }] },
});

const ENVS: JsonObject[][] = [
  [],
  [{ name: 'A', value: '1' }],
  [{ name: 'A', value: '1' }, { name: 'B', value: '2' }, { name: 'AA', value: '3' }],
  [{ name: 'B', value: '2' }, { name: 'A' }, { name: 'C', valueFrom: { fieldRef: { fieldPath: 'metadata.name' } } }, { name: 'AB', value: '4' }],
];

const REMOVE = `- path: /spec/containers/0/env/{{elementIndex}}
  op: remove`;
const ADD = (name: string): string => `- path: /spec/containers/0/env/{{elementIndex}}
  op: add
  value:
    name: ${name}
    value: "{{ element.name }}-{{ elementIndex }}"`;
const REPLACE = `- path: /spec/containers/0/env/{{elementIndex}}
  op: replace
  value: {name: "{{ element.name }}", value: replaced}`;

const SHAPES: [string, string][] = [
  ['remove then add (the element is replaced)', `${REMOVE}\n${ADD('NEW')}`],
  ['add then remove (nothing changes)', `${ADD('NEW')}\n${REMOVE}`],
  ['two adds, a replace and two removes', `${ADD('ONE')}\n${ADD('TWO')}\n${REPLACE}\n${REMOVE}\n${REMOVE}`],
  ['add, remove twice, add (the element is replaced)', `${ADD('ONE')}\n${REMOVE}\n${REMOVE}\n${ADD('TWO')}`],
  ['a replace alone', REPLACE],
];

const ONLY_A = `preconditions:
  all:
  - key: "{{ element.name }}"
    operator: Equals
    value: "A*"`;

describe('Kyverno foreach JSON patches that keep the list length at the element, to MAP', () => {
  for (const [what, steps] of SHAPES) {
    for (const order of ['Ascending', 'Descending']) {
      for (const pre of ['', ONLY_A]) {
        it(`${what}, ${order}${pre ? ', under a precondition' : ''}, gives Kyverno's result on every object`, () => {
          const source = kyverno(order, steps, pre);
          const map = toMap(source);
          for (const env of ENVS) {
            const object = pod(env);
            expect(outcome(map, object), JSON.stringify(env)).toEqual(outcome(source, object));
          }
        });
      }
    }
  }

  it('replaces every element with what the last add made', () => {
    const map = toMap(kyverno('Ascending', `${REMOVE}\n${ADD('NEW')}`));
    const out = outcome(map, pod([{ name: 'A' }, { name: 'B' }])) as JsonObject;
    expect(((out.spec as JsonObject).containers as JsonObject[])[0]!.env).toEqual([
      { name: 'NEW', value: 'A-0' },
      { name: 'NEW', value: 'B-1' },
    ]);
  });

  it('keeps refusing a removal that reaches past the element, and removing under a condition in Ascending order', () => {
    expect(refusal(kyverno('Ascending', `${REMOVE}\n${REMOVE}\n${ADD('NEW')}`))).toMatch(/not yet translate/);
    expect(refusal(kyverno('Ascending', REMOVE, ONLY_A))).toMatch(/removing elements of the iterated list in Ascending order under a condition/);
  });
});
