/**
 * Differential test of the yes/no walks of src/merge/ssa/fast-checks.ts against the reference walks that word
 * the errors: typing (validate.ts), the atomic guard and the strict decode (src/engines/ssa.ts). Values: the
 * SMD merge triplets (their own schemas), the objects of the MAP conformance corpus (built-in schema), the
 * benchmark's Pods, and for each of them variants broken in one place (an undeclared field, a value of
 * another form, a duplicated, null or unkeyable list item), so that both answers are exercised.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseAllDocuments } from 'yaml';
import { describe, expect, it } from 'vitest';
import { makePods } from '../../../bench/pods.js';
import { kindSchema, undeclaredFieldPaths } from '../../../src/engines/ssa.js';
import type { JsonObject, JsonValue } from '../../../src/ir/json.js';
import { gvkOf } from '../../../src/k8s/resources.js';
import { atomicPaths } from '../../../src/merge/ssa/atomic-guard.js';
import { CheckedSubtrees } from '../../../src/merge/ssa/checked.js';
import { declaresEveryField, declaresEveryFieldSince, setsNoAtomic, typesCleanly, typesCleanlyByWalk, typesCleanlySince, typesStrictlyGuarded, typesStrictlySettingNoAtomic } from '../../../src/merge/ssa/fast-checks.js';
import { DEDUCED_SCHEMA, DEDUCED_TYPE_REF, loadSmdSchema, type Schema, type TypeRef } from '../../../src/merge/ssa/index.js';
import { typingErrors } from '../../../src/merge/ssa/validate.js';
import { HAS_SHARED, describeShared, sharedPath } from '../../support/shared.js';

interface Typed {
  name: string;
  schema: Schema;
  typeRef: TypeRef;
  value: JsonValue;
}

/** The same value broken in one place, for every container of it (bounded per value). */
function variants(v: JsonValue, limit = 60): JsonValue[] {
  const out: JsonValue[] = [];
  const visit = (x: JsonValue, rebuild: (y: JsonValue) => JsonValue): void => {
    if (out.length >= limit || x === null || typeof x !== 'object') return;
    if (Array.isArray(x)) {
      out.push(rebuild({}), rebuild([...x, null]), rebuild([...x, 'x']), rebuild([...x, {}]));
      if (x.length > 0) out.push(rebuild([...x, x[0]!]), rebuild([...x, [x[0]!]]));
      x.forEach((item, i) => visit(item, (y) => rebuild(x.map((z, j) => (j === i ? y : z)))));
      return;
    }
    out.push(rebuild({ ...x, zzUndeclared: 1 }), rebuild([x]), rebuild('x'), rebuild(7));
    for (const k of Object.keys(x)) {
      const child = x[k]!;
      if (child === null || typeof child !== 'object') {
        out.push(rebuild({ ...x, [k]: typeof child === 'string' ? 1 : 'x' }), rebuild({ ...x, [k]: null }), rebuild({ ...x, [k]: true }));
      }
      visit(child, (y) => rebuild({ ...x, [k]: y }));
    }
  };
  visit(v, (y) => y);
  return out;
}

function expectAgreement(t: Typed): void {
  const node = t.schema.node(t.typeRef);
  for (const allowDuplicates of [true, false]) {
    const reference = typingErrors(t.schema, t.typeRef, t.value, allowDuplicates, undefined);
    expect(typesCleanly(t.schema, node, t.value, allowDuplicates, undefined), `${t.name} typing (duplicates ${allowDuplicates}): ${JSON.stringify(reference)}`).toBe(reference.length === 0);
    // The generic walk stays the reference of the per-node code typesCleanly generates (typing-check.ts).
    expect(typesCleanlyByWalk(t.schema, node, t.value, allowDuplicates, undefined), `${t.name} typing by the walk (duplicates ${allowDuplicates})`).toBe(reference.length === 0);
  }
  expect(typeof node.generatedTypingCheck, `${t.name}: typesCleanly ran generated code`).toBe('function');
  // With a memo: the fast walk records only what the reference would find clean.
  const checked = new CheckedSubtrees(t.schema);
  const fast = typesCleanly(t.schema, node, t.value, true, checked);
  expect(typingErrors(t.schema, t.typeRef, t.value, true, checked).length === 0, `${t.name} typing with memo`).toBe(fast);
  const atomics = atomicPaths(t.schema, t.typeRef, t.value);
  expect(setsNoAtomic(node, t.value), `${t.name} atomic guard: ${atomics.join(', ')}`).toBe(atomics.length === 0);
  const strictlyClean = typingErrors(t.schema, t.typeRef, t.value, false, undefined).length === 0;
  expect(typesStrictlySettingNoAtomic(t.schema, node, t.value), `${t.name} typing and guard in one walk`).toBe(strictlyClean && atomics.length === 0);
  const known = { schema: t.schema, typeRef: t.typeRef };
  const undeclared = undeclaredFieldPaths(known, t.value, undefined);
  expect(declaresEveryField(node, t.value, undefined), `${t.name} strict decode: ${undeclared.join(', ')}`).toBe(undeclared.length === 0);
  const declared = new CheckedSubtrees(t.schema);
  const fastDeclared = declaresEveryField(node, t.value, declared);
  expect(undeclaredFieldPaths(known, t.value, declared).length === 0, `${t.name} strict decode with memo`).toBe(fastDeclared);
}

