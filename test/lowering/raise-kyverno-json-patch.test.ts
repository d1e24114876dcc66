/** The JSON patch raising: add/remove on field paths, checked against Kyverno's JSON patch engine. */
import { describe, expect, it } from 'vitest';
import type { JsonValue } from '../../src/ir/json.js';
import type { JsonPatchStep, Op } from '../../src/ir/nodes.js';
import { fieldPointer, raiseKyvernoJsonPatch } from '../../src/lowering/raise-kyverno-json-patch.js';
import { body, O, PODS, policyOf, run } from './support.js';

function patch(steps: { op: JsonPatchStep['op']; path: string; value?: JsonValue; from?: string }[]): Op {
  return {
    kind: 'jsonPatch',
    profile: 'kyverno',
    steps: steps.map((s) => ({ op: s.op, path: s.path, ...(s.from ? { from: s.from } : {}), ...(s.value !== undefined ? { value: { kind: 'literal' as const, json: s.value, origin: O } } : {}), origin: O })),
    origin: O,
  };
}

describe('raise Kyverno JSON patch', () => {
  it('decodes field pointers and refuses segments that may be list positions', () => {
    expect(fieldPointer('/metadata/labels/app.kubernetes.io~1name')).toEqual([
      { kind: 'field', name: 'metadata' },
      { kind: 'field', name: 'labels' },
      { kind: 'field', name: 'app.kubernetes.io/name' },
    ]);
    expect(fieldPointer('/a/~0b')).toEqual([{ kind: 'field', name: 'a' }, { kind: 'field', name: '~b' }]);
    for (const p of ['', '/spec/containers/0/image', '/spec/containers/-', '/spec/x/-1', 'spec/x', '/a/~2']) expect(fieldPointer(p), p).toBeUndefined();
  });

  const RAISED: [string, Parameters<typeof patch>[0], string][] = [
    ['add creates parents and overwrites', [{ op: 'add', path: '/spec/nodeSelector/zone', value: 'east' }], 'set object.spec.nodeSelector.zone = "east"'],
    ['add of a map replaces the map', [{ op: 'add', path: '/spec/securityContext', value: { runAsNonRoot: true } }], 'set object.spec.securityContext = {"runAsNonRoot": true}'],
    ['remove ignores a missing path', [{ op: 'remove', path: '/metadata/labels/team' }], 'remove object.metadata.labels.team'],
    [
      'steps stay in order',
      [
        { op: 'add', path: '/metadata/labels/team', value: 'a' },
        { op: 'remove', path: '/spec/dnsPolicy' },
        { op: 'add', path: '/metadata/labels/team', value: 'b' },
      ],
      'set object.metadata.labels.team = "a"\nremove object.spec.dnsPolicy\nset object.metadata.labels.team = "b"',
    ],
  ];
  for (const [what, steps, want] of RAISED) {
    it(`${what}, as Kyverno's patcher does`, () => {
      const before = policyOf([patch(steps)]);
      const [after] = raiseKyvernoJsonPatch([before]);
      expect(body(after!)).toBe(want);
      for (const pod of PODS) {
        const expected = run(before, pod);
        expect(expected).not.toBe('error');
        expect(run(after!, pod), JSON.stringify(pod)).toEqual(expected);
      }
    });
  }

  const LEFT: [string, Parameters<typeof patch>[0]][] = [
    ['replace (a missing path is an error)', [{ op: 'replace', path: '/spec/dnsPolicy', value: 'None' }]],
    ['indices', [{ op: 'add', path: '/spec/containers/0/imagePullPolicy', value: 'Always' }]],
    ['appends', [{ op: 'add', path: '/spec/tolerations/-', value: { key: 'a', operator: 'Exists' } }]],
    ['move, copy and test', [{ op: 'copy', from: '/metadata/name', path: '/metadata/labels/name' }]],
    ['a patch with one step that cannot be raised', [{ op: 'add', path: '/spec/a', value: 1 }, { op: 'test', path: '/spec/a', value: 1 }]],
  ];
  for (const [what, steps] of LEFT) {
    it(`leaves ${what}`, () => {
      const p = policyOf([patch(steps)]);
      expect(raiseKyvernoJsonPatch([p])[0]).toBe(p);
    });
  }

  it('leaves a patch computed at evaluation time and other profiles', () => {
    const computed: Op = { kind: 'jsonPatch', profile: 'kyverno', steps: [], stepsFrom: { kind: 'jmes', expr: { text: 'x', origin: O }, origin: O }, origin: O };
    const rfc: Op = { ...(patch([{ op: 'add', path: '/spec/a', value: 1 }]) as Extract<Op, { kind: 'jsonPatch' }>), profile: 'rfc6902' };
    for (const op of [computed, rfc]) {
      const p = policyOf([op]);
      expect(raiseKyvernoJsonPatch([p])[0]).toBe(p);
    }
  });
});
