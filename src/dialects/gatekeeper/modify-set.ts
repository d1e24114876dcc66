/** ModifySet (pkg/mutation/mutators/modifyset/modify_set_mutator.go MutatorForModifySet). */
import type { JsonValue } from '../../ir/json.js';
import type { Value } from '../../ir/nodes.js';
import { LOCATION_FIELD, Refusal, refuse, type GatekeeperMutator, type MutatorHeader } from './common.js';
import type { FieldReader } from './fields.js';
import { checkedLocation, checkLocatedFields, endsInList, finishLocated, PARAMETERS, readLocatedSpec, type LocatedSpec } from './located.js';

const FROM_LIST = [...PARAMETERS, 'values', 'fromList'];

interface ModifySetSpec extends LocatedSpec {
  operation: 'merge' | 'prune';
  fromList: JsonValue[];
}

export function readModifySet(r: FieldReader): ModifySetSpec {
  checkLocatedFields(r, ['operation', 'values']);
  // `values` preserves unknown fields (x-kubernetes-preserve-unknown-fields): no warning for them.
  r.object([...PARAMETERS, 'values']);
  return {
    ...readLocatedSpec(r),
    // CRD enum and default (+kubebuilder:default=merge).
    operation: (r.enumString([...PARAMETERS, 'operation'], ['merge', 'prune']) as 'merge' | 'prune' | undefined) ?? 'merge',
    fromList: r.array(FROM_LIST) ?? [],
  };
}

export function constructModifySet(r: FieldReader, header: MutatorHeader, spec: ModifySetSpec): GatekeeperMutator | Refusal {
  const location = checkedLocation(r, header, spec, { syntax: 'ModifySet', metadata: 'modifyset' });
  if (location instanceof Refusal) return location;
  // Upstream neither refuses an empty location here (it fails every request at run time) nor applies
  // CheckKeyNotChanged to ModifySet.
  if (endsInList(location)) {
    return refuse(r, 'final node in a modifyset location cannot be a keyed list', LOCATION_FIELD);
  }
  return finishLocated(r, header, spec, location, { terminalType: 'Set', mustTerminate: false }, (path) => {
    const values: Value[] = spec.fromList.map((json, i) => ({ kind: 'literal', json, origin: r.origin([...FROM_LIST, i]) }));
    return { kind: 'setMembers', path, values, mode: spec.operation, origin: r.origin(PARAMETERS) };
  });
}
