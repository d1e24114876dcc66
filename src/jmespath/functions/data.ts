/**
 * Kyverno's data-shaping functions (functions.go jpParseJson, jpParseYAML, jpLookup, jpItems,
 * jpObjectFromLists). parse_yaml follows sigs.k8s.io/yaml: YAML 1.1 scalars (yes/no booleans,
 * octal 010), the first document only, timestamps left as strings.
 */
import { isScalar, parseAllDocuments, visit, type Tags } from 'yaml';
import { defineOwn, type JsonObject, type JsonValue } from '../../ir/json.js';
import { failure, JmesFailure } from '../types.js';
import { compareGoStrings, isMap } from '../values.js';
import { ifaceToString } from './regex.js';
import { expectString, intNumber, kyvernoError, kyvernoTypeError, type FunctionSpec } from './registry.js';

const yamlOptions = {
  version: '1.1' as const,
  customTags: (tags: Tags): Tags => tags.filter((t) => typeof t === 'string' || t.tag !== 'tag:yaml.org,2002:timestamp'),
};

/**
 * libyaml (go-yaml) keeps no final line break in a clipped block scalar that ends the input without
 * one (`a: >\n  text` is "text"); the `yaml` package always adds it.
 */
function clipFinalBlockScalar(doc: Parameters<typeof visit>[0], text: string): void {
  visit(doc, {
    Scalar(_key, node) {
      if (!isScalar(node) || node.range === undefined || node.range === null) return;
      if ((node.type !== 'BLOCK_FOLDED' && node.type !== 'BLOCK_LITERAL') || node.range[1] < text.length) return;
      const header = /^[|>]([1-9]?[+-]?|[+-]?[1-9]?)/.exec(text.slice(node.range[0]))?.[1] ?? '';
      if (!header.includes('+') && !header.includes('-') && typeof node.value === 'string' && node.value.endsWith('\n')) {
        node.value = node.value.slice(0, -1);
      }
    },
  });
}

function parseYaml(text: string): unknown {
  const docs = parseAllDocuments(text, yamlOptions);
  const list = Array.isArray(docs) ? docs : [docs];
  const first = list[0];
  if (first === undefined) return null;
  if (first.errors.length > 0) return failure('Runtime', `error converting YAML to JSON: ${first.errors[0]!.message}`);
  if (!text.endsWith('\n')) clipFinalBlockScalar(first, text);
  const value = first.toJS({ maxAliasCount: 1000 }) as unknown;
  return value === undefined ? null : value;
}

export const DATA_FUNCTIONS: FunctionSpec[] = [
  {
    name: 'parse_json',
    args: [['string']],
    handler: (args) => {
      const s = expectString('parse_json', args, 0);
      if (s instanceof JmesFailure) return s;
      try {
        return JSON.parse(s) as unknown;
      } catch (e) {
        return failure('Runtime', e instanceof Error ? e.message : String(e));
      }
    },
  },
  {
    name: 'parse_yaml',
    args: [['string']],
    handler: (args) => {
      const s = expectString('parse_yaml', args, 0);
      if (s instanceof JmesFailure) return s;
      try {
        return parseYaml(s);
      } catch (e) {
        return failure('Runtime', `error converting YAML to JSON: ${e instanceof Error ? e.message : String(e)}`);
      }
    },
  },
  {
    name: 'lookup',
    args: [['object', 'array'], ['string', 'number']],
    handler: ([input, key]) => {
      if (isMap(input)) {
        if (typeof key !== 'string') return kyvernoTypeError('lookup', 2, 'String');
        return Object.prototype.hasOwnProperty.call(input, key) ? (input[key] ?? null) : null;
      }
      if (Array.isArray(input)) {
        if (typeof key !== 'number') return kyvernoTypeError('lookup', 2, 'Number');
        const i = intNumber(key);
        if (typeof i === 'string') return kyvernoError('lookup', `argument #2: ${i}`);
        return i < 0 || i >= input.length ? null : input[i];
      }
      return kyvernoTypeError('lookup', 1, 'Object or Array');
    },
  },
  {
    name: 'items',
    args: [['object', 'array'], ['string'], ['string']],
    handler: ([input, keyName, valName]) => {
      if (typeof keyName !== 'string') return kyvernoTypeError('items', 2, 'String');
      if (typeof valName !== 'string') return kyvernoTypeError('items', 3, 'String');
      const item = (k: JsonValue, v: unknown): JsonObject => {
        const o: JsonObject = {};
        defineOwn(o, keyName, k);
        defineOwn(o, valName, (v ?? null) as JsonValue);
        return o;
      };
      if (isMap(input)) return Object.keys(input).sort(compareGoStrings).map((k) => item(k, input[k]));
      if (Array.isArray(input)) return input.map((v, i) => item(i, v));
      return kyvernoTypeError('items', 1, 'Object or Array');
    },
  },
  {
    name: 'object_from_lists',
    args: [['array'], ['array']],
    handler: ([keys, values]) => {
      if (!Array.isArray(keys)) return kyvernoTypeError('object_from_lists', 1, 'Array');
      if (!Array.isArray(values)) return kyvernoTypeError('object_from_lists', 2, 'Array');
      const out: JsonObject = {};
      for (let i = 0; i < keys.length; i++) {
        const k = ifaceToString(keys[i]);
        if (k === undefined) return kyvernoTypeError('object_from_lists', 1, 'StringArray');
        defineOwn(out, k, (i < values.length ? (values[i] ?? null) : null) as JsonValue);
      }
      return out;
    },
  },
];
