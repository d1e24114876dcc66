/**
 * Variables in the quoted scalars of a Kyverno `patchesJson6902` text, translated to MAP and re-executed.
 * Kyverno substitutes `{{ }}` into the patch's text and reads it again as YAML: a quoted scalar is a string
 * whatever text lands in it (a hole alone too: a number comes back as its text), unless that text holds the
 * scalar's own syntax (a quote, a backslash in double quotes, a line break or a control character), where the
 * MAP fails instead of guessing. A hole alone in a plain scalar may come back as another type: the MAP reads
 * back what YAML reads from the plain texts it models, and fails on the others.
 */
import { describe, expect, it } from 'vitest';
import type { JsonObject } from '../../../src/ir/json.js';
import type { Policy } from '../../../src/ir/nodes.js';
import { outcome, podRule, refusal, toMap } from './kyverno-support.js';

function kyverno(patch: string): Policy[] {
  return podRule('quoted', `mutate:\n  patchesJson6902: |-\n${patch.replace(/^/gm, '    ')}`);
}

function pod(image: string, labels: JsonObject = { app: 'web' }, env?: JsonObject[]): JsonObject {
  return {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: { name: 'p', namespace: 'prod', labels },
    spec: { containers: [{ name: 'c', image, ...(env ? { env } : {}) }] },
  };
}

const READABLE: JsonObject[] = [
  pod('nginx:1.25'),
  pod('registry.example.com:5000/team/app@sha256:abc'),
  pod('123'),
  pod('true'),
  pod('null'),
  pod("it's"),
  pod('a # b: c'),
  pod('{x}'),
  pod(' spaced '),
  pod('nginx', { app: '1.0', tier: 'no' }, [{ name: 'A', value: 'b' }]),
  pod('nginx', {}),
];

const PATCHES: [string, string][] = [
  [
    'a hole alone in a double-quoted scalar of a flow map',
    `- op: add
  path: "/spec/containers/0/env/-"
  value: {"name":"IMAGE","value":"{{request.object.spec.containers[0].image}}"}`,
  ],
  [
    'a hole alone in a double-quoted scalar',
    `- op: add
  path: /metadata/labels/image
  value: "{{ request.object.spec.containers[0].image }}"`,
  ],
  [
    'a number spliced into a double-quoted scalar comes back as its text',
    `- op: add
  path: /metadata/annotations
  value:
    count: "{{ length(request.object.spec.containers) }}"
    tagged: "{{ contains(request.object.spec.containers[0].image, ':') }}"`,
  ],
  [
    'a hole in a single-quoted scalar, with text around it',
    `- op: add
  path: /metadata/labels/copy
  value: 'v-{{ request.object.metadata.labels.app || 'none' }}'`,
  ],
  [
    'a hole inside a hole, as a raw string of the outer one (Kyverno substitutes the inner one first)',
    `- op: add
  path: /metadata/labels/image
  value: "{{ replace_all('{{request.object.spec.containers[0].image}}', ':', '-') }}"`,
  ],
];

describe('Kyverno JSON patch variables in quoted scalars, to MAP', () => {
  for (const [what, patch] of PATCHES) {
    it(`${what} gives Kyverno's result wherever the text reads back as it is`, () => {
      const source = kyverno(patch);
      const map = toMap(source);
      for (const object of READABLE) {
        const image = String(((object.spec as JsonObject).containers as JsonObject[])[0]!.image);
        if (patch.includes("'v-") ? false : /["\\]/.test(image)) continue;
        if (patch.includes("'v-") && image.includes("'")) continue;
        // An inner value holding a quote or a brace would change the raw string Kyverno reads around it: the
        // CEL fails there, as its translation note says (src/lowering/jmes-cel/template.ts nestedHole).
        if (patch.includes("('{{") && /[{}']/.test(image)) continue;
        expect(outcome(map, object), JSON.stringify(object)).toEqual(outcome(source, object));
      }
    });
  }

  it('a value is written as a string whatever it looks like', () => {
    const map = toMap(kyverno(PATCHES[1]![1]));
    for (const image of ['123', 'true', 'null', '{x}', 'a: b']) {
      expect(((outcome(map, pod(image)) as JsonObject).metadata as JsonObject).labels).toEqual({ app: 'web', image });
    }
  });

  it('fails where the substituted text would close or escape the quoted scalar', () => {
    const double = toMap(kyverno(PATCHES[1]![1]));
    expect(outcome(double, pod('a"b'))).toEqual({ denied: true });
    expect(outcome(double, pod('a\\nb'))).toEqual({ denied: true });
    expect(outcome(double, pod('a\nb'))).toEqual({ denied: true });
    const single = toMap(kyverno(PATCHES[3]![1]));
    expect(outcome(single, pod('x', { app: "it's" }))).toEqual({ denied: true });
    expect(((outcome(single, pod('x', { app: 'a"b\\c' })) as JsonObject).metadata as JsonObject).labels).toEqual({ app: 'a"b\\c', copy: 'v-a"b\\c' });
  });

  it('a hole alone in a plain scalar that may be a string: YAML\'s reading of its text, or a failure where that is not modelled', () => {
    const source = kyverno(`- op: add
  path: /metadata/labels/image
  value: {{ request.object.spec.containers[0].image }}`);
    const map = toMap(source);
    let compared = 0;
    for (const object of READABLE) {
      const image = String(((object.spec as JsonObject).containers as JsonObject[])[0]!.image);
      // A letter first, then letters, digits and ._/@+=- only: what the CEL reads back (template.ts PLAIN_TEXT).
      if (/^[A-Za-z][A-Za-z0-9._/@+=-]*$/.test(image)) {
        expect(outcome(map, object), JSON.stringify(object)).toEqual(outcome(source, object));
        compared++;
      } else expect(outcome(map, object), JSON.stringify(object)).toEqual({ denied: true });
    }
    expect(compared).toBeGreaterThan(1);
  });

  it('refuses a hole in a block scalar (its text sets the indentation)', () => {
    expect(
      refusal(
        kyverno(`- op: add
  path: /metadata/annotations/note
  value: |
    {{ request.object.spec.containers[0].image }}`),
      ),
    ).toMatch(/block scalar/);
  });
});
