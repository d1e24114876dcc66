/**
 * patchesJson6902 as the webhook reads it: sigs.k8s.io/yaml ToJSON, then evanphx/json-patch/v5 DecodePatch, and
 * the Operation accessors Kind / Path / ValueInterface with their error texts. Checks on top:
 * validate.go validateJSONPatchPathForForwardSlash and validateJSONPatch (run on the text with every variable
 * replaced by `kyvernojsonpatchvariable`).
 */
import { parse as parseYaml } from 'yaml';
import { isJsonObject, type JsonValue } from '../../../ir/json.js';
import { goKindName } from './go-format.js';
import { replaceAllVars } from './regex.js';

type Field = { kind: 'ok'; value: string } | { kind: 'error'; message: string };

export interface DecodedOp {
  /** Operation.Kind(): the op, or "unknown". */
  op: string;
  path: Field;
  /** Operation.ValueInterface() fails: the key is missing. */
  valueMissing: boolean;
}

export type Decoded = { ok: true; ops: DecodedOp[] } | { ok: false; message: string };

/** The Go JSON type name encoding/json reports in an UnmarshalTypeError. */
function jsonTypeName(v: JsonValue): string {
  if (typeof v === 'string') return 'string';
  if (typeof v === 'number') return 'number';
  if (typeof v === 'boolean') return 'bool';
  if (Array.isArray(v)) return 'array';
  return goKindName(v) === 'map' ? 'object' : 'null';
}

export function decodePatch(text: string): Decoded {
  let value: JsonValue;
  try {
    value = (text.trim() === '' ? null : parseYaml(text, { version: '1.1', logLevel: 'silent' })) as JsonValue;
  } catch (e) {
    const first = (e instanceof Error ? e.message : String(e)).split('\n')[0];
    return { ok: false, message: `error converting YAML to JSON: yaml: ${first}` };
  }
  if (value === null || value === undefined) return { ok: true, ops: [] };
  if (!Array.isArray(value)) return { ok: false, message: `json: cannot unmarshal ${jsonTypeName(value)} into Go value of type jsonpatch.Patch` };
  const ops: DecodedOp[] = [];
  for (const item of value) {
    if (item !== null && !isJsonObject(item)) {
      return { ok: false, message: `json: cannot unmarshal ${jsonTypeName(item)} into Go value of type jsonpatch.Operation` };
    }
    const o = item ?? {};
    const op = typeof o.op === 'string' ? o.op : 'unknown';
    let path: Field;
    if (o.path === undefined || o.path === null) path = { kind: 'error', message: 'operation missing path field: missing value' };
    else if (typeof o.path === 'string') path = { kind: 'ok', value: o.path };
    else path = { kind: 'error', message: `json: cannot unmarshal ${jsonTypeName(o.path)} into Go value of type string` };
    ops.push({ op, path, valueMissing: !Object.prototype.hasOwnProperty.call(o, 'value') });
  }
  return { ok: true, ops };
}

/** validateJSONPatchPathForForwardSlash: the error text after "path must begin with a forward slash: …: ". */
export function forwardSlashError(patch: string): string | undefined {
  const decoded = decodePatch(replaceAllVars(patch, 'kyvernojsonpatchvariable'));
  if (!decoded.ok) return decoded.message;
  for (const op of decoded.ops) {
    if (op.path.kind === 'error') return op.path.message;
    if (!op.path.value.startsWith('/')) return op.path.value;
  }
  return undefined;
}

const VALID_OPS = new Set(['add', 'remove', 'replace', 'move', 'copy', 'test']);

/** validateJSONPatch: the whole error text. */
export function jsonPatchError(patch: string, ruleIdx: number): string | undefined {
  const decoded = decodePatch(replaceAllVars(patch, 'kyvernojsonpatchvariable'));
  if (!decoded.ok) return decoded.message;
  for (const op of decoded.ops) {
    const requiresValue = op.op !== 'remove' && op.op !== 'move' && op.op !== 'copy';
    if (!VALID_OPS.has(op.op)) return `unexpected kind: spec.rules[${ruleIdx}]: ${op.op}`;
    if (requiresValue && op.valueMissing) return `invalid value: spec.rules[${ruleIdx}]: operation, missing value field: missing value`;
  }
  return undefined;
}

/** The paths of a patch decoded as JSON (not YAML), as ruleOnlyDealsWithResourceMetaData reads them. */
export function jsonOnlyPaths(patch: string): string[] {
  let value: unknown;
  try {
    value = JSON.parse(patch);
  } catch {
    return [];
  }
  if (!Array.isArray(value)) return [];
  return value.map((o) => (isJsonObject(o as JsonValue) && typeof (o as { path?: unknown }).path === 'string' ? (o as { path: string }).path : ''));
}
