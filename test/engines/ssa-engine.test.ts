/**
 * Differential test of the MAP ApplyConfiguration engine (src/engines/ssa.ts) against the reference pipeline:
 * the patch copied with the target's apiVersion and kind set on it (smd.go), then applyStructuredMergeDiff
 * without an evaluation memo. The engine skips the copy when it changes nothing and keeps a memo across the
 * mutations of one evaluation; both must leave results and messages as the reference has them.
 */
import { describe, expect, it } from 'vitest';
import { makePods } from '../../bench/pods.js';
import { kindSchema, SSA_ENGINE } from '../../src/engines/ssa.js';
import type { MergeOp } from '../../src/ir/nodes.js';
import { copyObject, hasOwn, isJsonObject, jsonEqual, type JsonObject, type JsonValue } from '../../src/ir/json.js';
import type { Runtime } from '../../src/runtime/runtime.js';
import { applyStructuredMergeDiff } from '../../src/merge/ssa/apply.js';

const POD = { group: '', version: 'v1', kind: 'Pod' };
const runtime = { schemas: { kinds: { get: () => undefined }, unknownKinds: 'error' } } as unknown as Runtime;
const op = { kind: 'merge', origin: { dialect: 'map', file: 'test', line: 1, col: 1, endLine: 1, endCol: 1 } } as unknown as MergeOp;

function reference(target: JsonValue, patch: JsonValue): { ok: boolean; text: string } {
  const known = kindSchema(POD)!;
  if (!isJsonObject(patch)) return { ok: false, text: 'not an object' };
  const typed = copyObject(patch);
  if (isJsonObject(target)) for (const key of ['apiVersion', 'kind']) if (hasOwn(target, key)) typed[key] = target[key]!;
  const r = applyStructuredMergeDiff(known.schema, known.typeRef, target, typed, { atomicGuard: true, keepEqual: true });
  return r.ok ? { ok: true, text: JSON.stringify(r.value) } : { ok: false, text: `error applying patch: ${r.diagnostics[0]!.message}` };
}

const PATCHES: JsonValue[] = [
  {},
  { metadata: { labels: { a: 'b' } } },
  { apiVersion: 'v1', metadata: { labels: { a: 'b' } } },
  { apiVersion: 'v2' },
  { kind: 'Pod', spec: { restartPolicy: 'Never' } },
  { kind: 7 },
  { apiVersion: null },
  { spec: { containers: [{ name: 'app', image: 'x' }] } },
  { metadata: { undeclared: 1 } },
  { spec: { nodeSelector: { zone: 'z0' } } },
];

function targets(): JsonValue[] {
  const pods: JsonObject[] = makePods(6);
  const out: JsonValue[] = [...pods];
  const first = pods[0]!;
  const without = (key: string): JsonObject => Object.fromEntries(Object.entries(first).filter(([k]) => k !== key)) as JsonObject;
  out.push(without('apiVersion'), without('kind'), { ...first, apiVersion: 3 }, { ...first, kind: { a: 1 } }, { ...first, apiVersion: null });
  return out;
}

describe('the ApplyConfiguration engine agrees with the reference pipeline', () => {
  it('agrees one mutation at a time', () => {
    for (const target of targets()) {
      for (const patch of PATCHES) {
        const ref = reference(target, patch);
        const r = SSA_ENGINE(target, patch, { op, request: { object: target, operation: 'CREATE', kind: POD }, runtime });
        const text = r.ok ? JSON.stringify(r.value) : r.diagnostic.message;
        expect({ ok: r.ok, text }, `${JSON.stringify(target)} + ${JSON.stringify(patch)}`).toEqual(ref);
      }
    }
  });

  it('agrees over a sequence of mutations sharing one evaluation memo', () => {
    for (const start of targets()) {
      const memo = new Map<unknown, unknown>();
      let current: JsonValue = start;
      let expected: JsonValue = start;
      for (const patch of PATCHES) {
        const ref = reference(expected, patch);
        const r = SSA_ENGINE(current, patch, { op, request: { object: start, operation: 'CREATE', kind: POD }, runtime, memo });
        expect({ ok: r.ok, text: r.ok ? JSON.stringify(r.value) : r.diagnostic.message }).toEqual(ref);
        if (r.ok) {
          current = r.value;
          expected = JSON.parse(ref.text) as JsonValue;
          expect(jsonEqual(current, expected)).toBe(true);
        }
      }
    }
  });
});
