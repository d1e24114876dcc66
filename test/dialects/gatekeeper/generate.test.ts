/** Generation from IR that did not come from Gatekeeper: the natural mutator per op, unsupported with origins. */
import { describe, expect, it } from 'vitest';
import { gatekeeperDialect } from '../../../src/dialects/gatekeeper/index.js';
import { irDialect } from '../../../src/dialects/ir/index.js';
import type { Policy } from '../../../src/ir/nodes.js';
import { loadYamlText } from '../../../src/io/yaml-load.js';

function irPolicies(body: string, match = '{globs: wildcard, any: [{kinds: [{kind: Pod}]}]}', order = 'fixpoint'): Policy[] {
  const text = `apiVersion: transmute.dev/v1alpha1
kind: Policy
metadata:
  name: p
spec:
  semantics: {order: ${order}}
  match: ${match}
  rules:
  - name: r
    body:
${body}`;
  const docs = loadYamlText('p.yaml', text);
  if (!docs.ok) throw new Error(docs.diagnostics.map((d) => d.message).join('\n'));
  const parsed = irDialect.parse(docs.value);
  if (parsed.diagnostics.some((d) => d.severity === 'error')) throw new Error(parsed.diagnostics.map((d) => d.message).join('\n'));
  return parsed.policies;
}

function generate(policies: Policy[]) {
  return gatekeeperDialect.generate(policies, { unsupported: 'error' });
}

describe('gatekeeper generate', () => {
  it('writes an add-only label as AssignMetadata and other sets as Assign, numbered in IR order', () => {
    const g = generate(
      irPolicies(`    - set: object.metadata.labels.team!absent
      value: platform
    - set: 'object.spec.containers[name == "app"].imagePullPolicy'
      value: Always
`),
    );
    expect(g.diagnostics).toEqual([]);
    expect(g.documents).toHaveLength(2);
    expect(g.text).toContain('kind: AssignMetadata');
    expect(g.text).toContain('name: 1-p');
    expect(g.text).toContain('name: 2-p');
    // A keyed element that must not be created is a MustExist pathTest; Pod resolves to "" v1.
    expect(g.text).toContain("subPath: 'spec.containers[name: app]'\n      condition: MustExist");
    expect(g.text).toContain('versions:\n    - v1');
    const emitted = loadYamlText('emitted.yaml', g.text);
    if (!emitted.ok) throw new Error('the emitted YAML does not load');
    const back = gatekeeperDialect.parse(emitted.value);
    expect(back.diagnostics.filter((d) => d.severity === 'error')).toEqual([]);
    expect(back.policies).toHaveLength(2);
  });

  it('reports what Gatekeeper cannot express as TM4001 at the op, and emits nothing for it', () => {
    const g = generate(
      irPolicies(`    - remove: object.metadata.annotations.debug
    - set: object.spec.containers[0].image
      value: nginx
    - set: object.metadata.labels.team
      value: platform
`),
    );
    const unsupported = g.diagnostics.filter((d) => d.code === 'TM4001');
    expect(unsupported).toHaveLength(3);
    // The body starts on line 11.
    expect(unsupported.map((d) => d.span?.line)).toEqual([11, 12, 14]);
    expect(unsupported[0]!.message).toContain('never deletes');
    expect(unsupported[1]!.message).toContain('list index');
    expect(unsupported[2]!.message).toContain('never overwrites metadata');
    expect(g.documents).toEqual([]);
  });

  it('refuses a pair of Assigns that Gatekeeper would disable by a schema conflict', () => {
    const g = generate(
      irPolicies(`    - set: 'object.spec.containers[name: "a"].image'
      value: x
    - set: object.spec.containers.image
      value: y
`),
    );
    expect(g.diagnostics.filter((d) => d.code === 'TM4001').map((d) => d.message).join('\n')).toContain("implied schema");
  });

  it('turns an existence guard on a prefix of the location into a pathTest, and flags a sequential policy as lossy', () => {
    const g = generate(
      irPolicies(
        `    - when: {exists: object.spec.securityContext}
      then:
      - set: object.spec.securityContext.runAsNonRoot
        value: true
`,
        undefined,
        'sequential',
      ),
    );
    expect(g.diagnostics.map((d) => d.code)).toEqual(['TM4002']);
    expect(g.text).toContain('subPath: spec.securityContext\n      condition: MustExist');
  });
});
