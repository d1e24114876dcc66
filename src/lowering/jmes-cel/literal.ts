/**
 * JSON values as CEL literals. JMESPath numbers are float64; CEL has int and double, and its `==` and `<`
 * compare them across types (Kubernetes enables CrossTypeNumericComparisons), so an integral number is
 * written as an int and anything else as a double. Lists and maps whose members do not share one static
 * type wrap them in dyn(): kube-apiserver enables HomogeneousAggregateLiterals.
 */
import { celString, dyn, frag, type Frag, type SType } from './frag.js';

export function celNumber(n: number): string {
  if (Number.isSafeInteger(n)) return String(n);
  if (!Number.isFinite(n)) throw new Error(`not a JSON number: ${n}`);
  // An integral double beyond 2^53 must not read as an (overflowing) int literal: exponent form.
  const s = Number.isInteger(n) ? n.toExponential() : String(n);
  const [mantissa, exponent] = s.split('e') as [string, string | undefined];
  const m = mantissa.includes('.') ? mantissa : `${mantissa}.0`;
  return exponent === undefined ? m : `${m}e${exponent.replace('+', '')}`;
}

export function literal(value: unknown): Frag {
  return { ...literalFrag(value), lit: { value: value ?? null } };
}

function literalFrag(value: unknown): Frag {
  if (value === null || value === undefined) return frag('null', 'null', { simple: true, atom: true });
  if (typeof value === 'boolean') return frag(String(value), 'bool', { simple: true, atom: true });
  if (typeof value === 'string') return frag(celString(value), 'string', { simple: true, atom: true });
  if (typeof value === 'number') {
    const text = celNumber(value);
    const t: SType = Number.isSafeInteger(value) ? 'int' : 'double';
    return frag(text, t, { simple: true, atom: !text.startsWith('-') });
  }
  if (Array.isArray(value)) {
    const items = value.map(literal);
    return frag(`[${homogeneous(items).join(', ')}]`, 'list', { atom: true, simple: items.length === 0 });
  }
  const entries = Object.entries(value as Record<string, unknown>);
  const vals = homogeneous(entries.map(([, v]) => literal(v)));
  const body = entries.map(([k], i) => `${celString(k)}: ${vals[i]}`).join(', ');
  return frag(`{${body}}`, 'map', { atom: true, simple: entries.length === 0 });
}

/** Members as written, or each wrapped in dyn() when their static types differ (or are containers). */
export function homogeneous(items: Frag[]): string[] {
  const first = items[0]?.t;
  const same = items.every((f) => f.t === first && f.t !== 'list' && f.t !== 'map' && f.t !== 'null' && f.t !== 'dyn');
  return items.map((f) => (same || items.length === 1 ? f.cel : dyn(f)));
}
