/**
 * Operations in the `ir` YAML dialect, one discriminating key each:
 *   {set: <path>, value|valueFrom}            {remove: <path>}
 *   {setMembers: <path>, mode, values|valuesFrom}
 *   {merge: <path>, strategy, value|valueFrom} {image: <path>, domain?, repo?, tag?}
 *   {jsonPatch: [{op, path, from?, value|valueFrom?}…], stepsFrom?: <valueFrom>, profile}
 *   {when: <guard>, then: [op…], else?: [op…]}
 *   {forEach: <path> | forEachFrom: <valueFrom>, as, index?, order?, body: [op…]}
 *   {let: <name>, lazy?: bool, value|valueFrom}
 *   {fail: <message>}
 */
import { hasOwn, isJsonObject, type JsonValue } from '../../ir/json.js';
import type { ForEachOp, ImageOp, JsonPatchOp, JsonPatchStep, Op, Value } from '../../ir/nodes.js';
import type { Path } from '../../ir/path.js';
import type { YamlPath } from '../../io/source.js';
import { readGuard } from './parse-guard.js';
import { readPath, readValueField, readValueFrom, readValuesField } from './parse-value.js';
import { describe, type Reader } from './reader.js';

export const OP_KEYS = ['set', 'remove', 'setMembers', 'merge', 'image', 'jsonPatch', 'when', 'forEach', 'forEachFrom', 'let', 'fail'] as const;
type OpKey = (typeof OP_KEYS)[number];

const FIELDS: Record<OpKey, { required: readonly string[]; optional: readonly string[] }> = {
  set: { required: [], optional: ['value', 'valueFrom'] },
  remove: { required: [], optional: [] },
  setMembers: { required: ['mode'], optional: ['values', 'valuesFrom'] },
  merge: { required: ['strategy'], optional: ['value', 'valueFrom'] },
  image: { required: [], optional: ['domain', 'repo', 'tag'] },
  jsonPatch: { required: ['profile'], optional: ['stepsFrom'] },
  when: { required: ['then'], optional: ['else'] },
  forEach: { required: ['as', 'body'], optional: ['index', 'order'] },
  forEachFrom: { required: ['as', 'body'], optional: ['index', 'order'] },
  let: { required: [], optional: ['lazy', 'value', 'valueFrom'] },
  fail: { required: [], optional: [] },
};

const PATCH_OPS = ['add', 'remove', 'replace', 'move', 'copy', 'test'] as const;

export function readOps(r: Reader, v: JsonValue | undefined, at: YamlPath, what: string): Op[] | undefined {
  return r.listOf(v, at, what, (x, p) => readOp(r, x, p));
}

export function readOp(r: Reader, v: JsonValue | undefined, at: YamlPath): Op | undefined {
  if (!isJsonObject(v)) {
    r.error(at, `operation must be a map, got ${describe(v)}`);
    return undefined;
  }
  const kind = r.discriminator(v, at, 'operation', OP_KEYS);
  if (kind === undefined) return undefined;
  const { required, optional } = FIELDS[kind];
  const o = r.object(v, at, `${kind} operation`, [kind, ...required], optional);
  if (!o) return undefined;
  const origin = r.origin(at);
  const p = [...at, kind];
  const x = o[kind];
  switch (kind) {
    case 'set': {
      const path = readPath(r, x, p, 'set path');
      const value = readValueField(r, o, at, 'set operation');
      return path && value && { kind, path, value, origin };
    }
    case 'remove': {
      const path = readPath(r, x, p, 'remove path');
      return path && { kind, path, origin };
    }
    case 'setMembers': {
      const path = readPath(r, x, p, 'setMembers path');
      const mode = r.oneOf(o.mode, [...at, 'mode'], 'setMembers mode', ['merge', 'prune'] as const);
      const values = readValuesField(r, o, at, 'setMembers operation');
      return path && mode && values && { kind, path, values, mode, origin };
    }
    case 'merge': {
      const path = readPath(r, x, p, 'merge path');
      const strategy = r.oneOf(o.strategy, [...at, 'strategy'], 'merge strategy', ['json', 'smp', 'ssa'] as const);
      const value = readValueField(r, o, at, 'merge operation');
      return path && strategy && value && { kind, path, value, strategy, origin };
    }
    case 'image':
      return readImage(r, o, at, origin);
    case 'jsonPatch':
      return readJsonPatch(r, o, at, origin);
    case 'when': {
      const guard = readGuard(r, x, p);
      const then = readOps(r, o.then, [...at, 'then'], 'when.then');
      const otherwise = hasOwn(o, 'else') ? readOps(r, o.else, [...at, 'else'], 'when.else') : undefined;
      if (!guard || !then || (hasOwn(o, 'else') && !otherwise)) return undefined;
      return otherwise ? { kind, guard, then, else: otherwise, origin } : { kind, guard, then, origin };
    }
    case 'forEach':
    case 'forEachFrom':
      return readForEach(r, o, at, kind, origin);
    case 'let': {
      const name = readName(r, x, p, 'let name');
      const lazy = hasOwn(o, 'lazy') ? r.boolean(o.lazy, [...at, 'lazy'], 'let lazy') : false;
      const value = readValueField(r, o, at, 'let operation');
      if (name === undefined || !value || lazy === undefined) return undefined;
      return lazy ? { kind, name, value, lazy, origin } : { kind, name, value, origin };
    }
    case 'fail': {
      const message = readName(r, x, p, 'fail message');
      return message === undefined ? undefined : { kind, message, origin };
    }
  }
}

