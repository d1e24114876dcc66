/**
 * Kyverno preconditions (the IR keeps them as `kyverno_conditions(`{...}`)` JMESPath) as CEL, for the forms
 * whose meaning in an admission request is plain: keys and values that are literals or `{{ request.operation }}`
 * (also `request.operation || 'BACKGROUND'`, which is the operation in admission mode), compared with
 * Equals/NotEquals and the In family on a scalar key. Anything else is left to the caller to report.
 */
import { celLiteral } from './emit-cel.js';

const WRAPPER = /^kyverno_conditions\(`([\s\S]*)`\)$/;
const OPERATION = /^\{\{\s*request\.operation(\s*\|\|\s*'BACKGROUND')?\s*\}\}$/;

/**
 * `{{ request.object.a.b | keys(@) }}` as the map itself (CEL `in` tests its keys). A missing or null map
 * makes JMESPath's keys() fail, and Kyverno's rule with it; the CEL selection fails alike ("no such key").
 */
const KEYS_OF = /^\{\{\s*request\.object((?:\.[A-Za-z_][A-Za-z0-9_]*)+)\s*\|\s*keys\(@\)\s*\}\}$/;

function operand(v: unknown): string | undefined {
  if (typeof v === 'string') {
    if (OPERATION.test(v)) return 'request.operation';
    const keys = KEYS_OF.exec(v);
    if (keys) return `object${keys[1]}`;
    if (v.includes('{{') || /[*?]/.test(v)) return undefined; // variables, or Kyverno's wildcard matching
    return celLiteral(v);
  }
  if (typeof v === 'number' || typeof v === 'boolean') return celLiteral(v);
  if (Array.isArray(v) && v.every((x) => typeof x === 'string' && !x.includes('{{') && !/[*?]/.test(x))) return celLiteral(v);
  return undefined;
}

function isKeys(v: unknown): boolean {
  return typeof v === 'string' && KEYS_OF.test(v);
}

function condition(c: unknown): string | undefined {
  if (typeof c !== 'object' || c === null || Array.isArray(c)) return undefined;
  const { key, operator, value, ...rest } = c as Record<string, unknown>;
  if (Object.keys(rest).some((k) => k !== 'message')) return undefined;
  const k = operand(key);
  const v = operand(value);
  if (k === undefined || v === undefined || Array.isArray(key)) return undefined;
  if (isKeys(key)) return undefined;
  switch (operator) {
    case 'Equals':
      return Array.isArray(value) || isKeys(value) ? undefined : `${k} == ${v}`;
    case 'NotEquals':
      return Array.isArray(value) || isKeys(value) ? undefined : `${k} != ${v}`;
    case 'In':
    case 'AnyIn':
    case 'AllIn':
      return Array.isArray(value) || isKeys(value) ? `${k} in ${v}` : `${k} == ${v}`;
    case 'NotIn':
    case 'AnyNotIn':
    case 'AllNotIn':
      return Array.isArray(value) || isKeys(value) ? `!(${k} in ${v})` : `${k} != ${v}`;
    default:
      return undefined;
  }
}

export function kyvernoConditionsToCel(jmes: string): string | undefined {
  const m = WRAPPER.exec(jmes.trim());
  if (!m) return undefined;
  let doc: unknown;
  try {
    doc = JSON.parse(m[1]!);
  } catch {
    return undefined;
  }
  if (typeof doc !== 'object' || doc === null || Array.isArray(doc)) return undefined;
  const parts: string[] = [];
  for (const [block, list] of Object.entries(doc)) {
    if ((block !== 'any' && block !== 'all') || !Array.isArray(list) || list.length === 0) return undefined;
    const cs = list.map(condition);
    if (cs.some((x) => x === undefined)) return undefined;
    const joined = cs.length === 1 ? cs[0]! : cs.map((x) => `(${x})`).join(block === 'any' ? ' || ' : ' && ');
    parts.push(parts.length > 0 || Object.keys(doc).length > 1 ? `(${joined})` : joined);
  }
  return parts.length > 0 ? parts.join(' && ') : undefined;
}
