/** Assign (pkg/mutation/mutators/assign/assign_mutator.go MutatorForAssign). */
import type { JsonValue } from '../../ir/json.js';
import { hasOwn, isJsonObject } from '../../ir/json.js';
import { ASSIGN_FIELD, ASSIGN_PATHS, assignValue, readAssignField, validateAssignField, type AssignFieldSpec } from './assign-field.js';
import {
  buildPathTests,
  buildPolicy,
  checkKeyNotChanged,
  checkName,
  LOCATION_FIELD,
  parseLocationField,
  readPathTests,
  Refusal,
  refuse,
  targetPath,
  type GatekeeperMutator,
  type MutatorHeader,
  type RawPathTest,
} from './common.js';
import type { FieldReader } from './fields.js';
import { goValue } from './go-format.js';
import { hasMetadataRoot, type ListNode, type LocationPath } from './location.js';
import { readApplyTo, readMatch, validateBindings, type ApplyToEntry, type DecodedMatch } from './match.js';

interface AssignSpec {
  location: string;
  applyTo: ApplyToEntry[];
  match: DecodedMatch;
  pathTests: RawPathTest[];
  assign: AssignFieldSpec;
}

export function readAssign(r: FieldReader): AssignSpec {
  r.object(['spec'], ['applyTo', 'match', 'location', 'parameters']);
  r.object(['spec', 'parameters'], ['pathTests', 'assign']);
  return {
    location: r.string(LOCATION_FIELD) ?? '',
    applyTo: readApplyTo(r),
    match: readMatch(r),
    pathTests: readPathTests(r),
    assign: readAssignField(r),
  };
}

/**
 * validateObjectAssignedToList: a value written to a terminal `[key: value]` must be an object carrying the
 * same key. The comparison is Go interface equality with the value decoded by encoding/json, where every
 * number is a float64: an int64 key therefore never equals the object's key, and int-keyed terminal lists
 * are always refused (an upstream quirk).
 */
function checkObjectAssignedToList(r: FieldReader, p: LocationPath, value: JsonValue): Refusal | null {
  const last = p[p.length - 1];
  if (last === undefined) return refuse(r, 'empty path', LOCATION_FIELD);
  if (last.type !== 'List') return null;
  const list: ListNode = last;
  if (list.glob) return refuse(r, "can't append to a globbed list", LOCATION_FIELD);
  if (list.keyValue === null) return refuse(r, 'invalid key value for a non globbed object', LOCATION_FIELD);
  if (!isJsonObject(value)) {
    return refuse(r, `invalid value: \`${goValue(value)}\`, only objects can be added to keyed lists`, ASSIGN_PATHS.value);
  }
  const objectKey = hasOwn(value, list.keyField) ? value[list.keyField] : undefined;
  const same = typeof list.keyValue === 'string' && objectKey === list.keyValue;
  if (!same) {
    return refuse(
      r,
      `adding object to list with different key ${list.keyField}: list key ${goValue(list.keyValue)}, object key ${goValue(objectKey)}`,
      ASSIGN_PATHS.value,
    );
  }
  return null;
}

export function constructAssign(r: FieldReader, header: MutatorHeader, spec: AssignSpec): GatekeeperMutator | Refusal {
  const { name } = header;
  const nameCheck = checkName(r, name);
  if (nameCheck) return nameCheck;
  const location = parseLocationField(r, spec.location, `invalid location format \`${spec.location}\` for Assign ${name}`);
  if (location instanceof Refusal) return location;
  if (hasMetadataRoot(location)) return refuse(r, `assign ${name} can't change metadata`, LOCATION_FIELD);
  const keyCheck = checkKeyNotChanged(r, location);
  if (keyCheck) return keyCheck;
  const fieldCheck = validateAssignField(r, spec.assign);
  if (fieldCheck) return fieldCheck;
  if (spec.assign.value !== undefined) {
    const listCheck = checkObjectAssignedToList(r, location, spec.assign.value);
    if (listCheck) return listCheck;
  }
  if (location[location.length - 1]!.type === 'List') {
    if (spec.assign.fromMetadata) return refuse(r, 'cannot assign a metadata field to a list', ASSIGN_PATHS.fromMetadata);
    if (spec.assign.externalData) return refuse(r, 'cannot assign external data response to a list', ASSIGN_PATHS.externalData);
  }
  const tests = buildPathTests(r, 'Assign', name, location, spec.pathTests);
  if (tests instanceof Refusal) return tests;
  const bindings = validateBindings('Assign', name, spec.applyTo);
  if (bindings) return refuse(r, bindings.message, bindings.index === undefined ? ['spec', 'applyTo'] : ['spec', 'applyTo', bindings.index]);

  const target = targetPath(r, location, tests);
  r.diagnostics.push(...target.warnings);
  const op = { kind: 'set' as const, path: target.path, value: assignValue(r, spec.assign), origin: r.origin(ASSIGN_FIELD) };
  return {
    ...header,
    location,
    applyTo: spec.applyTo,
    schema: { terminalType: 'Unknown', mustTerminate: spec.assign.externalData !== undefined },
    source: spec.match.source,
    policy: buildPolicy(r, { kind: 'Assign', name, op, applyTo: spec.applyTo, match: spec.match, guards: target.guards }),
  };
}
