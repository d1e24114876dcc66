import { describe, expect, it } from 'vitest';
import { apply } from '../../src/interpreter/index.js';
import type { JsonObject } from '../../src/ir/json.js';
import type { Policy } from '../../src/ir/nodes.js';
import { loadYamlText } from '../../src/io/yaml-load.js';
import { optimize } from '../../src/optimizer/index.js';
import { parsePolicyDocs, translate } from '../../src/pipeline.js';
import { deepFreeze, O, p, policy, set } from '../interpreter/support.js';
import { SCHEMA_CONFLICT_ASSIGNS } from '../support/gatekeeper-conflict.js';

/**
 * A policy disabled by a constant-false guard (Gatekeeper: a mutator caught in a schema conflict) keeps its
 * rules and guards through the optimizer, so generators can re-emit it, and the interpreter still never runs it.
 */

const CONFLICT = SCHEMA_CONFLICT_ASSIGNS;

const pod = (): JsonObject =>
  deepFreeze({ apiVersion: 'v1', kind: 'Pod', metadata: { name: 'web', namespace: 'default' }, spec: { containers: [{ name: 'app', image: 'nginx' }] } });

function conflicting(): Policy[] {
  const docs = loadYamlText('mutators.yaml', CONFLICT);
  if (!docs.ok) throw new Error('fixture does not load');
  const parsed = parsePolicyDocs(docs.value);
  expect(parsed.diagnostics.filter((d) => d.severity === 'error')).toEqual([]);
  expect(parsed.diagnostics.filter((d) => d.code === 'TM2004')).toHaveLength(2);
  return parsed.policies;
}

const isFalse = (g: Policy['guards'][number]): boolean => g.kind === 'const' && !g.value;

describe('optimize keeps a disabled policy', () => {
  it('keeps the rules and guards of the mutators a schema conflict disabled, its false guard first', () => {
    const parsed = conflicting();
    const optimized = optimize(parsed);
    expect(optimized.map((x) => x.id)).toEqual(parsed.map((x) => x.id));
    optimized.forEach((after, i) => {
      const before = parsed[i]!;
      expect(isFalse(after.guards[0]!)).toBe(true);
      expect(after.rules).toEqual(before.rules);
      expect(after.rules.length).toBeGreaterThan(0);
      expect(new Set(after.guards)).toEqual(new Set(before.guards));
    });
  });

  it('the interpreter never runs a disabled policy: no rule, no op, the object unchanged', () => {
    const optimized = optimize(conflicting());
    const object = pod();
    const r = apply(optimized, { object, operation: 'CREATE', source: 'Generated' });
    expect(r.allowed).toBe(true);
    expect(r.object).toBe(object);
    expect(r.patch).toEqual([]);
    expect(r.trace.filter((e) => e.node !== 'policy' && e.node !== 'pass')).toEqual([]);
    const skipped = r.trace.filter((e) => e.node === 'policy' && e.outcome === 'skipped').map((e) => e.policy);
    expect(new Set(skipped)).toEqual(new Set(optimized.map((x) => x.id)));
  });

  it('a disabled IR policy runs neither its rules nor its other guards', () => {
    const write = set(p('object', 'metadata', 'labels'), { team: 'x' });
    const live = policy('live', [write]);
    // The control: the same policy without its false guard does write.
    expect(apply(optimize([live]), { object: pod(), operation: 'CREATE' }).patch).not.toEqual([]);
    // A guard that fails when evaluated (a JMESPath guard: apply() is given no engine) is never reached: the
    // false guard comes first, and ordered semantics stop at it.
    const failing = { kind: 'jmes', expr: { text: 'to_number(`"x"`) > `1`', origin: O }, origin: O } as Policy['guards'][number];
    expect(apply([policy('fails', [write], { order: 'ordered' }, [failing])], { object: pod(), operation: 'CREATE' }).allowed).toBe(false);
    const disabled = policy('off', [write], { order: 'ordered' }, [failing, { kind: 'const', value: false, origin: O }]);
    const optimized = optimize([disabled]);
    expect(optimized[0]!.rules).toEqual(disabled.rules);
    const object = pod();
    const r = apply(optimized, { object, operation: 'CREATE' });
    expect(r.allowed).toBe(true);
    expect(r.object).toBe(object);
    expect(r.trace.filter((e) => e.node !== 'policy')).toEqual([]);
  });

  it('lets the Gatekeeper generator re-emit the conflicting mutators whole', () => {
    const out = translate(conflicting(), 'gatekeeper', 'error');
    expect(out.diagnostics.filter((d) => d.severity === 'error')).toEqual([]);
    const docs = out.documents as JsonObject[];
    expect(docs.map((d) => (d.metadata as JsonObject).name)).toEqual(['a', 'b']);
    // b's match.source is a policy guard: it survives the optimizer with the rules.
    expect((docs[1]!.spec as JsonObject).match).toEqual({ source: 'Generated' });
  });
});
