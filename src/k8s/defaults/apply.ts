/**
 * kube-apiserver's defaulting of a built-in kind (scheme.Default: the kind's SetObjectDefaults_<Kind>), on
 * the JSON form of the object: the steps of the generated table run in order, each defaulter at every place
 * its path reaches. Kinds the table does not hold (custom resources, kinds without defaulters) are returned
 * as they are.
 */
import { isJsonObject, jsonEqual, type JsonObject, type JsonValue } from '../../ir/json.js';
import { DEFAULTERS } from './defaulters.js';
import { DEFAULTING_STEPS, type DefaultingStep } from './table.generated.js';

/** "group/version/Kind" of an object (core group empty), as the table keys it. */
function tableKey(o: JsonObject): string | undefined {
  if (typeof o.apiVersion !== 'string' || typeof o.kind !== 'string') return undefined;
  const slash = o.apiVersion.indexOf('/');
  return slash < 0 ? `/${o.apiVersion}/${o.kind}` : `${o.apiVersion}/${o.kind}`;
}

/** Whether the table defaults objects of this kind. */
export function hasApiServerDefaults(o: JsonValue): boolean {
  const key = isJsonObject(o) ? tableKey(o) : undefined;
  return key !== undefined && DEFAULTING_STEPS[key] !== undefined;
}

/** A deep copy the defaulters may write into (the input is never changed). */
function deepCopy(v: JsonValue): JsonValue {
  if (Array.isArray(v)) return v.map(deepCopy);
  if (!isJsonObject(v)) return v;
  const out: JsonObject = {};
  for (const k of Object.keys(v)) Object.defineProperty(out, k, { value: deepCopy(v[k]!), enumerable: true, writable: true, configurable: true });
  return out;
}

/** Every object the path reaches from `o`, creating struct members on the way (Go never has them nil). */
function reach(o: JsonObject, at: readonly string[], i: number, visit: (o: JsonObject) => void): void {
  if (i === at.length) {
    visit(o);
    return;
  }
  const segment = at[i]!;
  if (segment === '*') return; // a list is reached through its member segment, below
  const pointer = segment.endsWith('?');
  const name = pointer ? segment.slice(0, -1) : segment;
  const each = at[i + 1] === '*';
  let next = o[name];
  if (next === undefined || next === null) {
    if (pointer || each) return;
    next = {};
    o[name] = next;
  }
  if (each) {
    if (Array.isArray(next)) for (const item of next) if (isJsonObject(item)) reach(item, at, i + 2, visit);
    return;
  }
  if (isJsonObject(next)) reach(next, at, i + 1, visit);
}

function run(o: JsonObject, steps: readonly DefaultingStep[]): void {
  for (const step of steps) reach(o, step.at, 0, DEFAULTERS[step.fn]);
}

/**
 * The object with kube-apiserver's defaults for its kind; the object itself when they change nothing (so an
 * already defaulted object keeps its identity, which callers read as "unchanged").
 */
export function applyApiServerDefaults(object: JsonValue): JsonValue {
  if (!isJsonObject(object)) return object;
  const key = tableKey(object);
  const steps = key === undefined ? undefined : DEFAULTING_STEPS[key];
  if (!steps) return object;
  const copy = deepCopy(object) as JsonObject;
  run(copy, steps);
  return jsonEqual(copy, object) ? object : copy;
}
