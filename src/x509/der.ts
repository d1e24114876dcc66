/**
 * A minimal DER reader with the strictness of golang.org/x/crypto/cryptobyte (the parser behind Go's
 * crypto/x509): single-byte tags only, definite minimal lengths, minimal INTEGER encodings, OID arcs below
 * 2^31. Every read answers `undefined` on malformed input, as cryptobyte answers false, so callers choose the
 * Go error message.
 */

export const TAG = {
  BOOLEAN: 0x01,
  INTEGER: 0x02,
  BIT_STRING: 0x03,
  OCTET_STRING: 0x04,
  NULL: 0x05,
  OID: 0x06,
  ENUM: 0x0a,
  UTF8String: 0x0c,
  SEQUENCE: 0x30,
  SET: 0x31,
  NumericString: 0x12,
  PrintableString: 0x13,
  T61String: 0x14,
  IA5String: 0x16,
  UTCTime: 0x17,
  GeneralizedTime: 0x18,
  BMPString: 0x1e,
} as const;

/** Context-specific tag n, primitive or constructed (cryptobyte Tag(n).ContextSpecific()[.Constructed()]). */
export function contextTag(n: number, constructed = false): number {
  return 0x80 | (constructed ? 0x20 : 0) | n;
}

export interface BitString {
  bytes: Uint8Array;
  bitLength: number;
}

export interface Element {
  tag: number;
  /** Header and contents. */
  full: Uint8Array;
  contents: Uint8Array;
}

export class DerReader {
  private pos = 0;
  constructor(private readonly data: Uint8Array) {}

  empty(): boolean {
    return this.pos >= this.data.length;
  }

  peekTag(tag: number): boolean {
    return this.pos < this.data.length && this.data[this.pos] === tag;
  }

  /** Any element (cryptobyte ReadAnyASN1Element). */
  readAny(): Element | undefined {
    const d = this.data;
    let p = this.pos;
    if (p + 2 > d.length) return undefined;
    const tag = d[p++]!;
    if ((tag & 0x1f) === 0x1f) return undefined; // high tag numbers are not supported by cryptobyte either
    const first = d[p++]!;
    let length: number;
    if ((first & 0x80) === 0) {
      length = first;
    } else {
      const n = first & 0x7f;
      if (n === 0 || n > 4 || p + n > d.length) return undefined;
      length = 0;
      for (let i = 0; i < n; i++) length = length * 256 + d[p++]!;
      // Not minimal: a long form for a short length, or a leading zero byte.
      if (length < 128 || d[p - n] === 0) return undefined;
    }
    if (p + length > d.length) return undefined;
    const el = { tag, full: d.subarray(this.pos, p + length), contents: d.subarray(p, p + length) };
    this.pos = p + length;
    return el;
  }

  /** The element with this tag, or undefined (cryptobyte ReadASN1Element / ReadASN1). */
  read(tag: number): Element | undefined {
    if (!this.peekTag(tag)) return undefined;
    return this.readAny();
  }

  /** The contents of the next element with this tag, as a reader. */
  enter(tag: number): DerReader | undefined {
    const el = this.read(tag);
    return el && new DerReader(el.contents);
  }

  /** An optional element: null when absent, undefined when malformed. */
  optional(tag: number): Element | null | undefined {
    if (!this.peekTag(tag)) return null;
    return this.readAny();
  }

  readInteger(): bigint | undefined {
    const el = this.read(TAG.INTEGER);
    return el && integerValue(el.contents);
  }

  readBoolean(): boolean | undefined {
    const el = this.read(TAG.BOOLEAN);
    if (!el || el.contents.length !== 1) return undefined;
    const b = el.contents[0];
    return b === 0xff ? true : b === 0 ? false : undefined;
  }

  readOid(): number[] | undefined {
    const el = this.read(TAG.OID);
    return el && oidValue(el.contents);
  }

  readBitString(): BitString | undefined {
    const el = this.read(TAG.BIT_STRING);
    return el && bitStringValue(el.contents);
  }
}

/** cryptobyte checkASN1Integer + two's complement decoding. */
export function integerValue(b: Uint8Array): bigint | undefined {
  if (b.length === 0) return undefined;
  if (b.length > 1 && ((b[0] === 0 && (b[1]! & 0x80) === 0) || (b[0] === 0xff && (b[1]! & 0x80) === 0x80))) return undefined;
  let v = 0n;
  for (const x of b) v = (v << 8n) | BigInt(x);
  if ((b[0]! & 0x80) !== 0) v -= 1n << BigInt(8 * b.length);
  return v;
}

/** cryptobyte ReadASN1ObjectIdentifier: base-128 arcs, minimal, each below 2^31. */
export function oidValue(b: Uint8Array): number[] | undefined {
  if (b.length === 0) return undefined;
  const arcs: number[] = [];
  let i = 0;
  while (i < b.length) {
    let v = 0;
    if (b[i] === 0x80) return undefined; // leading zero group: not minimal
    for (;;) {
      if (i >= b.length) return undefined;
      if (v >= 1 << 24) return undefined;
      const byte = b[i++]!;
      v = v * 128 + (byte & 0x7f);
      if ((byte & 0x80) === 0) break;
    }
    if (arcs.length === 0) {
      if (v < 80) arcs.push(Math.floor(v / 40), v % 40);
      else arcs.push(2, v - 80);
    } else arcs.push(v);
  }
  return arcs;
}

/** cryptobyte ReadASN1BitString: padding bits below 8, zero padding. */
export function bitStringValue(b: Uint8Array): BitString | undefined {
  if (b.length === 0) return undefined;
  const padding = b[0]!;
  if (padding > 7 || (b.length === 1 && padding > 0)) return undefined;
  if (b.length > 1 && (b[b.length - 1]! & ((1 << padding) - 1)) !== 0) return undefined;
  return { bytes: b.subarray(1), bitLength: (b.length - 1) * 8 - padding };
}

/** asn1.BitString.RightAlign: the bits shifted so that padding is at the left. */
export function rightAlign(bs: BitString): Uint8Array {
  const shift = 8 - (bs.bitLength % 8);
  if (shift === 8 || bs.bytes.length === 0) return bs.bytes;
  const out = new Uint8Array(bs.bytes.length);
  out[0] = bs.bytes[0]! >> shift;
  for (let i = 1; i < bs.bytes.length; i++) out[i] = ((bs.bytes[i - 1]! << (8 - shift)) | (bs.bytes[i]! >> shift)) & 0xff;
  return out;
}

export function oidString(arcs: readonly number[]): string {
  return arcs.join('.');
}
