/**
 * Differential tests of the shortcuts MAP takes on a JSONPatch result and on constant patches, each against
 * the general walk it stands in for:
 * - declaresEveryFieldAlong (the strict decode along the one path a patch step set) against the reference
 *   strict decode (undeclaredFieldPaths), and a removal against it too;
 * - applyEvanphxV4Telling: the same outcome as applyPatch, "differs" only for results that are not
 *   jsonEqual to the input, and an edit whose other members are the input's own;
 * - typesStrictlySettingNoAtomic on frozen values (remembered per schema and node) against the references.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseAllDocuments } from 'yaml';
import { describe, expect, it } from 'vitest';
import { makePods } from '../../../bench/pods.js';
import { kindSchema, undeclaredFieldPaths } from '../../../src/engines/ssa.js';
import { copyForNewKeys, withEntry } from '../../../src/ir/json-copy.js';
import { hasOwn, jsonEqual, type JsonObject, type JsonValue } from '../../../src/ir/json.js';
import { applyPatch, type PatchStep } from '../../../src/jsonpatch/apply.js';
import { applyEvanphxV4Telling } from '../../../src/jsonpatch/evanphx-v4.js';
import { gvkOf } from '../../../src/k8s/resources.js';
import { atomicPaths } from '../../../src/merge/ssa/atomic-guard.js';
import { declaresEveryFieldAlong, typesStrictlySettingNoAtomic } from '../../../src/merge/ssa/fast-checks.js';
import type { KindSchema } from '../../../src/merge/ssa/openapi/kinds.js';
import { typingErrors } from '../../../src/merge/ssa/validate.js';
import { describeShared, sharedPath } from '../../support/shared.js';

const pointer = (segments: readonly (string | number)[]): string => segments.map((s) => '/' + String(s).replace(/~/g, '~0').replace(/\//g, '~1')).join('');

/** One-step patches at every place of `doc` (bounded): sets of good, broken and undeclared values, adds, removals. */
function stepsFor(doc: JsonValue, limit = 120): PatchStep[] {
  const out: PatchStep[] = [];
  const step = (op: string, path: (string | number)[], value?: JsonValue): void => {
    if (out.length < limit) out.push(value === undefined ? { op, path: pointer(path), hasValue: false } : { op, path: pointer(path), value, hasValue: true });
  };
  const visit = (x: JsonValue, path: (string | number)[]): void => {
    if (x === null || typeof x !== 'object') return;
    if (Array.isArray(x)) {
      step('add', [...path, '-'], x[0] ?? 'x');
      step('add', [...path, 0], { zzUndeclared: 1 });
      x.forEach((item, i) => {
        step('replace', [...path, i], item);
        step('remove', [...path, i]);
        visit(item, [...path, i]);
      });
      return;
    }
    step('add', [...path, 'zzUndeclared'], 1);
    for (const k of Object.keys(x)) {
      const child = x[k]!;
      step('replace', [...path, k], JSON.parse(JSON.stringify(child)) as JsonValue);
      step('add', [...path, k], { zzUndeclared: true });
      step('replace', [...path, k], typeof child === 'string' ? 7 : 'x');
      step('remove', [...path, k]);
      visit(child, [...path, k]);
    }
  };
  visit(doc, []);
  return out;
}

/**
 * Members of `doc` that hold containers, each as `doc` without it plus the steps adding it back, as it was
 * and broken below it (a declared member new to the document, whose value must be walked whole).
 */
function readdedMembers(doc: JsonValue, limit = 40): [JsonValue, PatchStep[]][] {
  const out: [JsonValue, PatchStep[]][] = [];
  const visit = (x: JsonValue, path: string[]): void => {
    if (out.length >= limit || x === null || typeof x !== 'object' || Array.isArray(x)) return;
    for (const k of Object.keys(x)) {
      const child = x[k]!;
      if (child === null || typeof child !== 'object') continue;
      const removed = applyPatch(doc, [{ op: 'remove', path: pointer([...path, k]) }], 'evanphx-v4');
      if (!removed.ok) continue;
      const broken: JsonValue = Array.isArray(child) ? [...child, { zzUndeclared: 1 }] : { ...child, zzUndeclared: 1 };
      out.push([removed.doc, [child, broken].map((value) => ({ op: 'add', path: pointer([...path, k]), value, hasValue: true }))]);
      visit(child, [...path, k]);
    }
  };
  visit(doc, []);
  return out;
}

function expectEditAgreement(name: string, known: KindSchema, doc: JsonObject): void {
  expectStepsAgreement(name, known, doc, stepsFor(doc));
  for (const [without, steps] of readdedMembers(doc)) expectStepsAgreement(`${name} (a member removed)`, known, without, steps);
}

