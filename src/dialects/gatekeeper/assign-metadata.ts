/** AssignMetadata (pkg/mutation/mutators/assignmeta/assignmeta_mutator.go MutatorForAssignMetadata). */
import { ASSIGN_FIELD, ASSIGN_PATHS, assignValue, readAssignField, validateAssignField, type AssignFieldSpec } from './assign-field.js';
import { buildPolicy, checkName, LOCATION_FIELD, parseLocationField, Refusal, refuse, targetPath, type GatekeeperMutator, type MutatorHeader } from './common.js';
import type { FieldReader } from './fields.js';
import { goQuote } from './go-format.js';
import type { LocationPath } from './location.js';
import { readMatch, type DecodedMatch } from './match.js';
import { MUST_NOT_EXIST } from './path-tests.js';

interface AssignMetadataSpec {
  location: string;
  match: DecodedMatch;
  assign: AssignFieldSpec;
}

export function readAssignMetadata(r: FieldReader): AssignMetadataSpec {
  r.object(['spec'], ['match', 'location', 'parameters']);
  r.object(['spec', 'parameters'], ['assign']);
  return { location: r.string(LOCATION_FIELD) ?? '', match: readMatch(r), assign: readAssignField(r) };
}

/** Exactly `metadata.labels.<key>` or `metadata.annotations.<key>`, three Object nodes. */
function isValidMetadataPath(p: LocationPath): boolean {
  if (p.length !== 3 || p.some((n) => n.type !== 'Object')) return false;
  const [first, second] = p as readonly { type: 'Object'; reference: string }[];
  return first!.reference === 'metadata' && (second!.reference === 'labels' || second!.reference === 'annotations');
}

export function constructAssignMetadata(r: FieldReader, header: MutatorHeader, spec: AssignMetadataSpec): GatekeeperMutator | Refusal {
  const { name } = header;
  const nameCheck = checkName(r, name);
  if (nameCheck) return nameCheck;
  const location = parseLocationField(r, spec.location, `invalid location format for AssignMetadata ${name}: ${spec.location}`);
  if (location instanceof Refusal) return location;
  if (!isValidMetadataPath(location)) return refuse(r, `invalid location for assignmetadata ${name}: ${spec.location}`, LOCATION_FIELD);
  const fieldCheck = validateAssignField(r, spec.assign);
  if (fieldCheck) return fieldCheck;
  if (spec.assign.externalData && spec.assign.externalData.dataSource !== 'Username') {
    return refuse(r, `only username data source is supported for assignmetadata ${name}`, [...ASSIGN_PATHS.externalData, 'dataSource']);
  }
  if (spec.assign.value !== undefined && typeof spec.assign.value !== 'string') {
    return refuse(r, `spec.parameters.assign.value field must be a string for AssignMetadata ${goQuote(name)}`, ASSIGN_PATHS.value);
  }

  // The implicit test `location MustNotExist` makes AssignMetadata add-only: it never overwrites.
  const target = targetPath(r, location, new Map([[location.length - 1, MUST_NOT_EXIST]]));
  r.diagnostics.push(...target.warnings);
  const op = { kind: 'set' as const, path: target.path, value: assignValue(r, spec.assign), origin: r.origin(ASSIGN_FIELD) };
  return {
    ...header,
    location,
    applyTo: null,
    schema: null,
    source: spec.match.source,
    policy: buildPolicy(r, { kind: 'AssignMetadata', name, op, applyTo: null, match: spec.match, guards: target.guards }),
  };
}
