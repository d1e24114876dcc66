/** ModifySet (pkg/mutation/mutators/modifyset/modify_set_mutator.go MutatorForModifySet). */
import type { JsonValue } from '../../ir/json.js';
import type { Value } from '../../ir/nodes.js';
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
} from './common.js';
import type { FieldReader } from './fields.js';
import { hasMetadataRoot } from './location.js';
import { readApplyTo, readMatch, validateBindings, type ApplyToEntry, type DecodedMatch } from './match.js';

const PARAMETERS = ['spec', 'parameters'];
const FROM_LIST = [...PARAMETERS, 'values', 'fromList'];

interface ModifySetSpec {
  location: string;
  applyTo: ApplyToEntry[];
  match: DecodedMatch;
  pathTests: RawPathTest[];
  operation: 'merge' | 'prune';
  fromList: JsonValue[];
}

export function readModifySet(r: FieldReader): ModifySetSpec {
  r.object(['spec'], ['applyTo', 'match', 'location', 'parameters']);
  r.object(PARAMETERS, ['pathTests', 'operation', 'values']);
  // `values` preserves unknown fields (x-kubernetes-preserve-unknown-fields): no warning for them.
  r.object([...PARAMETERS, 'values']);
  return {
    location: r.string(LOCATION_FIELD) ?? '',
    applyTo: readApplyTo(r),
    match: readMatch(r),
    pathTests: readPathTests(r),
    // CRD enum and default (+kubebuilder:default=merge).
    operation: (r.enumString([...PARAMETERS, 'operation'], ['merge', 'prune']) as 'merge' | 'prune' | undefined) ?? 'merge',
    fromList: r.array(FROM_LIST) ?? [],
  };
}

export function constructModifySet(r: FieldReader, header: MutatorHeader, spec: ModifySetSpec): GatekeeperMutator | Refusal {
  const { name } = header;
  const nameCheck = checkName(r, name);
  if (nameCheck) return nameCheck;
  const location = parseLocationField(r, spec.location, `invalid location format \`${spec.location}\` for ModifySet ${name}`);
  if (location instanceof Refusal) return location;
  if (hasMetadataRoot(location)) return refuse(r, `modifyset ${name} can't change metadata`, LOCATION_FIELD);
  // Upstream neither refuses an empty location here (it fails every request at run time) nor applies
  // CheckKeyNotChanged to ModifySet.
  if (location.length > 0 && location[location.length - 1]!.type === 'List') {
    return refuse(r, 'final node in a modifyset location cannot be a keyed list', LOCATION_FIELD);
  }
  const tests = buildPathTests(r, 'ModifySet', name, location, spec.pathTests);
  if (tests instanceof Refusal) return tests;
  const bindings = validateBindings('ModifySet', name, spec.applyTo);
  if (bindings) return refuse(r, bindings.message, bindings.index === undefined ? ['spec', 'applyTo'] : ['spec', 'applyTo', bindings.index]);

  const target = targetPath(r, location, tests);
  r.diagnostics.push(...target.warnings);
  const values: Value[] = spec.fromList.map((json, i) => ({ kind: 'literal', json, origin: r.origin([...FROM_LIST, i]) }));
  const op = { kind: 'setMembers' as const, path: target.path, values, mode: spec.operation, origin: r.origin(PARAMETERS) };
  return {
    ...header,
    location,
    applyTo: spec.applyTo,
    schema: { terminalType: 'Set', mustTerminate: false },
    source: spec.match.source,
    policy: buildPolicy(r, { kind: 'ModifySet', name, op, applyTo: spec.applyTo, match: spec.match, guards: target.guards }),
  };
}
