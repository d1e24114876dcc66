/**
 * Lazy bindings nothing reads, left out of generated blocks (src/compile/unread-lets.ts): which bindings go,
 * which stay (read directly, through another binding, through a shadowed name, or when reads cannot be
 * told), and MAP policies whose variables fail, are read only by some mutations, or read each other give
 * the closure interpreter's results exactly.
 */
import { describe, expect, it } from 'vitest';
import { withoutUnreadLets } from '../../src/compile/unread-lets.js';
import { apply } from '../../src/interpreter/index.js';
import type { JsonObject } from '../../src/ir/json.js';
import type { LetOp, Op } from '../../src/ir/nodes.js';
import { differences } from '../support/run-differential.js';
import { applyConfiguration, jsonPatch, mapPolicies, namedExpression } from '../support/map-policy.js';

const origin = { file: 'vars.yaml', line: 1, col: 1, endLine: 1, endCol: 2, dialect: 'map' as const };
const cel = (text: string) => ({ kind: 'cel' as const, expr: { text, origin }, origin });
const lazy = (name: string, text: string): LetOp => ({ kind: 'let', name, value: cel(text), lazy: true, origin });
const merge = (text: string): Op => ({ kind: 'merge', path: { root: 'object', segments: [] }, value: cel(text), strategy: 'ssa', origin });
const patch = (text: string): Op => ({ kind: 'jsonPatch', steps: [], stepsFrom: cel(text), profile: 'evanphx-v4', origin });
const names = (ops: readonly Op[]): string[] => ops.map((op) => (op.kind === 'let' ? `let ${op.name}` : op.kind));

describe('withoutUnreadLets', () => {
  it('leaves out the lazy bindings no later op reads', () => {
    const ops = [lazy('tier', 'object.metadata.name'), lazy('multi', 'size(object.spec.containers) > 1'), merge('Object{metadata: Object.metadata{labels: {"t": variables.tier}}}')];
    expect(names(withoutUnreadLets(ops))).toEqual(['let tier', 'merge']);
    expect(names(withoutUnreadLets([ops[0]!, ops[1]!, patch('[]')]))).toEqual(['jsonPatch']);
  });

  it('keeps a binding another kept binding reads, and a shadowed one the shadowing binding reads', () => {
    const chained = [lazy('a', '1'), lazy('b', 'variables.a + 1'), lazy('c', '2'), patch('variables.b > 1 ? [] : []')];
    expect(names(withoutUnreadLets(chained))).toEqual(['let a', 'let b', 'jsonPatch']);
    const shadowed = [lazy('x', '1'), lazy('x', 'variables.x + 1'), patch('variables.x > 1 ? [] : []')];
    expect(names(withoutUnreadLets(shadowed))).toEqual(['let x', 'let x', 'jsonPatch']);
    // The later binding of the name hides the earlier one from the op: only it is read.
    const hidden = [lazy('x', '1'), lazy('x', '2'), patch('variables.x > 1 ? [] : []')];
    expect(names(withoutUnreadLets(hidden))).toEqual(['let x', 'jsonPatch']);
  });

  it('keeps every binding when reads cannot be told', () => {
    const whole = [lazy('a', '1'), patch('size(variables) > 0 ? [] : []')];
    expect(withoutUnreadLets(whole)).toBe(whole);
    const jmes: Op[] = [lazy('a', '1'), { kind: 'set', path: { root: 'object', segments: [] }, value: { kind: 'jmes', expr: { text: 'a', origin }, origin }, origin }];
    expect(withoutUnreadLets(jmes)).toBe(jmes);
    const unparsable = [lazy('a', '1'), patch('[')];
    expect(withoutUnreadLets(unparsable)).toBe(unparsable);
  });

  it('never leaves out an eager binding', () => {
    const eager: Op[] = [{ kind: 'let', name: 'a', value: cel('1'), origin }, patch('[]')];
    expect(withoutUnreadLets(eager)).toBe(eager);
  });
});

describe('MAP variables read by some mutations only', () => {
  const variables = [
    namedExpression('tier', 'object.metadata.labels.tier'),
    namedExpression('broken', 'object.metadata.labels.missing + "x"'),
    namedExpression('upper', 'variables.tier.upperAscii()'),
  ];
  const mutations = [
    applyConfiguration('Object{metadata: Object.metadata{labels: {"seen": variables.upper}}}'),
    jsonPatch('[JSONPatch{op: "add", path: "/metadata/annotations", value: {"a": "b"}}]'),
    jsonPatch('has(object.metadata.labels.fail) ? [JSONPatch{op: "add", path: "/metadata/labels/b", value: variables.broken}] : []'),
  ];
  const pods: JsonObject[] = [
    { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'a', labels: { tier: 'web' } }, spec: { containers: [{ name: 'c', image: 'i' }] } },
    { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'b', labels: { tier: 'web', fail: 'yes' } }, spec: { containers: [{ name: 'c', image: 'i' }] } },
    { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'c' }, spec: { containers: [{ name: 'c', image: 'i' }] } },
  ];

  it('gives the interpreter results: values read through another variable, an unread failing one, a read failing one', () => {
    const set = mapPolicies('vars', { variables, mutations });
    for (const object of pods) {
      const request = { object, operation: 'CREATE' as const };
      const compiled = apply(set, request, { trace: false });
      const interpreted = apply(set, request, { trace: false, interpret: true });
      expect(differences(compiled, interpreted), JSON.stringify(object)).toEqual([]);
    }
    // The three Pods: the variables read and applied, the failing variable read (denied), a failing read of tier.
    const outcomes = pods.map((object) => apply(set, { object, operation: 'CREATE' }, { trace: false }).allowed);
    expect(outcomes).toEqual([true, false, false]);
  });
});
