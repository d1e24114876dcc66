import { expect, it } from 'vitest';
import type { JsonValue } from '../../../src/ir/json.js';
import { CheckedSubtrees, DEDUCED_SCHEMA, formatValidationErrors, validateTyped } from '../../../src/merge/ssa/index.js';
import { describeShared } from '../../support/shared.js';
import { mulberry32, pick } from '../../support/random.js';
import { builtinSchema } from './support.js';

const POD = { namedType: 'io.k8s.api.core.v1.Pod' };

function container(name: string, extra: Record<string, JsonValue> = {}): JsonValue {
  return { name, image: 'i', ports: [{ containerPort: 80, protocol: 'TCP' }], resources: { limits: { cpu: '1', memory: '1Gi' } }, ...extra };
}

/** The memo of subtrees typed in one evaluation (checked.ts) skips work, never errors. */
describeShared('validateTyped with a CheckedSubtrees memo', () => {
  const pod = (containers: JsonValue[]): JsonValue => ({ apiVersion: 'v1', kind: 'Pod', metadata: { name: 'p', labels: { a: 'b' } }, spec: { containers } });

  it('gives the same errors as without the memo, for valid and invalid documents sharing subtrees', () => {
    const schema = builtinSchema();
    const memo = new CheckedSubtrees(schema);
    const good = container('app');
    const bad = container('bad', { bogus: true, ports: [{ containerPort: 'x' }] });
    const docs = [pod([good]), pod([good, bad]), pod([bad, good]), pod([good]), pod([good, good])];
    for (const doc of docs) {
      const plain = validateTyped(schema, POD, doc, { allowDuplicates: true });
      const memoized = validateTyped(schema, POD, doc, { allowDuplicates: true, checked: memo });
      expect(memoized).toStrictEqual(plain);
    }
    expect(formatValidationErrors(validateTyped(schema, POD, pod([bad]), { allowDuplicates: true, checked: memo }))).toContain('bogus');
    // Only valid documents are remembered, with the type they were checked as.
    expect(memo.isValid(POD, docs[0] as object)).toBe(true);
    expect(memo.isValid(POD, docs[1] as object)).toBe(false);
  });

  it('is ignored for strict validation and for another schema', () => {
    const schema = builtinSchema();
    const memo = new CheckedSubtrees(schema);
    const doc = pod([container('a'), container('a')]);
    expect(validateTyped(schema, POD, doc, { allowDuplicates: true, checked: memo })).toStrictEqual([]);
    // Duplicate keys are errors when strict, memo or not.
    expect(validateTyped(schema, POD, doc, { checked: memo }).length).toBeGreaterThan(0);
  });
});

it('CheckedSubtrees answers per type: a container valid as one type is unknown as another', () => {
  const memo = new CheckedSubtrees(DEDUCED_SCHEMA);
  const v = {};
  const a = { namedType: 'a' };
  const b = { namedType: 'b' };
  memo.markValid(a, v);
  expect(memo.isValid(a, v)).toBe(true);
  expect(memo.isValid(b, v)).toBe(false);
  expect(memo.isDeclared(a, v)).toBe(true);
  memo.markDeclared(b, {});
  expect(memo.isDeclared(b, v)).toBe(false);
});

/**
 * The facts CheckedSubtrees keeps (its first container in fields, the rest in a map) against a plain map of
 * the same facts: random marks and forgets over a few containers and types, every answer compared.
 */
it('CheckedSubtrees answers as a plain map of its facts would, through marks and forgets', () => {
  const types = [{ namedType: 'a' }, { namedType: 'b' }];
  const containers: object[] = [{}, {}, {}, []];
  for (let seed = 1; seed <= 40; seed++) {
    const r = mulberry32(seed);
    const memo = new CheckedSubtrees(DEDUCED_SCHEMA);
    // The reference: per container, 'valid' or 'declared' at one type (a mark replaces, as documented).
    const model = new Map<object, { tr: object; valid: boolean }>();
    expect(memo.knowsNothing()).toBe(true);
    for (let step = 0; step < 60; step++) {
      const v = pick(r, containers);
      const tr = pick(r, types);
      const action = r();
      if (action < 0.35) {
        memo.markValid(tr, v);
        model.set(v, { tr, valid: true });
      } else if (action < 0.7) {
        memo.markDeclared(tr, v);
        const had = model.get(v);
        if (!(had?.valid === true && had.tr === tr)) model.set(v, { tr, valid: false });
      } else {
        memo.forget(v);
        model.delete(v);
      }
      for (const c of containers) {
        for (const t of types) {
          const fact = model.get(c);
          const where = `seed ${seed} step ${step}`;
          expect(memo.isValid(t, c), where).toBe(fact !== undefined && fact.valid && fact.tr === t);
          expect(memo.isDeclared(t, c), where).toBe(fact !== undefined && fact.tr === t);
        }
      }
    }
  }
});

it('CheckedSubtrees forgets a changed document recorded last', () => {
  const memo = new CheckedSubtrees(DEDUCED_SCHEMA);
  const tr = { namedType: 'a' };
  const doc = {};
  memo.noteValidDocument(tr, doc);
  expect(memo.validDocument(tr)).toBe(doc);
  expect(memo.declaredDocument(tr)).toBe(doc);
  expect(memo.validDocument({ namedType: 'b' })).toBeUndefined();
  memo.forget(doc);
  expect(memo.validDocument(tr)).toBeUndefined();
  expect(memo.declaredDocument(tr)).toBeUndefined();
  memo.noteDeclaredDocument(tr, doc);
  expect(memo.validDocument(tr)).toBeUndefined();
  expect(memo.declaredDocument(tr)).toBe(doc);
});
