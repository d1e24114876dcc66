/** AssignImage (pkg/mutation/mutators/assignimage/assignimage_mutator.go MutatorForAssignImage). */
import type { ImageOp } from '../../ir/nodes.js';
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
import { validateImageParts } from './image-parser.js';
import { hasMetadataRoot } from './location.js';
import { readApplyTo, readMatch, validateBindings, type ApplyToEntry, type DecodedMatch } from './match.js';

const PARAMETERS = ['spec', 'parameters'];

interface AssignImageSpec {
  location: string;
  applyTo: ApplyToEntry[];
  match: DecodedMatch;
  pathTests: RawPathTest[];
  assignDomain: string;
  assignPath: string;
  assignTag: string;
}

export function readAssignImage(r: FieldReader): AssignImageSpec {
  r.object(['spec'], ['applyTo', 'match', 'location', 'parameters']);
  r.object(PARAMETERS, ['pathTests', 'assignDomain', 'assignPath', 'assignTag']);
  return {
    location: r.string(LOCATION_FIELD) ?? '',
    applyTo: readApplyTo(r),
    match: readMatch(r),
    pathTests: readPathTests(r),
    assignDomain: r.string([...PARAMETERS, 'assignDomain']) ?? '',
    assignPath: r.string([...PARAMETERS, 'assignPath']) ?? '',
    assignTag: r.string([...PARAMETERS, 'assignTag']) ?? '',
  };
}

export function constructAssignImage(r: FieldReader, header: MutatorHeader, spec: AssignImageSpec): GatekeeperMutator | Refusal {
  const { name } = header;
  const nameCheck = checkName(r, name);
  if (nameCheck) return nameCheck;
  const location = parseLocationField(r, spec.location, `invalid location format \`${spec.location}\` for assignImage ${name}`);
  if (location instanceof Refusal) return location;
  if (hasMetadataRoot(location)) return refuse(r, `assignImage ${name} can't change metadata`, LOCATION_FIELD);
  if (location.length > 0 && location[location.length - 1]!.type === 'List') {
    return refuse(r, `assignImage ${name} cannot mutate list-type fields`, LOCATION_FIELD);
  }
  const keyCheck = checkKeyNotChanged(r, location);
  if (keyCheck) return keyCheck;
  const imageError = validateImageParts(spec.assignDomain, spec.assignPath, spec.assignTag);
  if (imageError) {
    return refuse(r, `assignImage ${name} has invalid parameters: ${imageError.message}`, imageError.field ? [...PARAMETERS, imageError.field] : PARAMETERS);
  }
  const tests = buildPathTests(r, 'AssignImage', name, location, spec.pathTests);
  if (tests instanceof Refusal) return tests;
  const bindings = validateBindings('AssignImage', name, spec.applyTo);
  if (bindings) return refuse(r, bindings.message, bindings.index === undefined ? ['spec', 'applyTo'] : ['spec', 'applyTo', bindings.index]);

  const target = targetPath(r, location, tests);
  r.diagnostics.push(...target.warnings);
  const op: ImageOp = { kind: 'image', path: target.path, origin: r.origin(PARAMETERS) };
  if (spec.assignDomain !== '') op.domain = spec.assignDomain;
  if (spec.assignPath !== '') op.repo = spec.assignPath;
  if (spec.assignTag !== '') op.tag = spec.assignTag;
  return {
    ...header,
    location,
    applyTo: spec.applyTo,
    schema: { terminalType: 'String', mustTerminate: true },
    source: spec.match.source,
    policy: buildPolicy(r, { kind: 'AssignImage', name, op, applyTo: spec.applyTo, match: spec.match, guards: target.guards }),
  };
}
