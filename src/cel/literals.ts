/**
 * Decoding of CEL literal tokens as cel-go does it (parser/unescape.go, parser/parser.go VisitInt etc.).
 * Errors are returned as strings so the parser can attach a position.
 */

const INT64_MIN = -(2n ** 63n);
const INT64_MAX = 2n ** 63n - 1n;
const UINT64_MAX = 2n ** 64n - 1n;

/** ints are JS numbers while safe, bigint beyond (see values.ts). */
export function normInt(v: bigint): number | bigint {
  return v >= -9007199254740991n && v <= 9007199254740991n ? Number(v) : v;
}

export function decodeInt(text: string, negative: boolean): number | bigint | string {
  let v: bigint;
  try {
    v = /^0[xX]/.test(text) ? BigInt(text) : BigInt(text);
  } catch {
    return `invalid int literal`;
  }
  if (negative) v = -v;
  if (v < INT64_MIN || v > INT64_MAX) return `invalid int literal`;
  return normInt(v);
}

export function decodeUint(text: string): bigint | string {
  const body = text.slice(0, -1);
  let v: bigint;
  try {
    v = BigInt(body);
  } catch {
    return 'invalid uint literal';
  }
  if (v > UINT64_MAX) return 'invalid uint literal';
  return v;
}

export function decodeDouble(text: string, negative: boolean): number | string {
  const v = Number(text);
  if (Number.isNaN(v)) return 'invalid double literal';
  return negative ? -v : v;
}

const SIMPLE_ESCAPES: Record<string, number> = {
  a: 7,
  b: 8,
  f: 12,
  n: 10,
  r: 13,
  t: 9,
  v: 11,
  '\\': 92,
  "'": 39,
  '"': 34,
  '?': 63,
  '`': 96,
};

const encoder = new TextEncoder();

/**
 * Decode a STRING or BYTES token (with its prefixes and quotes). Returns the string, the bytes,
 * or an error message.
 */
export function decodeQuoted(token: string, isBytes: boolean): { value: string | Uint8Array } | { error: string } {
  let i = 0;
  if (isBytes) i++;
  let raw = false;
  if (token[i] === 'r' || token[i] === 'R') {
    raw = true;
    i++;
  }
  const quote = token[i]!;
  const triple = token.startsWith(quote.repeat(3), i) && token.length - i >= 6;
  const q = triple ? 3 : 1;
  const body = token.slice(i + q, token.length - q);
  if (raw) return { value: isBytes ? encoder.encode(body) : body };
  if (!body.includes('\\')) return { value: isBytes ? encoder.encode(body) : body };

  // Strings collect code points; bytes collect raw byte values (escapes \x and octal are bytes there).
  const bytes: number[] = [];
  let out = '';
  const pushCodePoint = (cp: number): void => {
    if (isBytes) for (const b of encoder.encode(String.fromCodePoint(cp))) bytes.push(b);
    else out += String.fromCodePoint(cp);
  };
  for (let k = 0; k < body.length; ) {
    const c = body.codePointAt(k)!;
    if (c !== 92) {
      pushCodePoint(c);
      k += c > 0xffff ? 2 : 1;
      continue;
    }
    const e = body[k + 1];
    if (e === undefined) return { error: 'unterminated escape sequence' };
    if (e in SIMPLE_ESCAPES) {
      pushCodePoint(SIMPLE_ESCAPES[e]!);
      k += 2;
      continue;
    }
    if (e === 'x' || e === 'X') {
      const h = body.slice(k + 2, k + 4);
      if (!/^[0-9a-fA-F]{2}$/.test(h)) return { error: 'invalid hex escape sequence' };
      const v = parseInt(h, 16);
      if (isBytes) bytes.push(v);
      else out += String.fromCodePoint(v);
      k += 4;
      continue;
    }
    if (e === 'u' || e === 'U') {
      if (isBytes) return { error: 'unicode escape sequences are not allowed in bytes literals' };
      const n = e === 'u' ? 4 : 8;
      const h = body.slice(k + 2, k + 2 + n);
      if (h.length !== n || !/^[0-9a-fA-F]+$/.test(h)) return { error: 'invalid unicode escape sequence' };
      const v = parseInt(h, 16);
      if (v > 0x10ffff || (v >= 0xd800 && v <= 0xdfff)) return { error: 'invalid unicode code point' };
      out += String.fromCodePoint(v);
      k += 2 + n;
      continue;
    }
    if (e >= '0' && e <= '3') {
      const o = body.slice(k + 1, k + 4);
      if (!/^[0-3][0-7]{2}$/.test(o)) return { error: 'invalid octal escape sequence' };
      const v = parseInt(o, 8);
      if (isBytes) bytes.push(v);
      else out += String.fromCodePoint(v);
      k += 4;
      continue;
    }
    return { error: `invalid escape sequence '\\${e}'` };
  }
  return { value: isBytes ? Uint8Array.from(bytes) : out };
}
