/**
 * Kubernetes resource.Quantity as Kyverno's arithmetic uses it (k8s.io/apimachinery
 * pkg/api/resource/quantity.go): parsing with suffixes, exact decimal arithmetic, and the canonical
 * String() form ("1536Mi", "500m", "1e3"). Values are `unscaled × 10^scale` in BigInt, keeping the
 * unnormalised scale Go keeps, because QuoRound's precision depends on it.
 */
export type QuantityFormat = 'DecimalSI' | 'BinarySI' | 'DecimalExponent';

export interface Quantity {
  unscaled: bigint;
  scale: number;
  format: QuantityFormat;
}

const DEC_SUFFIX: Record<string, number> = { n: -9, u: -6, m: -3, '': 0, k: 3, M: 6, G: 9, T: 12, P: 15, E: 18 };
const BIN_SUFFIX: Record<string, number> = { Ki: 10, Mi: 20, Gi: 30, Ti: 40, Pi: 50, Ei: 60 };
const DEC_SUFFIX_BY_EXP = new Map(Object.entries(DEC_SUFFIX).map(([k, v]) => [v, k]));
const BIN_SUFFIX_BY_EXP = new Map<number, string>([[0, ''], ...Object.entries(BIN_SUFFIX).map(([k, v]) => [v, k] as [number, string])]);

/**
 * Whether a quantity (the pattern below: sign, digits, `.`, then suffix letters and exponent) may start with
 * this character: most strings an operator meets are words, rejected here without running the pattern.
 */
function mayStartQuantity(c: number): boolean {
  // + - . 0-9
  if (c === 43 || c === 45 || c === 46 || (c >= 48 && c <= 57)) return true;
  // the suffix letters e E i n u m k K M G T P
  return c === 101 || c === 69 || c === 105 || c === 110 || c === 117 || c === 109 || c === 107 || c === 75 || c === 77 || c === 71 || c === 84 || c === 80;
}

function pow10(n: number): bigint {
  return 10n ** BigInt(n);
}

/** quantity.go parseQuantityString + ParseQuantity; undefined when the text is not a quantity. */
export function parseQuantity(str: string): Quantity | undefined {
  if (str.length === 0 || !mayStartQuantity(str.charCodeAt(0))) return undefined;
  const m = /^([+-]?)(\d*)(?:\.(\d*))?([eEinumkKMGTP]*)([+-]?\d*)$/.exec(str);
  if (!m) return undefined;
  const [, sign, numRaw, denomRaw, suffixLetters, suffixTail] = m;
  // Go accepts a bare sign or suffix ("-", "Ki", "m") as zero; so do we.
  const suffix = suffixLetters! + suffixTail!;
  let base: 2 | 10;
  let exponent: number;
  let format: QuantityFormat;
  if (suffix in DEC_SUFFIX) {
    base = 10;
    exponent = DEC_SUFFIX[suffix]!;
    format = 'DecimalSI';
  } else if (suffix in BIN_SUFFIX) {
    base = 2;
    exponent = BIN_SUFFIX[suffix]!;
    format = 'BinarySI';
  } else if (suffix.length > 1 && (suffix[0] === 'e' || suffix[0] === 'E') && /^[+-]?\d+$/.test(suffix.slice(1))) {
    base = 10;
    exponent = Number(suffix.slice(1));
    format = 'DecimalExponent';
    // Guard against unbounded BigInt work; such values are absurd for Kubernetes resources.
    if (Math.abs(exponent) > 4096) return undefined;
  } else {
    return undefined;
  }
  const num = (numRaw ?? '').replace(/^0+/, '') || '0';
  const denom = denomRaw ?? '';
  let unscaled = BigInt(num + denom);
  let scale = -denom.length;
  if (base === 10) scale += exponent;
  else unscaled *= 1n << BigInt(exponent);
  if (sign === '-') unscaled = -unscaled;
  // Non-zero values are rounded up (away from zero) to nano precision.
  if (unscaled !== 0n && scale < -9) {
    const div = pow10(-9 - scale);
    const q = unscaled / div;
    unscaled = q * div === unscaled ? q : q + (unscaled < 0n ? -1n : 1n);
    scale = -9;
  }
  if (format === 'BinarySI' && unscaled !== 0n && absCompareOne({ unscaled, scale }) < 0) format = 'DecimalSI';
  return { unscaled, scale, format };
}

