/**
 * A strategic merge whose leaf is a `{{ }}` value that may not be a scalar: Kyverno substitutes it before the
 * merge, so a map merges key by key into what is there (a null member removes its key), null removes the
 * member, an empty map creates nothing, a list replaces the list where kyaml replaces lists. Translated to MAP
 * and to a MutatingPolicy and re-executed against our Kyverno engine on Pods with and without the members.
 * The shapes the CEL does not merge (a map holding maps, a list kyaml merges by key) fail with transmute's
 * message, said in a note, instead of writing what Kyverno would not.
 */
import { describe, expect, it } from 'vitest';
import type { JsonObject } from '../../../src/ir/json.js';
import type { Policy } from '../../../src/ir/nodes.js';
import { translate } from '../../../src/pipeline.js';
import { outcome, podRule, translatedTo } from './kyverno-support.js';

/** A rule binding `value` (YAML flow) as `v` and merging `patch` (YAML, holding `{{ v }}` holes). */
function policy(value: string, patch: string): Policy[] {
  return podRule(
    'substituted',
    `context:
- name: v
  variable:
    value: ${value}
mutate:
  patchStrategicMerge:
${patch.replace(/^/gm, '    ')}`,
  );
}

const pod = (metadata: JsonObject, container: JsonObject = {}): JsonObject => ({
  apiVersion: 'v1',
  kind: 'Pod',
  metadata: { name: 'p', namespace: 'prod', ...metadata },
  spec: { containers: [{ name: 'app', image: 'nginx', ...container }] },
});

const PODS: JsonObject[] = [
  pod({}),
  pod({ labels: { team: 'a', gone: 'x' } }),
  pod({ labels: { keep: 'k' }, annotations: { note: 'n' } }, { args: ['--old'] }),
  pod({ labels: {} }, { args: [] }),
];

const MERGED: [string, string, string][] = [
  ['a map of scalars merges key by key; a null member removes its key', '{team: "b", gone: null, added: "1"}', 'metadata:\n  labels: "{{ v }}"'],
  ['a map whose members are all null creates the map empty where it is missing', '{gone: null}', 'metadata:\n  labels: "{{ v }}"'],
  ['an empty map changes nothing and creates nothing', '{}', 'metadata:\n  annotations: "{{ v }}"'],
  ['a map member of a map', '{a: {b: "1"}}', 'metadata:\n  labels: "{{ v.a }}"'],
  ['null removes the member', '{a: null}', 'metadata:\n  labels:\n    team: "{{ v.a }}"'],
  ['a list of scalars replaces a list kyaml replaces', '{l: ["x", "y"]}', 'spec:\n  containers:\n  - (name): app\n    args: "{{ v.l }}"'],
  ['a scalar replaces as before', '{s: "z"}', 'metadata:\n  labels:\n    team: "{{ v.s }}"'],
];

describe('a substituted value merged by a strategic merge', () => {
  for (const [what, value, patch] of MERGED) {
    it(`${what}: MAP and MutatingPolicy give what Kyverno gives`, () => {
      const source = policy(value, patch);
      for (const to of ['map', 'kyverno-mpol'] as const) {
        const target = translatedTo(source, to);
        for (const p of PODS) expect(outcome(target, p), `${to} ${JSON.stringify(p.metadata)}`).toEqual(outcome(source, p));
      }
    });
  }

  it('a map holding a map fails the CEL, with a note, where Kyverno merges it', () => {
    const source = policy('{m: {inner: {x: "1"}}}', 'metadata:\n  labels: "{{ v.m }}"');
    const g = translate(source, 'kyverno-mpol', 'error');
    expect(g.diagnostics.filter((d) => d.severity === 'warning').map((d) => d.message).join('\n')).toContain('the CEL fails on a map holding maps or lists');
    const r = outcome(translatedTo(source, 'kyverno-mpol'), PODS[1]!);
    expect(r).toEqual({ denied: true });
  });

  it('a scalar-typed value keeps the plain write (no runtime dispatch)', () => {
    const g = translate(policy('{s: "z"}', 'metadata:\n  labels:\n    team: "{{ v.s }}"'), 'kyverno-mpol', 'error');
    expect(g.text).not.toContain('type(x');
    expect(g.diagnostics.map((d) => d.message).join('\n')).not.toContain('may not be a scalar');
  });
});
