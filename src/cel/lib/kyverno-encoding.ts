/**
 * Kyverno's `json` and `yaml` CEL libraries (kyverno/sdk extensions/cel/libs/json, libs/yaml), in the
 * environment of Kyverno's MutatingPolicy and other CEL policies:
 * - `json.unmarshal(string)`: encoding/json into `any`, so every number is a float64 (a CEL double);
 * - `json.marshal(value)`: encoding/json.Marshal of the value's Go form (toJsonNative): map keys sorted,
 *   HTML-safe escapes, bytes as base64, a timestamp as RFC 3339, a duration as its nanoseconds;
 * - `yaml.parse(string)`: sigs.k8s.io/yaml Unmarshal into `any` (YAML 1.1 scalars, then JSON), numbers as
 *   float64 too.
 * A failure is the call's error, as types.WrapErr makes it.
 */
import { defineOwn } from '../../ir/json.js';
import { yamlToJsonValue } from '../../io/yaml-to-json-value.js';
import { compareGoStrings, goJsonMarshal, goJsonString } from '../../jmespath/values.js';
import { toBase64, utf8Decode } from '../../util/bytes.js';
import { global, type FunctionDef } from '../registry.js';
import { formatTimestamp } from '../time.js';
import { CelDouble, CelDuration, CelMap, CelTimestamp, CelUint, err, mkDouble, noOverload, typeName } from '../values.js';

/** A decoded JSON value as CEL sees Go's `any`: numbers are float64, `[]byte` (YAML `!!binary`) a string. */
function fromGoDecoded(v: unknown): unknown {
  if (typeof v === 'number') return mkDouble(v);
  if (v === null || typeof v !== 'object') return v;
  if (v instanceof Uint8Array) return utf8Decode(v);
  if (Array.isArray(v)) return v.map(fromGoDecoded);
  const out: Record<string, unknown> = {};
  for (const [k, x] of Object.entries(v)) defineOwn(out as never, k, fromGoDecoded(x) as never);
  return out;
}

function unmarshal(text: unknown): unknown {
  if (typeof text !== 'string') return noOverload('json.unmarshal', text);
  let decoded: unknown;
  try {
    decoded = JSON.parse(text) as unknown;
  } catch (e) {
    return err(`json.unmarshal: ${(e as Error).message}`);
  }
  return fromGoDecoded(decoded);
}

function parseYaml(text: unknown): unknown {
  if (typeof text !== 'string') return noOverload('yaml.parse', text);
  const decoded = yamlToJsonValue(text);
  return decoded.ok ? fromGoDecoded(decoded.value) : err(decoded.message);
}

/** encoding/json's text of a float64: NaN and infinities are errors, an integral value has no fraction. */
function goFloat(x: number): string {
  if (!Number.isFinite(x)) return err(`json: unsupported value: ${Number.isNaN(x) ? 'NaN' : x > 0 ? '+Inf' : '-Inf'}`);
  return goJsonMarshal(x);
}

/** The Go value toJsonNative makes of `v`, written as encoding/json writes it. */
function marshalValue(v: unknown): string {
  if (v === null || v === undefined) return 'null';
  switch (typeof v) {
    case 'boolean':
      return v ? 'true' : 'false';
    case 'string':
      return goJsonString(v);
    case 'bigint':
      return String(v);
    case 'number':
      return goFloat(v);
    default:
      break;
  }
  if (v instanceof CelDouble) return goFloat(v.v);
  if (v instanceof CelUint) return String(v.v);
  if (v instanceof Uint8Array) return goJsonString(toBase64(v));
  if (v instanceof CelTimestamp) return goJsonString(formatTimestamp(v));
  if (v instanceof CelDuration) return String(v.ns);
  if (Array.isArray(v)) return '[' + v.map(marshalValue).join(',') + ']';
  if (v instanceof CelMap) {
    // ConvertToNative[map[string]any] fails on a key that is not a string.
    const plain: Record<string, unknown> = {};
    for (const [k, x] of v.entries.values()) {
      if (typeof k !== 'string') return err(`json: failed to convert CEL map to native map: unsupported key type ${typeName(k)}`);
      defineOwn(plain as never, k, x as never);
    }
    return marshalValue(plain);
  }
  if (Object.getPrototypeOf(v) === Object.prototype || Object.getPrototypeOf(v) === null) {
    const m = v as Record<string, unknown>;
    const keys = Object.keys(m).sort(compareGoStrings);
    return '{' + keys.map((k) => goJsonString(k) + ':' + marshalValue(m[k])).join(',') + '}';
  }
  return err(`json.marshal: a ${typeName(v)} value has no JSON form`);
}

export const kyvernoEncodingFunctions: FunctionDef[] = [
  global('kyverno', 'json.unmarshal', 1, unmarshal),
  global('kyverno', 'json.marshal', 1, marshalValue),
  global('kyverno', 'yaml.parse', 1, parseYaml),
];
