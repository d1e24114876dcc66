/**
 * The data of a `kyverno-test.yaml` (cli.kyverno.io/v1alpha1 `Test`) once its files are read, and the rows
 * `transmute test` reports for it.
 */
import type { TestRow } from '../../../io/test-row.js';
import type { JsonObject, JsonValue } from '../../../ir/json.js';
import type { SourceDoc } from '../../../io/source.js';
import type { ImageDataTable } from '../../../cel/lib/image-data.js';
import type { GlobalContextEntries } from './global-context.js';

export interface TestSuite {
  /** The test file's path as reached from the user's PATH argument. */
  file: string;
  /** Absolute folder of the test file; every file the test names is relative to it. */
  dir: string;
  name: string;
  policies: SourceDoc[];
  resources: SourceDoc[];
  /** Mutate-existing targets (`targetResources`). */
  targetResources: SourceDoc[];
  exceptions: SourceDoc[];
  paramResources: SourceDoc[];
  /** The fake cluster's objects: the `spec.resources` of the `clusterResources` files (cluster-resources.ts). */
  clusterResources: SourceDoc[];
  /** The CustomResourceDefinitions those files name (`spec.crds`). */
  clusterCrds: SourceDoc[];
  /** The test names `clusterResources` files: `kyverno test` then runs against its fake cluster (API calls allowed). */
  hasClusterResources: boolean;
  /** cli.kyverno.io `Values`: the `variables` file or the inline `values`. */
  values?: JsonObject;
  /** cli.kyverno.io `UserInfo` (the `userinfo` file). */
  userInfo?: JsonObject;
  /** Mocked API call responses: `{url | urlPath, method, response: {statusCode, body}}`. */
  apiCallResponses: JsonObject[];
  /** The CEL policies' context file (`context`), kept for the dialects that read it. */
  context?: JsonValue;
  /** The context file's objects (Context `spec.resources`): what the resource library reads without clusterResources. */
  contextResources: JsonObject[];
  /** `globalContextEntries`, resolved (global-context.ts): what the CEL globalContext library reads without clusterResources. */
  globalContext: GlobalContextEntries;
  /** The context file's images (cli.kyverno.io Context `spec.images`): the runtime's image data for the suite. */
  imageData?: ImageDataTable;
  results: SuiteResult[];
}

/** One `results[]` entry. */
export interface SuiteResult {
  index: number;
  /** As written: `name` or `namespace/name` for a namespaced Policy. */
  policy: string;
  rule?: string;
  kind: string;
  /** `resources`: `name` or `namespace/name`. */
  resources: string[];
  /** `pass`, `skip`, `fail`, `error`. */
  result: string;
  /** The admission operation the entry declares (`operation`): its resources are evaluated again with it. */
  operation?: string;
  /** `patchedResources`, relative to the test folder. */
  patchedResources?: string;
  /** The entry tests a MutatingAdmissionPolicy (or another rule-less policy): any response of it counts. */
  ruleless: boolean;
  raw: JsonObject;
}

export type { RowStatus } from '../../../io/test-row.js';

/** One reported line: a result entry checked against one resource (diff: after Kyverno's tidy). */
export type SuiteRow = TestRow;
