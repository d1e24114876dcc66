/**
 * Paths and values in the `ir` YAML dialect:
 *   value: <any JSON>                       a literal
 *   valueFrom: {ref: <path>} | {fromMetadata: name|namespace} | {cel: <expr>} | {jmes: <expr>}
 *            | {template: "…{{ jmes }}…" | [text | {jmes: expr}]}
 *            | {external: {provider, source, failurePolicy, default?}} | {value: <any JSON>}
 *            | {templated: {language: kyverno, value: <any JSON with {{ }} in strings and keys>}}
 *   values: [<JSON>…]  or  valuesFrom: [<valueFrom>…]
 */
import { hasOwn, type JsonObject, type JsonValue } from '../../ir/json.js';
import type { ExprSource, ExternalValue, TemplatePart, Value } from '../../ir/nodes.js';
import type { Path } from '../../ir/path.js';
import { parsePath } from '../../ir/path-text.js';
import type { YamlPath } from '../../io/source.js';
import type { Reader } from './reader.js';
import { parseTemplateText } from './template.js';

export const VALUE_FROM_KEYS = ['value', 'ref', 'fromMetadata', 'cel', 'jmes', 'template', 'templated', 'external'] as const;

export function readPath(r: Reader, v: JsonValue | undefined, at: YamlPath, what: string): Path | undefined {
  const text = r.string(v, at, what);
  if (text === undefined) return undefined;
  const parsed = parsePath(text, (offset) => r.loc.spanInString(at, offset, offset + 1));
  if (!parsed.ok) {
    for (const d of parsed.diagnostics) r.diagnostics.push({ ...d, dialect: r.dialect });
    return undefined;
  }
  return { root: parsed.value.root, segments: parsed.value.segments, origin: r.origin(at) };
}

export function readExpr(r: Reader, v: JsonValue | undefined, at: YamlPath, what: string): ExprSource | undefined {
  const text = r.string(v, at, what);
  if (text === undefined) return undefined;
  return { text, origin: { ...r.loc.spanInString(at, 0, Math.max(1, text.length)), dialect: r.dialect } };
}

/** The value of a node that has exactly one of `value` / `valueFrom`. */
export function readValueField(r: Reader, o: JsonObject, at: YamlPath, what: string): Value | undefined {
  const hasValue = hasOwn(o, 'value');
  const hasFrom = hasOwn(o, 'valueFrom');
  if (hasValue && hasFrom) {
    r.error(at, `${what} has both "value" and "valueFrom"; exactly one is allowed`);
    return undefined;
  }
  if (hasValue) return { kind: 'literal', json: o.value!, origin: r.origin([...at, 'value']) };
  if (hasFrom) return readValueFrom(r, o.valueFrom, [...at, 'valueFrom']);
  r.error(at, `${what} is missing "value" or "valueFrom"`, 'TM2005');
  return undefined;
}

/** The values of a node that has exactly one of `values` / `valuesFrom`. */
export function readValuesField(r: Reader, o: JsonObject, at: YamlPath, what: string): Value[] | undefined {
  const hasValues = hasOwn(o, 'values');
  const hasFrom = hasOwn(o, 'valuesFrom');
  if (hasValues && hasFrom) {
    r.error(at, `${what} has both "values" and "valuesFrom"; exactly one is allowed`);
    return undefined;
  }
  if (hasValues) {
    const p = [...at, 'values'];
    const xs = r.list(o.values, p, `${what}.values`);
    return xs?.map((json, i): Value => ({ kind: 'literal', json, origin: r.origin([...p, i]) }));
  }
  if (hasFrom) return r.listOf(o.valuesFrom, [...at, 'valuesFrom'], `${what}.valuesFrom`, (x, p) => readValueFrom(r, x, p));
  r.error(at, `${what} is missing "values" or "valuesFrom"`, 'TM2005');
  return undefined;
}

export function readValueFrom(r: Reader, v: JsonValue | undefined, at: YamlPath): Value | undefined {
  const o = r.object(v, at, 'valueFrom', [], VALUE_FROM_KEYS);
  if (!o) return undefined;
  const key = r.discriminator(o, at, 'valueFrom', VALUE_FROM_KEYS);
  if (key === undefined) return undefined;
  const p = [...at, key];
  const origin = r.origin(at);
  const x = o[key];
  switch (key) {
    case 'value':
      return { kind: 'literal', json: x!, origin };
    case 'ref': {
      const path = readPath(r, x, p, 'valueFrom.ref');
      return path && { kind: 'ref', path, origin };
    }
    case 'fromMetadata': {
      const field = r.oneOf(x, p, 'valueFrom.fromMetadata', ['name', 'namespace'] as const);
      return field && { kind: 'fromMetadata', field, origin };
    }
    case 'cel':
    case 'jmes': {
      const expr = readExpr(r, x, p, `valueFrom.${key}`);
      return expr && { kind: key, expr, origin };
    }
    case 'template': {
      const parts = readTemplate(r, x, p);
      return parts && { kind: 'template', parts, origin };
    }
    case 'templated': {
      const t = r.object(x, p, 'valueFrom.templated', ['language', 'value'], []);
      const language = t && r.oneOf(t.language, [...p, 'language'], 'templated language', ['kyverno'] as const);
      return t && language && { kind: 'templated', language, json: t.value!, origin };
    }
    case 'external':
      return readExternal(r, x, p, origin);
  }
  return undefined;
}

function readTemplate(r: Reader, v: JsonValue | undefined, at: YamlPath): TemplatePart[] | undefined {
  if (typeof v === 'string') {
    const t = parseTemplateText(v);
    if (t.ok) return t.parts;
    r.report('TM6003', r.loc.spanInString(at, t.start, t.end), t.message);
    return undefined;
  }
  if (Array.isArray(v)) {
    return r.listOf(v, at, 'template', (x, p): TemplatePart | undefined => {
      if (typeof x === 'string') return x;
      const o = r.object(x, p, 'a template hole', ['jmes'], []);
      const jmes = o && r.string(o.jmes, [...p, 'jmes'], 'jmes');
      return jmes === undefined ? undefined : { jmes };
    });
  }
  r.error(at, 'template must be a string with {{ }} holes or a list of text and {jmes: …} parts');
  return undefined;
}

function readExternal(r: Reader, v: JsonValue | undefined, at: YamlPath, origin: ExternalValue['origin']): Value | undefined {
  const o = r.object(v, at, 'external', ['provider', 'source', 'failurePolicy'], ['default']);
  if (!o) return undefined;
  const provider = r.string(o.provider, [...at, 'provider'], 'external.provider');
  const source = hasOwn(o, 'source') ? r.oneOf(o.source, [...at, 'source'], 'external.source', ['ValueAtLocation', 'Username'] as const) : undefined;
  const failurePolicy = hasOwn(o, 'failurePolicy')
    ? r.oneOf(o.failurePolicy, [...at, 'failurePolicy'], 'external.failurePolicy', ['Fail', 'Ignore', 'UseDefault'] as const)
    : undefined;
  const dflt = hasOwn(o, 'default') ? r.string(o.default, [...at, 'default'], 'external.default') : undefined;
  if (provider === undefined || source === undefined || failurePolicy === undefined) return undefined;
  if (hasOwn(o, 'default') && dflt === undefined) return undefined;
  const ext: ExternalValue = { kind: 'external', provider, source, failurePolicy, origin };
  if (dflt !== undefined) ext.default = dflt;
  return ext;
}
