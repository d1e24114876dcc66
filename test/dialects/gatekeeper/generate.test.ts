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
  it('writes an add-only label as AssignMetadata and other sets as Assign, named after the policy', () => {
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
    // One mutator of each kind: the policy's name is unique per kind, no numbers needed.
    expect(g.text.match(/^  name: p$/gm)).toHaveLength(2);
    // A keyed element that must not be created is a MustExist pathTest; Pod resolves to "" v1.
    expect(g.text).toContain("subPath: 'spec.containers[name: app]'\n      condition: MustExist");
    expect(g.text).toContain('versions:\n    - v1');
    const emitted = loadYamlText('emitted.yaml', g.text);
    if (!emitted.ok) throw new Error('the emitted YAML does not load');
    const back = gatekeeperDialect.parse(emitted.value);
    expect(back.diagnostics.filter((d) => d.severity === 'error')).toEqual([]);
    expect(back.policies).toHaveLength(2);
  });

  it('numbers mutators of one kind in IR order, since Gatekeeper orders them by name', () => {
    const g = generate(
      irPolicies(`    - set: object.spec.priorityClassName
      value: web
    - set: object.spec.dnsPolicy
      value: ClusterFirst
`),
    );
    expect(g.diagnostics).toEqual([]);
    expect(g.text.match(/^  name: .*$/gm)).toEqual(['  name: 1-p', '  name: 2-p']);
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
    // Each is a limit of Gatekeeper, said at the construct: `cannot`, not `yet`.
    expect(unsupported.map((d) => d.unsupported)).toEqual(['cannot', 'cannot', 'cannot']);
    expect(unsupported[0]!.message).toContain('no Gatekeeper mutator deletes a field');
    expect(unsupported[1]!.message).toContain('the list position [0]');
    expect(unsupported[2]!.message).toContain('AssignMetadata only adds a missing label');
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

  it('turns an existence guard on a prefix of the location into a pathTest; one sequential op is its own fix-point', () => {
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
    expect(g.diagnostics.map((d) => d.code)).toEqual([]);
    expect(g.text).toContain('subPath: spec.securityContext\n      condition: MustExist');
  });

  it('flags a sequential policy as lossy when a later op writes where an earlier one reads', () => {
    const g = generate(
      irPolicies(
        `    - set: 'object.spec.containers[name: *].imagePullPolicy'
      value: Always
    - set: 'object.spec.containers[name: "sidecar"].image'
      value: envoy
`,
        undefined,
        'sequential',
      ),
    );
    expect(g.diagnostics.map((d) => d.code)).toEqual(['TM4002']);
    expect(g.diagnostics[0]!.message).toContain('one pass is not provably the fix-point');
    expect(g.documents).toHaveLength(2);
  });

  it('folds a rule-level match into each mutator and completes wildcard groups of built-in kinds', () => {
    const [p] = irPolicies(`    - set: object.spec.priorityClassName
      value: high
`);
    const policy = { ...p!, match: { globs: 'wildcard' as const }, semantics: { order: 'sequential' as const } };
    policy.rules = [{ ...policy.rules[0]!, match: { globs: 'wildcard', any: [{ kinds: [{ group: '*', version: '*', kind: 'Pod', subresource: '' }], namespaces: ['prod-*'] }] } }];
    const g = generate([policy]);
    // Kyverno's Pod is a Pod of any group: the applyTo of the built-in one says so with a warning.
    expect(g.diagnostics.map((d) => [d.code, d.severity])).toEqual([['TM4003', 'warning']]);
    expect(g.diagnostics[0]!.message).toContain('Kyverno matches kind Pod in every API group');
    expect(g.text).toContain('groups:\n    - ""\n    versions:\n    - v1\n    kinds:\n    - Pod');
    expect(g.text).toContain('namespaces:\n    - prod-*');
  });

  it('reports the match edges it cannot keep as TM4003 and refuses globs it cannot say', () => {
    const mk = (clause: object) => {
      const [p] = irPolicies(`    - set: object.spec.priorityClassName
      value: high
`);
      return [{ ...p!, match: { globs: 'wildcard' as const, any: [{ kinds: [{ group: '', version: '*', kind: 'Pod' }], ...clause }] } }];
    };
    const exactName = generate(mk({ names: ['web'] }));
    expect(exactName.diagnostics.map((d) => d.code)).toEqual(['TM4003']);
    expect(exactName.diagnostics[0]!.message).toContain('generateName');
    expect(generate(mk({ names: ['web-*'] })).diagnostics).toEqual([]);
    expect(generate(mk({ namespaces: ['p?od'] })).diagnostics.map((d) => d.code)).toEqual(['TM4001', 'TM4005']);
    const wildLabels = generate(mk({ labelSelector: { matchLabels: { app: 'web-*' } } }));
    expect(wildLabels.diagnostics.map((d) => d.code)).toEqual(['TM4003']);
  });

  it('converts MAP resource rules to applyTo kinds with their operations', () => {
    const [p] = irPolicies(`    - set: object.spec.replicas
      value: 2
`);
    const policy = {
      ...p!,
      semantics: { order: 'ordered' as const, reinvocation: 'never' as const },
      match: {
        globs: 'exact' as const,
        all: [{ resources: [{ groups: ['apps'], versions: ['v1'], resources: ['deployments', 'statefulsets'], operations: ['CREATE'] }], operations: ['CREATE', 'UPDATE', 'CONNECT'] }],
      },
    };
    const g = generate([policy]);
    expect(g.diagnostics).toEqual([]);
    expect(g.text).toContain('kinds:\n    - Deployment\n    - StatefulSet\n    operations:\n    - CREATE');
    const sub = generate([{ ...policy, match: { globs: 'exact' as const, all: [{ resources: [{ groups: [''], versions: ['v1'], resources: ['pods/status'] }] }] } }]);
    expect(sub.diagnostics.map((d) => d.code)).toEqual(['TM4001', 'TM4005']);
  });

  it('turns exclude blocks on namespaces into excludedNamespaces', () => {
    const [p] = irPolicies(`    - set: object.spec.priorityClassName
      value: high
`);
    const g = generate([{ ...p!, match: { ...p!.match, exclude: { any: [{ namespaces: ['kube-*'] }, { namespaces: ['gatekeeper-system'] }] } } }]);
    expect(g.diagnostics).toEqual([]);
    expect(g.text).toContain('excludedNamespaces:\n    - kube-*\n    - gatekeeper-system');
    const other = generate([{ ...p!, match: { ...p!.match, exclude: { any: [{ names: ['x'] }] } } }]);
    expect(other.diagnostics.map((d) => d.code)).toEqual(['TM4001', 'TM4005']);
  });
});
