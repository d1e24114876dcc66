/**
 * What Assign, AssignImage and ModifySet share: a location with pathTests, applyTo and match, read and checked
 * in the order of their MutatorFor* functions; each kind adds its own parameters and checks in between.
 */
import type { Op } from '../../ir/nodes.js';
import type { Path } from '../../ir/path.js';
import type { YamlPath } from '../../io/source.js';
import {
  buildPathTests,
  buildPolicy,
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
  type SchemaRole,
} from './common.js';
import type { FieldReader } from './fields.js';
import { hasMetadataRoot, type LocationPath } from './location.js';
import { readApplyTo, readMatch, validateBindings, type ApplyToEntry, type DecodedMatch } from './match.js';

export const PARAMETERS: YamlPath = ['spec', 'parameters'];

export interface LocatedSpec {
  location: string;
  applyTo: ApplyToEntry[];
  match: DecodedMatch;
  pathTests: RawPathTest[];
}

/** The fields `spec` and `spec.parameters` may hold; `parameters` lists the kind's own, beside pathTests. */
export function checkLocatedFields(r: FieldReader, parameters: readonly string[]): void {
  r.object(['spec'], ['applyTo', 'match', 'location', 'parameters']);
  r.object(PARAMETERS, ['pathTests', ...parameters]);
}

export function readLocatedSpec(r: FieldReader): LocatedSpec {
  return { location: r.string(LOCATION_FIELD) ?? '', applyTo: readApplyTo(r), match: readMatch(r), pathTests: readPathTests(r) };
}

/** How a kind names itself in upstream's messages: the location syntax error and the metadata refusal differ in case. */
export interface KindWording {
  syntax: string;
  metadata: string;
}

/** The name check, the location parsed, and the refusal of a location under metadata (that is AssignMetadata's job). */
export function checkedLocation(r: FieldReader, header: MutatorHeader, spec: LocatedSpec, wording: KindWording): LocationPath | Refusal {
  const { name } = header;
  const nameCheck = checkName(r, name);
  if (nameCheck) return nameCheck;
  const location = parseLocationField(r, spec.location, `invalid location format \`${spec.location}\` for ${wording.syntax} ${name}`);
  if (location instanceof Refusal) return location;
  if (hasMetadataRoot(location)) return refuse(r, `${wording.metadata} ${name} can't change metadata`, LOCATION_FIELD);
  return location;
}

/** The last node of a non-empty location is a list. */
export function endsInList(location: LocationPath): boolean {
  return location.length > 0 && location[location.length - 1]!.type === 'List';
}

/**
 * The path tests and applyTo bindings checked, then the mutator with its policy; `op` builds the kind's
 * operation on the target path once the path's warnings are recorded.
 */
export function finishLocated(
  r: FieldReader,
  header: MutatorHeader,
  spec: LocatedSpec,
  location: LocationPath,
  schema: SchemaRole,
  op: (path: Path) => Op,
): GatekeeperMutator | Refusal {
  const { kind, name } = header;
  const tests = buildPathTests(r, kind, name, location, spec.pathTests);
  if (tests instanceof Refusal) return tests;
  const bindings = validateBindings(kind, name, spec.applyTo);
  if (bindings) return refuse(r, bindings.message, bindings.index === undefined ? ['spec', 'applyTo'] : ['spec', 'applyTo', bindings.index]);

  const target = targetPath(r, location, tests);
  r.diagnostics.push(...target.warnings);
  const built = op(target.path);
  return {
    ...header,
    location,
    applyTo: spec.applyTo,
    schema,
    source: spec.match.source,
    policy: buildPolicy(r, { kind, name, op: built, applyTo: spec.applyTo, match: spec.match, guards: target.guards }),
  };
}