/**
 * typesCleanlySince and declaresEveryFieldSince against the references, for the copy-on-write edits of a
 * value that types cleanly (duplicates allowed) or declares every field (each variant shares the value's untouched subtrees, as a JSONPatch result shares its input's).
 */
function expectSinceAgreement(t: Typed): void {
  const known = { schema: t.schema, typeRef: t.typeRef };
  const node = t.schema.node(t.typeRef);
  if (typingErrors(t.schema, t.typeRef, t.value, true, undefined).length === 0) {
    for (const [i, value] of [t.value, ...variants(t.value)].entries()) {
      const errors = typingErrors(t.schema, t.typeRef, value, true, undefined);
      expect(typesCleanlySince(t.schema, node, value, t.value, undefined), `${t.name} variant ${i} typing since the value: ${JSON.stringify(errors)}`).toBe(errors.length === 0);
    }
  }
  if (undeclaredFieldPaths(known, t.value, undefined).length > 0) return;
  for (const [i, value] of [t.value, ...variants(t.value)].entries()) {
    const undeclared = undeclaredFieldPaths(known, value, undefined);
    expect(declaresEveryFieldSince(node, value, t.value, undefined), `${t.name} variant ${i} strict decode since the value: ${undeclared.join(', ')}`).toBe(undeclared.length === 0);
  }
}

function withVariants(cases: Typed[]): Typed[] {
  return cases.flatMap((c) => [c, ...variants(c.value).map((value, i) => ({ ...c, name: `${c.name} variant ${i}`, value }))]);
}

function tripletValues(): Typed[] {
  const corpus = JSON.parse(readFileSync(sharedPath('conformance/map/smd-merge/smd-merge-triplets.json'), 'utf8')) as {
    cases: { name: string; rootTypeName: string; schema: unknown; triplets: { lhs: JsonValue; rhs: JsonValue; out?: JsonValue }[] }[];
  };
  const out: Typed[] = [];
  for (const c of corpus.cases) {
    const schema = loadSmdSchema(c.schema);
    if (!schema.ok) throw new Error(`${c.name}: schema does not load`);
    c.triplets.forEach((t, i) => {
      for (const [side, value] of [['lhs', t.lhs], ['rhs', t.rhs], ['out', t.out]] as const) {
        if (value !== undefined) out.push({ name: `${c.name} #${i} ${side}`, schema: schema.value, typeRef: { namedType: c.rootTypeName }, value });
      }
    });
  }
  return out;
}

/** Every object document of the MAP cases whose kind the built-in schema knows, plus the same under the deduced schema. */
function caseObjects(): Typed[] {
  const root = sharedPath('conformance/map');
  const out: Typed[] = [];
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
          const name = `${source.name}/${c.name}/${file}`;
          const known = kindSchema(gvkOf(value));
          if (known) out.push({ name, schema: known.schema, typeRef: known.typeRef, value });
          out.push({ name: `${name} (deduced)`, schema: DEDUCED_SCHEMA, typeRef: DEDUCED_TYPE_REF, value });
        }
      }
    }
  }
  return out;
}

/**
 * The leaves the generated typing check writes inline (typing-check.ts leafTest): every scalar kind, a
 * missing named type, an atom with no form, an unknown scalar kind, at declared fields, map elements and list
 * items, each given a value of every form.
 */
