import { describe, expect, it } from 'vitest';
import { applyPatch, type PatchStep } from '../../src/jsonpatch/apply.js';
import type { JsonValue } from '../../src/ir/json.js';

const v4 = (doc: JsonValue, ...steps: PatchStep[]) => applyPatch(doc, steps.map((s) => ({ hasValue: 'value' in s, ...s })), 'evanphx-v4');
const ok = (doc: JsonValue, ...steps: PatchStep[]) => {
  const r = v4(doc, ...steps);
  if (!r.ok) throw new Error(r.message);
  return r.doc;
};
const err = (doc: JsonValue, ...steps: PatchStep[]) => {
  const r = v4(doc, ...steps);
  if (r.ok) throw new Error('expected an error');
  return r;
};

describe('evanphx json-patch v4 profile (kube-apiserver MAP)', () => {
  it('replace of a missing object member adds it', () => {
    expect(ok({ a: {} }, { op: 'replace', path: '/a/b', value: 1 })).toEqual({ a: { b: 1 } });
  });

  it('replace of "-" in a list is a missing key', () => {
    expect(err({ l: [1] }, { op: 'replace', path: '/l/-', value: 2 }).message).toBe('replace operation does not apply: doc is missing key: /l/-: missing value');
  });

  it('negative indices count from the end; -1 on add appends', () => {
    expect(ok({ l: [1, 2] }, { op: 'add', path: '/l/-1', value: 3 })).toEqual({ l: [1, 2, 3] });
    expect(ok({ l: [1, 2] }, { op: 'remove', path: '/l/-1' })).toEqual({ l: [1] });
    expect(ok({ l: [1, 2] }, { op: 'replace', path: '/l/-2', value: 0 })).toEqual({ l: [0, 2] });
    expect(err({ l: [1, 2] }, { op: 'add', path: '/l/-4', value: 0 }).message).toBe("error in add for path: '/l/-4': Unable to access invalid index: -4: invalid index referenced");
  });

  it('drops the first path segment unchecked', () => {
    expect(ok({ replicas: 1, spec: {} }, { op: 'replace', path: 'spec/replicas', value: 2 })).toEqual({ replicas: 2, spec: {} });
  });

  it('missing or null intermediate segments are a missing path, with upstream words', () => {
    expect(err({ a: null }, { op: 'add', path: '/a/b', value: 1 }).message).toBe('add operation does not apply: doc is missing path: "/a/b": missing value');
    expect(err({}, { op: 'replace', path: '/a/b', value: 1 }).message).toBe('replace operation does not apply: doc is missing path: /a/b: missing value');
  });

  it('remove of a missing member fails', () => {
    expect(err({ a: {} }, { op: 'remove', path: '/a/x' }).message).toBe("error in remove for path: '/a/x': Unable to remove nonexistent key: x: missing value");
  });

  it('copy of a missing member copies null; move of one fails on the remove', () => {
    expect(ok({ a: {} }, { op: 'copy', from: '/a/x', path: '/a/y' })).toEqual({ a: { y: null } });
    expect(err({ a: {} }, { op: 'move', from: '/a/x', path: '/a/y' }).message).toBe("error in move for path: 'x': Unable to remove nonexistent key: x: missing value");
  });

  it('a failed test is reported as such and aborts the whole patch', () => {
    const r = err({ a: 1 }, { op: 'add', path: '/b', value: 2 }, { op: 'test', path: '/a', value: 2 });
    expect(r.kind).toBe('testFailed');
    expect(r.message).toBe('testing value /a failed: test failed');
  });

  it('test: a missing target fails even against null; empty containers equal null', () => {
    expect(err({}, { op: 'test', path: '/a', value: null }).kind).toBe('testFailed');
    expect(ok({ a: {} }, { op: 'test', path: '/a', value: null })).toEqual({ a: {} });
    expect(ok({ a: [] }, { op: 'test', path: '/a', value: null })).toEqual({ a: [] });
    expect(err({ a: 'x' }, { op: 'test', path: '/a', value: null }).kind).toBe('testFailed');
    expect(ok({ a: { b: [1, 'x'] } }, { op: 'test', path: '/a', value: { b: [1, 'x'] } })).toEqual({ a: { b: [1, 'x'] } });
  });

  it('test: scalars compare as JSON bytes; HTML-escaped document strings never match', () => {
    expect(err({ a: 1 }, { op: 'test', path: '/a', value: '1' }).kind).toBe('testFailed');
    expect(err({ a: 'a<b' }, { op: 'test', path: '/a', value: 'a<b' }).kind).toBe('testFailed');
  });

  it('replace of the whole document with a scalar is silently ignored', () => {
    expect(ok({ a: 1 }, { op: 'replace', path: '', value: 3 })).toEqual({ a: 1 });
    expect(ok({ a: 1 }, { op: 'replace', path: '', value: { b: 2 } })).toEqual({ b: 2 });
  });

  it('unknown ops and bad indices use the library words', () => {
    expect(err({}, { op: 'bogus', path: '/a' }).message).toBe('Unexpected kind: bogus');
    expect(err({ l: [] }, { op: 'add', path: '/l/x', value: 1 }).message).toBe(
      `error in add for path: '/l/x': value was not a proper array index: 'x': strconv.Atoi: parsing "x": invalid syntax`,
    );
  });

  it('never mutates its input and shares untouched parts', () => {
    const doc = { a: { x: 1 }, b: { y: 2 } };
    const out = ok(doc, { op: 'add', path: '/a/z', value: 3 }) as { a: unknown; b: unknown };
    expect(doc).toEqual({ a: { x: 1 }, b: { y: 2 } });
    expect(out.b).toBe(doc.b);
  });
});

describe('evanphx v4: decoded paths are reused across patches', () => {
  it('the same escaped path gives the same result every time, and distinct paths stay distinct', () => {
    const doc = { metadata: { annotations: { 'a/b': 'x', 'a~b': 'y' } } };
    for (let i = 0; i < 3; i++) {
      const r = v4(
        doc,
        { op: 'replace', path: '/metadata/annotations/a~1b', value: `s${i}` },
        { op: 'add', path: '/metadata/annotations/a~0b', value: `t${i}` },
      );
      expect(r).toStrictEqual({ ok: true, doc: { metadata: { annotations: { 'a/b': `s${i}`, 'a~b': `t${i}` } } } });
    }
    expect(doc).toStrictEqual({ metadata: { annotations: { 'a/b': 'x', 'a~b': 'y' } } });
  });

  it('a failing add still words its error with the path', () => {
    const r = v4({ a: [1] }, { op: 'add', path: '/a/x', value: 1 });
    expect(r.ok).toBe(false);
    if (!r.ok) expect(r.message).toBe(`error in add for path: '/a/x': value was not a proper array index: 'x': strconv.Atoi: parsing "x": invalid syntax`);
  });
});
