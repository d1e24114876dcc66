import { describe, expect, it } from 'vitest';
import type { Path, Segment } from '../../src/ir/path.js';
import { parsePath, printPath } from '../../src/ir/path-text.js';
import { randomPath, rng } from './arbitrary.js';

function parsed(text: string): Path {
  const r = parsePath(text);
  if (!r.ok) throw new Error(r.diagnostics.map((d) => d.message).join('; '));
  return r.value;
}

describe('path text', () => {
  it.each([
    'object',
    'oldObject.metadata.name',
    'request.userInfo.username',
    'params.spec.allowed[0]',
    'namespaceObject.metadata.labels.env',
    'vars.c.image',
    'object.metadata.labels.app!absent',
    'object.spec.containers[name: *]!exists.image',
    'object.spec.containers[name: "nginx"].ports[-1]',
    'object.spec.containers[name == "nginx"]!absent',
    'object.spec.list[-][*][3]!exists',
    'object.metadata.annotations."x/y"',
    'object.a."with space"."a.b"."1st".""',
    'object.__proto__.constructor',
    'object.$ref.a-b._c',
    'object.x["a key": 1.5][k == true][k == null][k: false][k: -3]',
  ])('round-trips %s exactly', (text) => {
    expect(printPath(parsed(text))).toBe(text);
  });

  it('parses every segment kind', () => {
    const p = parsed('object.a[1][-][*][k: "v"][k == 2][k: *]');
    expect(p.root).toBe('object');
    expect(p.segments).toEqual<Segment[]>([
      { kind: 'field', name: 'a' },
      { kind: 'index', index: 1 },
      { kind: 'append' },
      { kind: 'each' },
      { kind: 'keyed', key: 'k', value: 'v', create: true },
      { kind: 'keyed', key: 'k', value: 2, create: false },
      { kind: 'keyedGlob', key: 'k' },
    ]);
  });

  it('maps !exists and !absent to segment tests', () => {
    expect(parsed('object.a!exists.b!absent').segments).toEqual([
      { kind: 'field', name: 'a', test: 'exist' },
      { kind: 'field', name: 'b', test: 'notExist' },
    ]);
  });

  it('quotes names only when needed', () => {
    const seg = (name: string) => printPath({ root: 'object', segments: [{ kind: 'field', name }] });
    expect(seg('plain_name-1')).toBe('object.plain_name-1');
    expect(seg('__proto__')).toBe('object.__proto__');
    expect(seg('a.b')).toBe('object."a.b"');
    expect(seg('a b')).toBe('object."a b"');
    expect(seg('x/y')).toBe('object."x/y"');
    expect(seg('9lives')).toBe('object."9lives"');
    expect(seg('')).toBe('object.""');
    expect(seg('quote"d')).toBe('object."quote\\"d"');
  });

  it('accepts spaces inside brackets but prints the canonical spacing', () => {
    expect(printPath(parsed('object.a[ name :"x" ][ k==1 ][ * ]'))).toBe('object.a[name: "x"][k == 1][*]');
  });

  it.each([
    ['foo.bar', 1, 3, /unknown path root "foo"/],
    ['object. a', 8, 8, /space/],
    ['object.a[1.5]', 10, 12, /integer/],
    ['object.a[-]!exists', 12, 18, /cannot follow/],
    ['object.a[k: v]', 13, 13, /JSON scalar/],
    ['object.a[', 9, 9, /end of path/],
    ['object.a#', 9, 9, /unexpected character "#"/],
    ['object.a.', 9, 9, /end of path/],
    ['object.a[*]!absent', 12, 18, /cannot follow an each/],
  ])('reports %s at columns %i-%i', (text, col, endCol, message) => {
    const r = parsePath(text);
    expect(r.ok).toBe(false);
    const d = r.diagnostics[0]!;
    expect(d.code).toBe('TM2006');
    expect(d.message).toMatch(message);
    expect([d.span?.col, d.span?.endCol]).toEqual([col, endCol]);
  });

  it('places errors with the locate callback', () => {
    const r = parsePath('object.a[x]', (offset) => ({ file: 'f.yaml', line: 7, col: 20 + offset, endLine: 7, endCol: 20 + offset }));
    expect(r.ok).toBe(false);
    expect(r.diagnostics[0]!.span).toEqual({ file: 'f.yaml', line: 7, col: 30, endLine: 7, endCol: 30 });
  });

  it('round-trips random paths (print . parse . print is print)', () => {
    const random = rng(42);
    for (let i = 0; i < 500; i++) {
      const p = randomPath(random);
      const text = printPath(p);
      const back = parsed(text);
      expect(back).toEqual({ root: p.root, segments: p.segments });
      expect(printPath(back)).toBe(text);
    }
  });
});
