import { describe, expect, it } from 'vitest';
import { raiseApplyConfiguration } from '../../src/lowering/raise-apply-configuration.js';
import { mapPolicy, shown } from './map-policy.js';

const raise = (apply: string, resource?: [string, string, string]): string => shown(raiseApplyConfiguration([mapPolicy({ apply, ...(resource ? { resource } : {}) })])[0]!);

describe('raiseApplyConfiguration', () => {
  it('turns granular struct and map fields into sets and drops the variables nothing reads', () => {
    expect(raise('Object{metadata: Object.metadata{labels: {"a/b": "x"}}, spec: Object.spec{securityContext: Object.spec.securityContext{runAsNonRoot: true, runAsUser: 1000}}}')).toBe(
      [
        'rule "mutations[0]"',
        '    set object.metadata.labels."a/b" = "x"',
        '    set object.spec.securityContext.runAsNonRoot = true',
        '    set object.spec.securityContext.runAsUser = 1000',
      ].join('\n'),
    );
  });

  it('turns one container of the name-keyed list into a keyed segment that creates (SSA appends)', () => {
    expect(raise('Object{spec: Object.spec{containers: [Object.spec.containers{name: "app", image: "nginx"}]}}')).toContain('set object.spec.containers[name: "app"].image = "nginx"');
  });

  it('leaves what the apiserver rejects or merges differently', () => {
    const kept = /merge ssa object = cel/;
    // atomic list (args), atomic map (nodeSelector), unknown field, wrong type name
    expect(raise('Object{spec: Object.spec{containers: [Object.spec.containers{name: "app", args: ["x"]}]}}')).toMatch(kept);
    expect(raise('Object{spec: Object.spec{nodeSelector: {"a": "b"}}}')).toMatch(kept);
    expect(raise('Object{spec: Object.spec{replicasx: 1}}', ['apps', 'v1', 'deployments'])).toMatch(kept);
    expect(raise('Object{spec: Object.spec.containers{x: 1}}')).toMatch(kept);
    // two items (SSA orders shared items after the patch), env (duplicate names are legal), a set, a null, an empty map
    expect(raise('Object{spec: Object.spec{containers: [Object.spec.containers{name: "a", image: "x"}, Object.spec.containers{name: "b", image: "y"}]}}')).toMatch(kept);
    expect(raise('Object{spec: Object.spec{containers: [Object.spec.containers{name: "a", env: [Object.spec.containers.env{name: "X", value: "1"}]}]}}')).toMatch(kept);
    expect(raise('Object{metadata: Object.metadata{finalizers: ["x"]}}')).toMatch(kept);
    expect(raise('Object{spec: Object.spec{priorityClassName: null}}')).toMatch(kept);
    expect(raise('Object{spec: Object.spec{securityContext: Object.spec.securityContext{}}}')).toMatch(kept);
    // not literals
    expect(raise('Object{metadata: Object.metadata{labels: {"a": object.metadata.name}}}')).toMatch(kept);
  });

  it('needs known kinds, except for a patch of metadata alone', () => {
    expect(raise('Object{spec: Object.spec{replicas: 2}}', ['*', '*', '*'])).toMatch(/merge ssa/);
    expect(raise('Object{metadata: Object.metadata{annotations: {"a": "b"}}}', ['*', '*', '*'])).toContain('set object.metadata.annotations.a = "b"');
  });

  it('reads a conditional Object with a guard that cannot error as a when', () => {
    expect(raise('!(has(object.metadata.labels) && "t" in object.metadata.labels) ? Object{metadata: Object.metadata{labels: {"t": "x"}}} : Object{}')).toContain(
      'when not(and(exists object.metadata.labels, exists object.metadata.labels.t))\n      set object.metadata.labels.t = "x"',
    );
    expect(raise('object.metadata.labels.t == "a" ? Object{metadata: Object.metadata{labels: {"t": "x"}}} : Object{}')).toMatch(/merge ssa/);
  });
});
