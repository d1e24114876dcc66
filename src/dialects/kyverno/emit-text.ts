/**
 * The small text forms a Kyverno generator writes inside YAML strings: JMESPath field access and literals,
 * JSON pointers, `{{ }}` holes, and escaping of literal `{{` so Kyverno's substitution (vars.go
 * `RegexVariables`, which runs over every string of a rule) leaves literal values alone.
 */
import { isJsonObject, type JsonValue } from '../../ir/json.js';

const IDENT = /^[A-Za-z_][A-Za-z0-9_]*$/;

/** One JMESPath field step: `name` or `"quoted-name"`. */
export function jmesField(name: string): string {
  return IDENT.test(name) ? name : JSON.stringify(name);
}

/** `base.f1.f2` with quoting where the field is not an identifier. */
export function jmesPath(base: string, fields: readonly string[]): string {
  return fields.reduce((acc, f) => `${acc}.${jmesField(f)}`, base);
}

/** A JMESPath literal for a JSON value: raw strings for strings, backtick JSON otherwise. */
export function jmesLiteral(v: JsonValue): string {
  if (typeof v === 'string') return `'${v.replaceAll('\\', '\\\\').replaceAll("'", "\\'")}'`;
  return '`' + JSON.stringify(v).replaceAll('`', '\\`') + '`';
}

/** One JSON pointer token (RFC 6901). */
export function pointerToken(name: string): string {
  return name.replaceAll('~', '~0').replaceAll('/', '~1');
}

/** A `{{ }}` hole around a JMESPath expression. */
export function hole(expr: string): string {
  return `{{ ${expr} }}`;
}

/** Escapes `{{` so Kyverno keeps a literal string as it is (the backslash is dropped after substitution). */
export function escapeLiteralString(s: string): string {
  return s.includes('{{') ? s.replaceAll('{{', '\\{{') : s;
}

/** Escapes every string and map key of a literal JSON value. */
export function escapeLiteral(v: JsonValue): JsonValue {
  if (typeof v === 'string') return escapeLiteralString(v);
  if (Array.isArray(v)) return v.map(escapeLiteral);
  if (isJsonObject(v)) {
    const out: Record<string, JsonValue> = {};
    for (const k of Object.keys(v)) Object.defineProperty(out, escapeLiteralString(k), { value: escapeLiteral(v[k]!), enumerable: true, writable: true, configurable: true });
    return out;
  }
  return v;
}

/** True when some string or key holds `{{` (a literal that needs escaping, or a variable). */
export function mentionsHoles(v: JsonValue): boolean {
  if (typeof v === 'string') return v.includes('{{');
  if (Array.isArray(v)) return v.some(mentionsHoles);
  if (isJsonObject(v)) return Object.keys(v).some((k) => k.includes('{{') || mentionsHoles(v[k]!));
  return false;
}