function absCompareOne(q: { unscaled: bigint; scale: number }): number {
  const a = q.unscaled < 0n ? -q.unscaled : q.unscaled;
  if (q.scale >= 0) return a * pow10(q.scale) < 1n ? -1 : a * pow10(q.scale) === 1n ? 0 : 1;
  const one = pow10(-q.scale);
  return a < one ? -1 : a === one ? 0 : 1;
}

function align(a: Quantity, b: Quantity): [bigint, bigint, number] {
  const s = Math.min(a.scale, b.scale);
  return [a.unscaled * pow10(a.scale - s), b.unscaled * pow10(b.scale - s), s];
}

/** Quantity.Add / Sub: the receiver's format wins unless the receiver is zero. */
export function addQuantities(a: Quantity, b: Quantity, negate = false): Quantity {
  const [x, y, scale] = align(a, b);
  return { unscaled: negate ? x - y : x + y, scale, format: a.unscaled === 0n ? b.format : a.format };
}

export function multiplyQuantities(a: Quantity, b: Quantity): Quantity {
  return { unscaled: a.unscaled * b.unscaled, scale: a.scale + b.scale, format: a.format };
}

/** inf.Dec QuoRound(a, b, max(decimal places of a, b), RoundDown), in a's format. */
export function divideQuantityRoundDown(a: Quantity, b: Quantity): Quantity {
  const places = Math.max(-a.scale, -b.scale);
  const k = a.scale - b.scale + places;
  const num = k >= 0 ? a.unscaled * pow10(k) : a.unscaled;
  const den = k >= 0 ? b.unscaled : b.unscaled * pow10(-k);
  return { unscaled: num / den, scale: -places, format: a.format };
}

export function quantityToFloat(q: Quantity): number {
  return Number(`${q.unscaled}e${q.scale}`);
}

export function quantityFromInteger(n: bigint, format: QuantityFormat): Quantity {
  return { unscaled: n, scale: 0, format };
}

function isInteger(q: Quantity): boolean {
  return q.scale >= 0 || q.unscaled % pow10(-q.scale) === 0n;
}

function integerValue(q: Quantity): bigint {
  return q.scale >= 0 ? q.unscaled * pow10(q.scale) : q.unscaled / pow10(-q.scale);
}

/** Quantity.String (CanonicalizeBytes). */
export function formatQuantity(q: Quantity): string {
  if (q.unscaled === 0n) return '0';
  let format = q.format;
  if (format === 'BinarySI') {
    const v = isInteger(q) ? integerValue(q) : undefined;
    if (v === undefined || (v > -1024n && v < 1024n)) format = 'DecimalSI';
    else {
      let amount = v;
      let exp = 0;
      while (amount % 1024n === 0n && exp < 60) {
        amount /= 1024n;
        exp += 10;
      }
      return `${amount}${BIN_SUFFIX_BY_EXP.get(exp) ?? ''}`;
    }
  }
  let mantissa = q.unscaled;
  let exponent = q.scale;
  while (mantissa % 10n === 0n) {
    mantissa /= 10n;
    exponent++;
  }
  const r = ((exponent % 3) + 3) % 3;
  mantissa *= pow10(r);
  exponent -= r;
  if (format === 'DecimalExponent') return exponent === 0 ? `${mantissa}` : `${mantissa}e${exponent}`;
  const suffix = DEC_SUFFIX_BY_EXP.get(exponent);
  return suffix === undefined ? `${mantissa}e${exponent}` : `${mantissa}${suffix}`;
}
