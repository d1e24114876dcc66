/** Assign (pkg/mutation/mutators/assign/assign_mutator.go MutatorForAssign). */
import type { JsonValue } from '../../ir/json.js';
import { hasOwn, isJsonObject } from '../../ir/json.js';
import { ASSIGN_FIELD, ASSIGN_PATHS, assignValue, readAssignField, validateAssignField, type AssignFieldSpec } from './assign-field.js';
import { checkKeyNotChanged, LOCATION_FIELD, Refusal, refuse, type GatekeeperMutator, type MutatorHeader } from './common.js';
import type { FieldReader } from './fields.js';
import { goValue } from './go-format.js';
import { checkedLocation, checkLocatedFields, endsInList, finishLocated, readLocatedSpec, type LocatedSpec } from './located.js';
import type { ListNode, LocationPath } from './location.js';

interface AssignSpec extends LocatedSpec {
  assign: AssignFieldSpec;
}

export function readAssign(r: FieldReader): AssignSpec {
  checkLocatedFields(r, ['assign']);
  return { ...readLocatedSpec(r), assign: readAssignField(r) };
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
  const location = checkedLocation(r, header, spec, { syntax: 'Assign', metadata: 'assign' });
  if (location instanceof Refusal) return location;
  const keyCheck = checkKeyNotChanged(r, location);
  if (keyCheck) return keyCheck;
  const fieldCheck = validateAssignField(r, spec.assign);
  if (fieldCheck) return fieldCheck;
  if (spec.assign.value !== undefined) {
    const listCheck = checkObjectAssignedToList(r, location, spec.assign.value);
    if (listCheck) return listCheck;
  }
  if (endsInList(location)) {
    if (spec.assign.fromMetadata) return refuse(r, 'cannot assign a metadata field to a list', ASSIGN_PATHS.fromMetadata);
    if (spec.assign.externalData) return refuse(r, 'cannot assign external data response to a list', ASSIGN_PATHS.externalData);
  }
  const schema = { terminalType: 'Unknown' as const, mustTerminate: spec.assign.externalData !== undefined };
  return finishLocated(r, header, spec, location, schema, (path) => ({ kind: 'set', path, value: assignValue(r, spec.assign), origin: r.origin(ASSIGN_FIELD) }));
}
