/**
 * `parameters.assign` of Assign and AssignMetadata (apis/mutations/unversioned/value.go AssignField,
 * externaldata_types.go ExternalData): exactly one of `value`, `fromMetadata`, `externalData`.
 */
import type { JsonValue } from '../../ir/json.js';
import type { Value } from '../../ir/nodes.js';
import type { YamlPath } from '../../io/source.js';
import { refuse, type Refusal } from './common.js';
import type { FieldReader } from './fields.js';

export const ASSIGN_FIELD: YamlPath = ['spec', 'parameters', 'assign'];
const VALUE: YamlPath = [...ASSIGN_FIELD, 'value'];
const FROM_METADATA: YamlPath = [...ASSIGN_FIELD, 'fromMetadata'];
const EXTERNAL_DATA: YamlPath = [...ASSIGN_FIELD, 'externalData'];

export type DataSource = 'ValueAtLocation' | 'Username';
export type FailurePolicy = 'Fail' | 'Ignore' | 'UseDefault';

export interface ExternalDataSpec {
  provider: string;
  dataSource: DataSource;
  failurePolicy: FailurePolicy;
  default: string;
}

/** Each member is present exactly when the document sets it to something other than null. */
export interface AssignFieldSpec {
  value?: JsonValue;
  fromMetadata?: { field: string };
  externalData?: ExternalDataSpec;
}

export function readAssignField(r: FieldReader): AssignFieldSpec {
  const out: AssignFieldSpec = {};
  if (r.object(ASSIGN_FIELD, ['value', 'fromMetadata', 'externalData']) === undefined) return out;
  // `value: null` decodes to no value at all (types.Anything behind a nil pointer).
  const value = r.get(VALUE);
  if (value !== undefined) out.value = value;
  if (r.object(FROM_METADATA, ['field']) !== undefined) out.fromMetadata = { field: r.string([...FROM_METADATA, 'field']) ?? '' };
  if (r.object(EXTERNAL_DATA, ['provider', 'dataSource', 'failurePolicy', 'default']) !== undefined) {
    if (!r.has([...EXTERNAL_DATA, 'provider'])) r.report('TM2005', `spec.parameters.assign.externalData.provider: Required value`, EXTERNAL_DATA);
    out.externalData = {
      provider: r.string([...EXTERNAL_DATA, 'provider']) ?? '',
      // CRD defaults (+kubebuilder:default) and enums.
      dataSource: (r.enumString([...EXTERNAL_DATA, 'dataSource'], ['ValueAtLocation', 'Username']) as DataSource | undefined) ?? 'ValueAtLocation',
      failurePolicy:
        (r.enumString([...EXTERNAL_DATA, 'failurePolicy'], ['UseDefault', 'Ignore', 'Fail']) as FailurePolicy | undefined) ?? 'Fail',
      default: r.string([...EXTERNAL_DATA, 'default']) ?? '',
    };
  }
  return out;
}

/** AssignField.Validate, with upstream's messages. External data is taken as enabled (the default flag). */
export function validateAssignField(r: FieldReader, a: AssignFieldSpec): Refusal | null {
  const set = [a.value !== undefined, a.fromMetadata !== undefined, a.externalData !== undefined].filter(Boolean).length;
  if (set === 0) return refuse(r, 'assign must set one of `externalData`, `value` or `fromMetadata`: invalid assign field', ASSIGN_FIELD);
  if (set > 1) return refuse(r, 'assign must only set one of `externalData`, `value` or `fromMetadata`: invalid assign field', ASSIGN_FIELD);
  if (a.fromMetadata && a.fromMetadata.field !== 'namespace' && a.fromMetadata.field !== 'name') {
    return refuse(r, `field ${a.fromMetadata.field} is not recognized: invalid fromMetadata field`, [...FROM_METADATA, 'field']);
  }
  if (a.externalData && a.externalData.failurePolicy === 'UseDefault' && a.externalData.default === '') {
    return refuse(r, '`default` must not be empty when `failurePolicy` is set to `UseDefault`', EXTERNAL_DATA);
  }
  return null;
}

/** The IR value of a validated field. Numbers in `value` stay JSON numbers (upstream decodes them as float64). */
export function assignValue(r: FieldReader, a: AssignFieldSpec): Value {
  if (a.fromMetadata) {
    return { kind: 'fromMetadata', field: a.fromMetadata.field as 'name' | 'namespace', origin: r.origin(FROM_METADATA) };
  }
  if (a.externalData) {
    const e = a.externalData;
    return {
      kind: 'external',
      provider: e.provider,
      source: e.dataSource,
      failurePolicy: e.failurePolicy,
      ...(e.default !== '' ? { default: e.default } : {}),
      origin: r.origin(EXTERNAL_DATA),
    };
  }
  return { kind: 'literal', json: a.value as JsonValue, origin: r.origin(VALUE) };
}

export const ASSIGN_PATHS = { value: VALUE, fromMetadata: FROM_METADATA, externalData: EXTERNAL_DATA } as const;
