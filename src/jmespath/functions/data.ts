/**
 * Kyverno's data-shaping functions (functions.go jpParseJson, jpParseYAML, jpLookup, jpItems,
 * jpObjectFromLists). parse_yaml decodes as sigs.k8s.io/yaml does (io/yaml-to-json-value.ts).
 */
import { defineOwn, type JsonObject, type JsonValue } from '../../ir/json.js';
import { yamlToJsonValue } from '../../io/yaml-to-json-value.js';
import { failure, JmesFailure } from '../types.js';
import { compareGoStrings, isMap } from '../values.js';
import { ifaceToString } from './regex.js';
import { expectString, intNumber, kyvernoError, kyvernoTypeError, type FunctionSpec } from './registry.js';

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
      const decoded = yamlToJsonValue(s);
      return decoded.ok ? decoded.value : failure('Runtime', decoded.message);
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
