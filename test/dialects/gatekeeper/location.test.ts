import { describe, expect, it } from 'vitest';
import { parseLocation, type LocationParseResult } from '../../../grammars/gatekeeper-location.js';
import { goPathString, locationToSegments, nodesEqual, printLocation, type LocationPath } from '../../../src/dialects/gatekeeper/location.js';

function parsed(input: string): LocationPath {
  const r = parseLocation(input);
  if (!r.ok) throw new Error(r.error.message);
  return r.path;
}

function failure(input: string): Extract<LocationParseResult, { ok: false }>['error'] {
  const r = parseLocation(input);
  if (r.ok) throw new Error(`${input} parsed`);
  return r.error;
}

function sameNodes(a: LocationPath, b: LocationPath): boolean {
  return a.length === b.length && a.every((n, i) => nodesEqual(n, b[i]!));
}

describe('gatekeeper location: parser errors', () => {
  it('words errors as upstream and points at the offending token', () => {
    expect(failure('spec.')).toEqual({ kind: 'ErrTrailingSeparator', message: 'trailing separators are forbidden', start: 4, end: 5 });
    expect(failure('spec.containers[name: ].x')).toEqual({
      kind: 'ErrUnexpectedToken',
      message: 'unexpected token: expected key value or glob in listSpec, got: RBRACKET: "]"',
      start: 22,
      end: 23,
    });
    expect(failure('spec.containers[my key: "foo bar"]').message).toBe(
      `unexpected token: expected ':' following keyField my, got: IDENT: "key"`,
    );
    expect(failure('spec.containers[name: foo').message).toBe(`unexpected token: expected ']' following listSpec, got: EOF: ""`);
    expect(failure('spec.containers[name: foo').start).toBe(25);
    expect(failure('a..b').message).toBe('unexpected token: expected field name or eof, got: SEPARATOR: "."');
    expect(failure('a b').message).toBe(`unexpected token: expected '.' or eof, got: IDENT: "b"`);
    expect(failure('spec[bignum: 9223372036854775808]')).toMatchObject({
      kind: 'ErrInvalidInteger',
      message: 'invalid integer: overflow in integer string: 9223372036854775808: parsing key value for key: bignum',
      start: 13,
      end: 32,
    });
  });

  it('stops at a character the scanner rejects, naming it as an ERROR token', () => {
    expect(failure('spec.a/b')).toMatchObject({ message: `unexpected token: expected '.' or eof, got: ERROR: "/"`, start: 6, end: 7 });
    expect(failure('spec."open')).toMatchObject({ message: `unexpected token: expected field name or eof, got: ERROR: "open"`, start: 5 });
  });

  it('parses blank input to the empty path', () => {
    expect(parsed('')).toEqual([]);
    expect(parsed(' \t\n')).toEqual([]);
  });

  it('keeps int64 keys exact, and keeps upstream parseInt64 wrap-around quirk', () => {
    expect(parsed('a[k: 9223372036854775807]')[1]).toMatchObject({ keyValue: 9223372036854775807n });
    // 2e19 wraps past 2^64 back to a positive int64 without the overflow check noticing (parser.go parseInt64).
    expect(parsed('a[k: 20000000000000000000]')[1]).toMatchObject({ keyValue: 20000000000000000000n - 2n ** 64n });
    expect(parsed('a[k: "123"]')[1]).toMatchObject({ keyValue: '123' });
  });
});

describe('gatekeeper location: printing', () => {
  it('prints upstream Path.String() exactly', () => {
    const p = parsed(`spec."this object"["much full": 'of everyone\\'s'].x[n: 0123].y[g: *]`);
    expect(goPathString(p)).toBe('spec."this object"["much full": "of everyone\'s"].x[n: 123].y[g: *]');
    expect(printLocation(p)).toBe(goPathString(p));
  });

  it('quotes what upstream would print bare but cannot reparse, so printing always round-trips', () => {
    for (const name of ['a/b', 'é', 'a\rb', 'x+y', '', '1a', 'back\\slash', 'q"uote', 'a.b']) {
      const p: LocationPath = [
        { type: 'Object', reference: name },
        { type: 'List', keyField: name, keyValue: name, glob: false },
        { type: 'Object', reference: 'z' },
      ];
      expect(sameNodes(parsed(printLocation(p)), p)).toBe(true);
    }
    expect(goPathString([{ type: 'Object', reference: 'a/b' }])).toBe('a/b');
    expect(printLocation([{ type: 'Object', reference: 'a/b' }])).toBe('"a/b"');
  });
});

describe('gatekeeper location: IR segments', () => {
  it('maps Object, keyed and glob nodes one to one', () => {
    const { segments, lossyKeys } = locationToSegments(parsed('spec.containers[name: *].ports[containerPort: 80].x[name: foo]'));
    expect(segments).toEqual([
      { kind: 'field', name: 'spec' },
      { kind: 'field', name: 'containers' },
      { kind: 'keyedGlob', key: 'name' },
      { kind: 'field', name: 'ports' },
      { kind: 'keyed', key: 'containerPort', value: 80, create: true },
      { kind: 'field', name: 'x' },
      { kind: 'keyed', key: 'name', value: 'foo', create: true },
    ]);
    expect(lossyKeys).toEqual([]);
  });

  it('reports int64 keys a JSON number cannot hold', () => {
    const { lossyKeys } = locationToSegments(parsed('a[k: 9007199254740993]'));
    expect(lossyKeys).toHaveLength(1);
    expect(lossyKeys[0]).toMatchObject({ depth: 1, value: 9007199254740993n, stored: 9007199254740992 });
  });
});
