import { describe, expect, it } from 'vitest';
import { raiseCelGuards } from '../../src/lowering/raise-cel-guards.js';
import { mapPolicy, shown } from './map-policy.js';

const raise = (expr: string, resource?: [string, string, string]): string => shown(raiseCelGuards([mapPolicy({ guards: [expr], ...(resource ? { resource } : {}) })])[0]!);

describe('raiseCelGuards', () => {
  it('raises has() on a known-present parent and its negation', () => {
    expect(raise('has(object.metadata.labels)')).toBe('guard exists object.metadata.labels');
    expect(raise('!has(object.metadata.labels)')).toBe('guard notExists object.metadata.labels');
  });

  it('raises a key test and a comparison guarded by has()/in on the left of && and ||', () => {
    expect(raise('has(object.metadata.labels) && "env" in object.metadata.labels && object.metadata.labels["env"] == "prod"')).toBe(
      'guard exists object.metadata.labels\n  guard exists object.metadata.labels.env\n  guard eq object.metadata.labels.env "prod"',
    );
    expect(raise('!has(object.metadata.labels) || !("sidecar" in object.metadata.labels) || object.metadata.labels["sidecar"] != "off"')).toBe(
      'guard or(notExists object.metadata.labels, notExists object.metadata.labels.sidecar, neq object.metadata.labels.sidecar "off")',
    );
  });

  it('keeps CEL that can error: a comparison whose field may be missing', () => {
    // labels present but without "env" is "no such key" in CEL, a false guard in the IR.
    expect(raise('has(object.metadata.labels) && object.metadata.labels["env"] == "prod"')).toMatch(/^guard cel /);
    expect(raise('object.metadata.labels.env == "prod"')).toMatch(/^guard cel /);
    // object.spec is not known present for every kind (a ConfigMap has none).
    expect(raise('!has(object.spec.replicas)', ['', 'v1', 'configmaps'])).toMatch(/^guard cel /);
  });

  it('knows object.spec is present when every matched kind declares it as a struct', () => {
    expect(raise('!has(object.spec.replicas)', ['apps', 'v1', 'deployments'])).toBe('guard notExists object.spec.replicas');
  });

  it('raises an optional chain with hasValue(), which is never an error past its first .?', () => {
    expect(raise('object.metadata.?labels["k"].hasValue()')).toBe('guard exists object.metadata.labels.k');
    expect(raise('!object.metadata.?labels["k"].hasValue()')).toBe('guard notExists object.metadata.labels.k');
    expect(raise('object.spec.template.?metadata.hasValue()', ['', 'v1', 'configmaps'])).toMatch(/^guard cel /);
  });

  it('raises membership in a list of literals, and keeps functions and other roots', () => {
    expect(raise('has(object.metadata.labels) && "env" in object.metadata.labels && object.metadata.labels.env in ["a", "b"]')).toContain('guard in object.metadata.labels.env ["a", "b"]');
    expect(raise('object.metadata.name.startsWith("x")')).toMatch(/^guard cel /);
    expect(raise('request.namespace == "prod"')).toMatch(/^guard cel /);
  });
});