function readName(r: Reader, v: JsonValue | undefined, at: YamlPath, what: string): string | undefined {
  const name = r.string(v, at, what);
  if (name === '') {
    r.error(at, `${what} must not be empty`);
    return undefined;
  }
  return name;
}

function readImage(r: Reader, o: Record<string, JsonValue>, at: YamlPath, origin: Op['origin']): Op | undefined {
  const path = readPath(r, o.image, [...at, 'image'], 'image path');
  let good = path !== undefined;
  const op = { kind: 'image', path } as ImageOp;
  for (const k of ['domain', 'repo', 'tag'] as const) {
    if (!hasOwn(o, k)) continue;
    const s = r.string(o[k], [...at, k], `image ${k}`);
    if (s === undefined) good = false;
    else op[k] = s;
  }
  op.origin = origin;
  return good ? op : undefined;
}

function readJsonPatch(r: Reader, o: Record<string, JsonValue>, at: YamlPath, origin: Op['origin']): JsonPatchOp | undefined {
  const profile = r.oneOf(o.profile, [...at, 'profile'], 'jsonPatch profile', ['rfc6902', 'kyverno', 'evanphx-v4'] as const);
  const steps = r.listOf(o.jsonPatch, [...at, 'jsonPatch'], 'jsonPatch', (x, p) => readStep(r, x, p));
  const stepsFrom = hasOwn(o, 'stepsFrom') ? readValueFrom(r, o.stepsFrom, [...at, 'stepsFrom']) : undefined;
  if (!profile || !steps || (hasOwn(o, 'stepsFrom') && !stepsFrom)) return undefined;
  return stepsFrom ? { kind: 'jsonPatch', steps, stepsFrom, profile, origin } : { kind: 'jsonPatch', steps, profile, origin };
}

function readStep(r: Reader, v: JsonValue, at: YamlPath): JsonPatchStep | undefined {
  const o = r.object(v, at, 'a JSON patch step', ['op', 'path'], ['from', 'value', 'valueFrom']);
  if (!o) return undefined;
  const op = r.oneOf(o.op, [...at, 'op'], 'op', PATCH_OPS);
  const path = r.string(o.path, [...at, 'path'], 'path');
  const from = hasOwn(o, 'from') ? r.string(o.from, [...at, 'from'], 'from') : undefined;
  const hasValue = hasOwn(o, 'value') || hasOwn(o, 'valueFrom');
  const value = hasValue ? readValueField(r, o, at, 'JSON patch step') : undefined;
  if (!op || path === undefined || (hasOwn(o, 'from') && from === undefined) || (hasValue && !value)) return undefined;
  const step = { op, path } as JsonPatchStep;
  if (from !== undefined) step.from = from;
  if (value) step.value = value;
  step.origin = r.origin(at);
  return step;
}

function readForEach(r: Reader, o: Record<string, JsonValue>, at: YamlPath, key: 'forEach' | 'forEachFrom', origin: Op['origin']): ForEachOp | undefined {
  const list: Path | Value | undefined =
    key === 'forEach' ? readPath(r, o.forEach, [...at, key], 'forEach path') : readValueFrom(r, o.forEachFrom, [...at, key]);
  const bind = readName(r, o.as, [...at, 'as'], 'forEach as');
  const indexBind = hasOwn(o, 'index') ? readName(r, o.index, [...at, 'index'], 'forEach index') : undefined;
  const order = hasOwn(o, 'order') ? r.oneOf(o.order, [...at, 'order'], 'forEach order', ['asc', 'desc'] as const) : 'asc';
  const body = readOps(r, o.body, [...at, 'body'], 'forEach body');
  if (!list || bind === undefined || (hasOwn(o, 'index') && indexBind === undefined) || !order || !body) return undefined;
  return indexBind === undefined
    ? { kind: 'forEach', list, bind, order, body, origin }
    : { kind: 'forEach', list, bind, indexBind, order, body, origin };
}
