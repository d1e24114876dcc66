/**
 * Kyverno's patchesJson6902 flavour: evanphx/json-patch v5.9.11 with SupportNegativeIndices,
 * AllowMissingPathOnRemove and EnsurePathExistsOnAdd. Expectations worked out from upstream patch.go
 * (ensurePathExists, partialArray.add/remove, Patch.test), written here from that reading.
 */
import { describe, expect, it } from 'vitest';
import { applyPatch, type PatchStep } from '../../src/jsonpatch/apply.js';
import type { JsonValue } from '../../src/ir/json.js';

const v5 = (doc: JsonValue, ...steps: PatchStep[]) => applyPatch(doc, steps.map((s) => ({ hasValue: 'value' in s, ...s })), 'kyverno');
const ok = (doc: JsonValue, ...steps: PatchStep[]) => {
  const r = v5(doc, ...steps);
  if (!r.ok) throw new Error(r.message);
  return r.doc;
};
const err = (doc: JsonValue, ...steps: PatchStep[]) => {
  const r = v5(doc, ...steps);
  if (r.ok) throw new Error(`expected an error, got ${JSON.stringify(r.doc)}`);
  return r;
};

describe('evanphx json-patch v5 as Kyverno applies it', () => {
  it('add through missing objects and -1 tokens creates every object and array (issue 15.1)', () => {
    expect(ok({ spec: {} }, { op: 'add', path: '/spec/a/b/-1/c/-1', value: 'x' })).toEqual({ spec: { a: { b: [{ c: ['x'] }] } } });
    // "-" in the middle: ensurePathExists appends a container, but findObject cannot read "-" as an index.
    expect(err({}, { op: 'add', path: '/a/-/b', value: 1 }).message).toBe('add operation does not apply: doc is missing path: "/a/-/b": missing value');
  });

  it('a numeric token after a missing parent makes an array padded with nulls up to it', () => {
    expect(ok({}, { op: 'add', path: '/list/2', value: 'v' })).toEqual({ list: [null, null, 'v'] });
    expect(ok({}, { op: 'add', path: '/list/1/name', value: 'v' })).toEqual({ list: [null, { name: 'v' }] });
    // strconv.Atoi reads "+1" and "01" as 1.
    expect(ok({}, { op: 'add', path: '/list/+1', value: 'v' })).toEqual({ list: [null, 'v'] });
  });

  it('an existing array too short for a middle token is padded; a missing slot gets a container inserted', () => {
    expect(ok({ l: [1] }, { op: 'add', path: '/l/3/x', value: 2 })).toEqual({ l: [1, null, null, { x: 2 }] });
    // A null element is nil: the new object is inserted before it (partialArray.add inserts).
    expect(ok({ l: [null] }, { op: 'add', path: '/l/0/x', value: 2 })).toEqual({ l: [{ x: 2 }, null] });
    expect(ok({ l: [] }, { op: 'add', path: '/l/-1/x', value: 2 })).toEqual({ l: [{ x: 2 }] });
    expect(ok({ l: [{ a: 1 }] }, { op: 'add', path: '/l/-1/x', value: 2 })).toEqual({ l: [{ a: 1, x: 2 }] });
  });

  it('a document null along the path is replaced; a null the patch wrote is invalid state', () => {
    expect(ok({ a: null }, { op: 'add', path: '/a/b', value: 1 })).toEqual({ a: { b: 1 } });
    expect(err({}, { op: 'add', path: '/a', value: null }, { op: 'add', path: '/a/b', value: 1 }).message).toBe('invalid state detected');
    expect(err({ a: 'text' }, { op: 'add', path: '/a/b', value: 1 }).message).toBe('invalid state detected');
  });

  it('a negative token below -1 after a missing parent refuses', () => {
    expect(err({}, { op: 'add', path: '/a/-2', value: 1 }).message).toBe('Unable to ensure path for negative index other than -1: -2: invalid index referenced');
  });

  it('negative indices: -1 appends on add, addresses the last element elsewhere; beyond the end refuses', () => {
    expect(ok({ l: [1, 2] }, { op: 'add', path: '/l/-1', value: 3 })).toEqual({ l: [1, 2, 3] });
    expect(ok({ l: [1, 2] }, { op: 'add', path: '/l/-2', value: 3 })).toEqual({ l: [1, 3, 2] });
    expect(ok({ l: [1, 2] }, { op: 'replace', path: '/l/-1', value: 0 })).toEqual({ l: [1, 0] });
    expect(ok({ l: [1, 2] }, { op: 'remove', path: '/l/-2' })).toEqual({ l: [2] });
    expect(err({ l: [1] }, { op: 'add', path: '/l/5', value: 0 }).message).toBe("error in add for path: '/l/5': Unable to access invalid index: 5: invalid index referenced");
  });

  it('remove of a missing member, path or index does nothing', () => {
    const doc = { a: { b: 1 }, l: [1] };
    expect(ok(doc, { op: 'remove', path: '/a/c' })).toEqual(doc);
    expect(ok(doc, { op: 'remove', path: '/x/y/z' })).toEqual(doc);
    expect(ok(doc, { op: 'remove', path: '/l/4' })).toEqual(doc);
    expect(ok(doc, { op: 'remove', path: '/l/-4' })).toEqual(doc);
    expect(err(doc, { op: 'remove', path: '/l/x' }).message).toBe(`error in remove for path: '/l/x': strconv.Atoi: parsing "x": invalid syntax`);
  });

  it('replace of a missing member fails; test compares as the library does', () => {
    expect(err({ a: {} }, { op: 'replace', path: '/a/b', value: 1 }).message).toBe('replace operation does not apply: doc is missing key: /a/b: missing value');
    expect(ok({ a: {} }, { op: 'test', path: '/a/b', value: null })).toEqual({ a: {} });
    expect(ok({ a: {} }, { op: 'test', path: '/a/b' })).toEqual({ a: {} });
    expect(err({ a: { b: 1 } }, { op: 'test', path: '/a/b', value: 2 }).kind).toBe('testFailed');
    expect(ok({ a: { b: [1, 'x'] } }, { op: 'test', path: '/a', value: { b: [1, 'x'] } })).toEqual({ a: { b: [1, 'x'] } });
    expect(err({ a: [null] }, { op: 'test', path: '/a', value: [1] }).message).toBe('runtime error: invalid memory address or nil pointer dereference');
  });

  it('move and copy do not create parents', () => {
    expect(ok({ a: 1 }, { op: 'move', from: '/a', path: '/b' })).toEqual({ b: 1 });
    expect(err({ a: 1 }, { op: 'copy', from: '/a', path: '/x/y' }).message).toBe('copy operation does not apply: doc is missing destination path: /x/y: missing value');
    const copied = ok({ a: { n: 1 } }, { op: 'copy', from: '/a', path: '/b' }, { op: 'add', path: '/b/m', value: 2 });
    expect(copied).toEqual({ a: { n: 1 }, b: { n: 1, m: 2 } });
  });

  it('an invalid operation is refused before anything is applied', () => {
    expect(err({}, { op: 'add', path: '/a' }).message).toBe(`failed to decode patches: invalid operation {"op":"add","path":"/a"}: failed to decode 'value': operation, missing value field: missing value`);
    expect(err({}, { op: 'frob', path: '/a' }).message).toMatch(/unsupported operation$/);
  });

  it('never mutates the input and shares what it did not touch', () => {
    const doc = { a: { b: 1 }, c: { d: [1] } };
    const frozen = JSON.stringify(doc);
    const out = ok(doc, { op: 'add', path: '/a/x/-1', value: 2 }, { op: 'add', path: '/z', value: null }) as Record<string, unknown>;
    expect(JSON.stringify(doc)).toBe(frozen);
    expect(out).toEqual({ a: { b: 1, x: [2] }, c: { d: [1] }, z: null });
    expect(out.c).toBe(doc.c);
  });
});