/** Every kind of leaf type: each scalar kind, an unknown one, a missing named type, a formless atom, the deduced type. */
const LEAVES: [string, unknown][] = [
  ['numeric', { scalar: 'numeric' }],
  ['string', { scalar: 'string' }],
  ['boolean', { scalar: 'boolean' }],
  ['untyped', { scalar: 'untyped' }],
  ['odd', { scalar: 'odd' }],
  ['missing', { namedType: 'nowhere' }],
  ['formless', { namedType: 'formless' }],
  ['deduced', { namedType: '__untyped_deduced_' }],
];

describe('fast checks agree with the reference walks on every kind of leaf', () => {
  it('agrees on each leaf given each form of value', () => {
    const fields = LEAVES.flatMap(([name, type]) => [
      { name, type },
      { name: `${name}Map`, type: { map: { elementType: type } } },
      { name: `${name}List`, type: { list: { elementType: type, elementRelationship: 'atomic' } } },
    ]);
    const loaded = loadSmdSchema({ types: [{ name: 'root', map: { fields } }, { name: 'formless' }] });
    if (!loaded.ok) throw new Error('the leaf schema does not load');
    const values: JsonValue[] = [null, 1, 1.5, 'x', '', true, false, [], [1], {}, { a: 1 }];
    const cases: Typed[] = [];
    for (const { name } of fields) {
      for (const [i, v] of values.entries()) {
        const value: JsonValue = name.endsWith('Map') ? { [name]: { k: v } } : name.endsWith('List') ? { [name]: [v] } : { [name]: v };
        cases.push({ name: `${name} given value ${i}`, schema: loaded.value, typeRef: { namedType: 'root' }, value });
      }
    }
    for (const c of cases) expectAgreement(c);
  });

  it('types a scalar met below a patch (typesStrictlyGuarded, fused-apply.ts) as the strict reference does', () => {
    const leaves: [string, unknown][] = [
      ...LEAVES,
      ['map', { map: { elementType: { scalar: 'string' } } }],
      ['list', { list: { elementType: { scalar: 'string' }, elementRelationship: 'atomic' } }],
    ];
    const loaded = loadSmdSchema({ types: [{ name: 'root', map: { fields: leaves.map(([name, type]) => ({ name, type })) } }, { name: 'formless' }] });
    if (!loaded.ok) throw new Error('the leaf schema does not load');
    const schema = loaded.value;
    const root = schema.node({ namedType: 'root' });
    let compared = 0;
    for (const [name] of leaves) {
      const node = root.declaredNode(name)!;
      for (const v of [null, 0, -1, 1.5, 1e21, 'x', '', 'true', true, false] as JsonValue[]) {
        const clean = typingErrors(schema, node.tr, v, false, undefined).length === 0;
        for (const guard of [true, false]) expect(typesStrictlyGuarded(schema, node, v, guard), `${name} given ${JSON.stringify(v)}`).toBe(clean);
        compared++;
      }
    }
    expect(compared).toBe(100);
  });
});

describe('fast checks agree with the reference walks on the benchmark Pods', () => {
  it('agrees on 30 Pods and their broken variants', () => {
    const pod = kindSchema({ group: '', version: 'v1', kind: 'Pod' })!;
    const cases = makePods(30).map((value: JsonObject, i: number) => ({ name: `pod ${i}`, schema: pod.schema, typeRef: pod.typeRef, value }));
    for (const c of withVariants(cases)) expectAgreement(c);
    for (const c of cases) expectSinceAgreement(c);
  });
});

describeShared('fast checks agree with the reference walks on the MAP conformance corpus', () => {
  it('agrees on the SMD merge triplets and their broken variants', () => {
    const cases = withVariants(tripletValues());
    expect(cases.length).toBeGreaterThan(200);
    for (const c of cases) expectAgreement(c);
    for (const c of tripletValues()) expectSinceAgreement(c);
  });

  it('agrees on every object of the MAP cases and their broken variants', () => {
    const cases = caseObjects();
    expect(cases.length).toBeGreaterThan(100);
    for (const c of withVariants(cases)) expectAgreement(c);
    for (const c of cases) expectSinceAgreement(c);
    for (const c of cases) expectSinceAgreement(c);
  });
});

if (!HAS_SHARED) console.warn('[transmute] fast-checks differential test: the MAP corpus is absent, only the benchmark Pods were compared');
