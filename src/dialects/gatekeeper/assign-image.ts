/** AssignImage (pkg/mutation/mutators/assignimage/assignimage_mutator.go MutatorForAssignImage). */
import type { ImageOp } from '../../ir/nodes.js';
import { checkKeyNotChanged, LOCATION_FIELD, Refusal, refuse, type GatekeeperMutator, type MutatorHeader } from './common.js';
import type { FieldReader } from './fields.js';
import { validateImageParts } from './image-parser.js';
import { checkedLocation, checkLocatedFields, endsInList, finishLocated, PARAMETERS, readLocatedSpec, type LocatedSpec } from './located.js';

interface AssignImageSpec extends LocatedSpec {
  assignDomain: string;
  assignPath: string;
  assignTag: string;
}

export function readAssignImage(r: FieldReader): AssignImageSpec {
  checkLocatedFields(r, ['assignDomain', 'assignPath', 'assignTag']);
  return {
    ...readLocatedSpec(r),
    assignDomain: r.string([...PARAMETERS, 'assignDomain']) ?? '',
    assignPath: r.string([...PARAMETERS, 'assignPath']) ?? '',
    assignTag: r.string([...PARAMETERS, 'assignTag']) ?? '',
  };
}

export function constructAssignImage(r: FieldReader, header: MutatorHeader, spec: AssignImageSpec): GatekeeperMutator | Refusal {
  const { name } = header;
  const location = checkedLocation(r, header, spec, { syntax: 'assignImage', metadata: 'assignImage' });
  if (location instanceof Refusal) return location;
  if (endsInList(location)) {
    return refuse(r, `assignImage ${name} cannot mutate list-type fields`, LOCATION_FIELD);
  }
  const keyCheck = checkKeyNotChanged(r, location);
  if (keyCheck) return keyCheck;
  const imageError = validateImageParts(spec.assignDomain, spec.assignPath, spec.assignTag);
  if (imageError) {
    return refuse(r, `assignImage ${name} has invalid parameters: ${imageError.message}`, imageError.field ? [...PARAMETERS, imageError.field] : PARAMETERS);
  }
  return finishLocated(r, header, spec, location, { terminalType: 'String', mustTerminate: true }, (path) => {
    const op: ImageOp = { kind: 'image', path, origin: r.origin(PARAMETERS) };
    if (spec.assignDomain !== '') op.domain = spec.assignDomain;
    if (spec.assignPath !== '') op.repo = spec.assignPath;
    if (spec.assignTag !== '') op.tag = spec.assignTag;
    return op;
  });
}