function expectStepsAgreement(name: string, known: KindSchema, doc: JsonValue, steps: readonly PatchStep[]): void {
  // The shortcut's precondition: the document the step was applied to declares every field.
  if (undeclaredFieldPaths(known, doc, undefined).length > 0) return;
  const node = known.schema.node(known.typeRef);
  for (const s of steps) {
    const what = `${name}: ${s.op} ${s.path}`;
    const { outcome, differs, edit } = applyEvanphxV4Telling(doc, [s]);
    expect(outcome, what).toStrictEqual(applyPatch(doc, [s], 'evanphx-v4'));
    if (!outcome.ok) continue;
    const result = outcome.doc;
    if (differs) expect(jsonEqual(result, doc), `${what} said to differ`).toBe(false);
    if (edit === undefined) continue;
    const undeclared = undeclaredFieldPaths(known, result, undefined);
    if (edit.removed) {
      expect(undeclared, `${what}: a removal adds no field`).toStrictEqual([]);
      continue;
    }
    // The edit's contract: along the path, only the named member may differ.
    let cur: JsonValue = result;
    let old: JsonValue | undefined = doc;
    for (const key of edit.at) {
      const c = cur as JsonObject;
      const o = old as JsonObject;
      for (const k of Object.keys(o)) if (k !== key) expect(c[k], `${what}: member ${k} beside the path`).toBe(o[k]);
      cur = c[key]!;
      old = hasOwn(o, key) ? o[key] : undefined;
      if (old === undefined) break;
    }
    expect(declaresEveryFieldAlong(node, result, doc, edit.at, undefined), `${what}: ${undeclared.join(', ')}`).toBe(undeclared.length === 0);
  }
}

function expectFrozenAgreement(name: string, known: KindSchema, value: JsonValue): void {
  const node = known.schema.node(known.typeRef);
  const strictlyClean = typingErrors(known.schema, known.typeRef, value, false, undefined).length === 0;
  const expected = strictlyClean && atomicPaths(known.schema, known.typeRef, value).length === 0;
  const frozen = deepFreeze(JSON.parse(JSON.stringify(value)) as JsonValue);
  // Twice: the second answer comes from what the schema remembered.
  expect(typesStrictlySettingNoAtomic(known.schema, node, frozen), `${name} frozen`).toBe(expected);
  expect(typesStrictlySettingNoAtomic(known.schema, node, frozen), `${name} frozen again`).toBe(expected);
  // Inside a patch that is not frozen, at the node of its field.
  const wrapped = { spec: frozen };
  const atSpec = typingErrors(known.schema, known.typeRef, wrapped, false, undefined).length === 0 && atomicPaths(known.schema, known.typeRef, wrapped).length === 0;
  expect(typesStrictlySettingNoAtomic(known.schema, node, wrapped), `${name} frozen under spec`).toBe(atSpec);
}

function deepFreeze<T>(v: T): T {
  if (v !== null && typeof v === 'object') {
    Object.freeze(v);
    for (const x of Object.values(v)) deepFreeze(x);
  }
  return v;
}

function podSchema(): KindSchema {
  return kindSchema({ group: '', version: 'v1', kind: 'Pod' })!;
}

describe('JSONPatch edits and frozen patches on the benchmark Pods', () => {
  it('the strict decode along the edited path agrees with the reference', () => {
    for (const [i, pod] of makePods(12).entries()) expectEditAgreement(`pod ${i}`, podSchema(), pod);
  });

  it('frozen patches answer as the references, again from memory, and per node', () => {
    const known = podSchema();
    for (const [i, pod] of makePods(6).entries()) {
      expectFrozenAgreement(`pod ${i}`, known, pod);
      expectFrozenAgreement(`pod ${i} metadata`, known, { metadata: pod.metadata! });
      expectFrozenAgreement(`pod ${i} broken`, known, { ...pod, spec: { ...(pod.spec as JsonObject), zzUndeclared: 1 } });
    }
    // The same frozen value is valid as a Pod's spec and not as a whole Pod (the memory is per node).
    const spec = deepFreeze({ containers: [{ name: 'a', image: 'i' }] });
    const node = known.schema.node(known.typeRef);
    expect(typesStrictlySettingNoAtomic(known.schema, node, { spec })).toBe(true);
    expect(typesStrictlySettingNoAtomic(known.schema, node, spec)).toBe(false);
  });

  it('copies for new keys keep the key order and __proto__ as an own key', () => {
    const m = JSON.parse('{"b":1,"__proto__":{"x":1},"a":2}') as JsonObject;
    const copy = copyForNewKeys(m);
    expect(Object.keys(copy)).toStrictEqual(['b', '__proto__', 'a']);
    expect(Object.getPrototypeOf(copy)).toBe(Object.prototype);
    const added = withEntry(m, '__proto__', 3);
    expect(hasOwn(added, '__proto__') && added['__proto__']).toBe(3);
    expect(Object.keys(withEntry(m, 'c', 3))).toStrictEqual(['b', '__proto__', 'a', 'c']);
    expect(m['__proto__']).toStrictEqual({ x: 1 });
  });
});

describeShared('JSONPatch edits on the objects of the MAP conformance corpus', () => {
  it('the strict decode along the edited path agrees with the reference', () => {
    const root = sharedPath('conformance/map');
    let compared = 0;
    for (const source of readdirSync(root, { withFileTypes: true })) {
      if (!source.isDirectory() || source.name === 'k8s-schema' || source.name === 'smd-merge') continue;
      const dir = join(root, source.name);
      for (const c of readdirSync(dir, { withFileTypes: true })) {
        if (!c.isDirectory()) continue;
        for (const file of readdirSync(join(dir, c.name))) {
          if (!file.endsWith('.yaml')) continue;
          for (const doc of parseAllDocuments(readFileSync(join(dir, c.name, file), 'utf8'))) {
            const value = doc.toJS() as JsonValue;
            if (value === null || typeof value !== 'object' || Array.isArray(value)) continue;
            const known = kindSchema(gvkOf(value));
            if (!known) continue;
            expectEditAgreement(`${source.name}/${c.name}/${file}`, known, value);
            expectFrozenAgreement(`${source.name}/${c.name}/${file}`, known, value);
            compared++;
          }
        }
      }
    }
    expect(compared).toBeGreaterThan(50);
  });
});
