/**
 * The data of a kaptest manifest (pfnet/kaptest internal/tester/manifest.go `TestManifests`, v1alpha1) once
 * its files are read, and the rows `transmute test` reports for it.
 */
import type { Span } from '../../../diagnostics/span.js';
import type { JsonObject } from '../../../ir/json.js';
import type { SourceDoc } from '../../../io/source.js';
import type { TestRow } from '../../../io/test-row.js';

/** `NameWithGVK`: group and version are optional, kind and name required, namespace narrows when given. */
export interface ObjectRef {
  group?: string;
  version?: string;
  kind: string;
  namespace?: string;
  name: string;
  span: Span;
}

/** `NamespacedName` of `param`: its GVK comes from the policy's `spec.paramKind`. */
export interface ParamRef {
  namespace?: string;
  name: string;
  span: Span;
}

/** kaptest's `UserInfo`: the YAML keys are `name`, `groups` and `extra` (yaml.v2 lowercases `Extra`). */
export interface KaptestUserInfo {
  name?: string;
  groups?: string[];
  extra?: Record<string, string[]>;
}

export type Expectation = 'mutate' | 'skip' | 'error';

/** One `mapTestSuites[].tests[]` entry. Fields that failed to read leave a `problem` instead of a value. */
export interface MapTestCase {
  /** `mapTestSuites[i].tests[j]`: where the test is, for rows. */
  label: string;
  span: Span;
  object?: ObjectRef;
  oldObject?: ObjectRef;
  param?: ParamRef;
  expect?: Expectation;
  expectObject?: ObjectRef;
  userInfo: KaptestUserInfo;
  disableNameOverwrite: boolean;
  /** Why the entry cannot run as written (a missing or malformed field), with the place in the manifest. */
  problems: { message: string; span: Span }[];
}

export interface MapTestSuite {
  /** `mapTestSuites[i]`. */
  label: string;
  span: Span;
  /** The MutatingAdmissionPolicy's `metadata.name`. */
  policy: string;
  /** Optional MutatingAdmissionPolicyBinding name among the policy files (kaptest `binding`). */
  binding?: string;
  tests: MapTestCase[];
}

/** A `vapTestSuites[]` entry: kept only to report that it is not run. */
export interface VapTestSuite {
  label: string;
  policy: string;
  tests: { label: string }[];
}

export interface KaptestManifest {
  /** The manifest as reached from the user's PATH argument. */
  file: string;
  /** Absolute folder of the manifest: `policies` and `resources` are relative to it (kaptest chdirs there). */
  dir: string;
  /** Every document of the `policies` files, in order. */
  policies: SourceDoc[];
  /** Every document of the `resources` files that is a mapping, in order. */
  resources: ResourceDoc[];
  mapTestSuites: MapTestSuite[];
  vapTestSuites: VapTestSuite[];
}

export interface ResourceDoc {
  value: JsonObject;
  doc: SourceDoc;
}

export type { RowStatus } from '../../../io/test-row.js';

/**
 * One reported line: `policy` is the MAP name, `rule` the test's place in the manifest, `resource` kaptest's own
 * summary of the request (diff: expectObject against the mutated object, after normalisation).
 */
export type KaptestRow = TestRow;
