/**
 * The generated normal-form check (src/merge/smp/normal-check.ts) against merge.ts isNormal, the reference:
 * random documents of several kinds, in and out of kyaml's normal form (nulls, duplicate and missing merge
 * keys, lists where maps belong, names Object.prototype has, short and long lists), with or without a map known already, must get
 * the same answer and leave the same facts in NormalForms (or more, where isNormal trusted a known map).
 */
import { describe, expect, it } from 'vitest';
import type { JsonObject, JsonValue } from '../../../src/ir/json.js';
import { isNormal } from '../../../src/merge/smp/merge.js';
import { normalCheck } from '../../../src/merge/smp/normal-check.js';
import { NormalForms } from '../../../src/merge/smp/normal-forms.js';
import { fieldSchema, schemaForResourceType } from '../../../src/merge/smp/schema.js';
import { lcg as rng, pick } from '../../support/random.js';

const NAMES = ['app', 'side', '', 'constructor'];

function randomElement(r: () => number, key: string): JsonValue {
  const roll = r();
  if (roll < 0.05) return null;
  if (roll < 0.08) return 'scalar';
  const el: JsonObject = {};
  if (r() < 0.9) el[key] = r() < 0.1 ? null : pick(r, NAMES);
  if (r() < 0.5) el.ports = randomList(r, () => ({ containerPort: pick(r, [80, 443, '80']), protocol: pick(r, ['TCP', 'UDP']) }));
  // Long lists (past the length below which plain lists are checked again rather than remembered), some with a duplicate.
  else if (r() < 0.15) el.ports = longPorts(r);
  if (r() < 0.3) el.env = randomList(r, () => ({ name: pick(r, ['A', 'B']), value: pick(r, ['1', null]) }));
  if (r() < 0.1) el.securityContext = null;
  return el;
}

function longPorts(r: () => number): JsonValue[] {
  const out: JsonValue[] = [];
  const n = 14 + Math.floor(r() * 6);
  for (let i = 0; i < n; i++) out.push({ containerPort: 1000 + i, protocol: 'TCP' });
  if (r() < 0.4) out.push({ containerPort: 1000, protocol: 'TCP' });
  return out;
}

function randomList(r: () => number, element: () => JsonValue): JsonValue {
  if (r() < 0.05) return null;
  if (r() < 0.05) return { not: 'a list' };
  const out: JsonValue[] = [];
  const n = Math.floor(r() * 4);
  for (let i = 0; i < n; i++) out.push(element());
  return out;
}

function randomPod(r: () => number): JsonObject {
  const spec: JsonObject = {};
  if (r() < 0.9) spec.containers = randomList(r, () => randomElement(r, 'name'));
  if (r() < 0.3) spec.initContainers = randomList(r, () => randomElement(r, 'name'));
  if (r() < 0.3) spec.volumes = randomList(r, () => ({ name: pick(r, NAMES), emptyDir: {} }));
  if (r() < 0.2) spec.tolerations = [{ key: 'k' }, { key: 'k' }];
  if (r() < 0.1) spec.nodeSelector = null;
  const metadata: JsonObject = { name: 'p' };
  if (r() < 0.3) metadata.finalizers = r() < 0.5 ? ['a', 'a'] : ['a', 'b'];
  if (r() < 0.2) metadata.ownerReferences = [{ uid: pick(r, ['1', '2']) }, { uid: pick(r, ['1', '2']) }];
  if (r() < 0.1) metadata.labels = null;
  const pod: JsonObject = { apiVersion: 'v1', kind: 'Pod', metadata, spec: r() < 0.05 ? null : spec };
  if (r() < 0.2) pod.status = { conditions: [{ type: 'Ready' }, { type: pick(r, ['Ready', 'Init']) }] };
  return pod;
}

/** What NormalForms knows about every container of `v`. */
function facts(nf: NormalForms, v: JsonValue, schemas: readonly object[], out: string[] = [], path = ''): string[] {
  if (v === null || typeof v !== 'object') return out;
  schemas.forEach((s, i) => {
    if (nf.has(v, s)) out.push(`${path}@${i}`);
  });
  if (Array.isArray(v)) v.forEach((e, i) => facts(nf, e, schemas, out, `${path}/${i}`));
  else for (const k of Object.keys(v)) facts(nf, v[k]!, schemas, out, `${path}/${k}`);
  return out;
}

/** Every schema node reachable from `root` (to ask NormalForms about each). */
function schemaNodes(root: object, out: object[] = []): object[] {
  if (out.includes(root)) return out;
  out.push(root);
  const s = root as { fieldSchemas?: object[]; values?: object; items?: object };
  for (const f of s.fieldSchemas ?? []) schemaNodes(f, out);
  if (s.values) schemaNodes(s.values, out);
  if (s.items) schemaNodes(s.items, out);
  return out;
}

describe('the generated normal-form check', () => {
  for (const [apiVersion, kind] of [
    ['v1', 'Pod'],
    ['apps/v1', 'Deployment'],
    ['v1', 'Service'],
  ] as const) {
    it(`agrees with isNormal on random ${kind} documents`, () => {
      const schema = schemaForResourceType(apiVersion, kind)!;
      expect(schema).not.toBeNull();
      const nodes = schemaNodes(schema);
      const check = normalCheck(schema);
      const r = rng(kind.length * 7919);
      let normal = 0;
      for (let i = 0; i < 600; i++) {
        const pod = randomPod(r);
        const doc: JsonObject = kind === 'Pod' ? pod : { apiVersion, kind, metadata: pod.metadata!, spec: kind === 'Deployment' ? { template: { spec: pod.spec! } } : pod.spec! };
        const a = new NormalForms();
        const b = new NormalForms();
        // Sometimes a map is known already, as a recent merge result (a true fact).
        const spec = doc.spec;
        const specSchema = fieldSchema(schema, 'spec');
        const known = r() < 0.5 && spec !== null && typeof spec === 'object' && isNormal(spec!, specSchema, undefined);
        if (known) for (const nf of [a, b]) nf.addResult(spec as object, specSchema as object);
        const expected = isNormal(doc, schema, a);
        expect(check(doc, b), JSON.stringify(doc)).toBe(expected);
        // The same facts; where a map was known, the generated check walks it and may know more of its lists.
        const recorded = facts(b, doc, nodes);
        if (known) expect(recorded, JSON.stringify(doc)).toEqual(expect.arrayContaining(facts(a, doc, nodes)));
        else expect(recorded, JSON.stringify(doc)).toEqual(facts(a, doc, nodes));
        expect(check(doc, undefined)).toBe(expected);
        if (expected) normal++;
      }
      // Both answers occur.
      expect(normal).toBeGreaterThan(50);
      expect(normal).toBeLessThan(550);
    });
  }
});
