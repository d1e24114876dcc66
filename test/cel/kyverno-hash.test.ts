/** Kyverno's CEL `hash` library (kyverno/sdk extensions/cel/libs/hash): hex digests of a string's UTF-8 bytes. */
import { describe, expect, it } from 'vitest';
import { compile } from '../../src/cel/index.js';

function value(expr: string): unknown {
  const p = compile(expr, { variables: ['s'], extraLibraries: ['kyverno'] });
  if (!p.ok) throw new Error(p.diagnostics[0]!.message);
  const r = p.value.eval({ s: null }, {});
  if (!r.ok) throw new Error(r.error);
  return r.value;
}

describe('sha1, sha256, md5 (kyverno.hash)', () => {
  it('are Kyverno functions: absent from the Kubernetes environment', () => {
    for (const expr of ['sha1(s)', 'sha256(s)', 'md5(s)', 'hash.md5(s)']) expect(compile(expr, { variables: ['s'] }).ok).toBe(false);
  });

  it('give the hex digest of the UTF-8 bytes, unprefixed and as hash.*', () => {
    expect(value('sha256("abc")')).toBe('ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad');
    expect(value('sha1("abc")')).toBe('a9993e364706816aba3e25717850c26c9cd0d89d');
    expect(value('md5("abc")')).toBe('900150983cd24fb0d6963f7d28e17f72');
    expect(value('hash.md5("") == md5("")')).toBe(true);
    // UTF-8 bytes c3 a9 (Python hashlib.md5('é'.encode())).
    expect(value('md5("é")')).toBe('66ddcd97cfdeabb2f6fb8a999b4bc76f');
  });
});
