/**
 * Reads a `kyverno-test.yaml` and every file it names (cmd/cli/kubectl-kyverno/test: LoadTest, and
 * commands/test runTest's loading): cli.kyverno.io/v1alpha1 `Test` or the legacy form (no apiVersion/kind,
 * `resource`, `patchedResource`, `status`, `namespace`). Files are resolved against the test's folder.
 */
import { folderOf } from '../../../io/relative-files.js';
import { diagnostic, fail, ok, type Result } from '../../../diagnostics/diagnostic.js';
import { isJsonObject, type JsonObject, type JsonValue } from '../../../ir/json.js';
import type { SourceDoc } from '../../../io/source.js';
import { readSuiteDocs, readSuiteObject } from './files.js';
import type { SuiteResult, TestSuite } from './model.js';
import { readImageData, type ImageDataTable } from '../../../cel/lib/image-data.js';
import { readClusterResources } from './cluster-resources.js';
import { readGlobalContextEntries } from './global-context.js';

export const TEST_FILE_NAME = 'kyverno-test.yaml';

/** The fields of a test naming files of documents, read in this order (the first unreadable one is the error). */
const FILE_LISTS = ['policies', 'resources', 'targetResources', 'exceptions', 'paramResources', 'clusterResources'] as const;

const str = (o: JsonObject | undefined, key: string): string | undefined => (typeof o?.[key] === 'string' ? (o[key] as string) : undefined);
const strings = (v: JsonValue | undefined): string[] => (Array.isArray(v) ? v.filter((x): x is string => typeof x === 'string') : []);

/**
 * Loads the test at `path` (absolute or relative to cwd); `display` is how the user reached it, and names the
 * test and its files in rows and diagnostics.
 */
export function loadTestSuite(path: string, display: string = path): Result<TestSuite> {
  const { files, name } = folderOf(path, display);
  const test = readSuiteObject(files, name);
  if (!test.ok) return test;
  const t = test.value;
  const malformed = (message: string): Result<TestSuite> => fail(diagnostic('TM7003', { phase: 'io', message: `${display}: ${message}` }));
  // cli.kyverno.io/v1alpha1 Test, or the legacy form without apiVersion and kind.
  if (t.kind !== undefined && t.kind !== 'Test') return malformed(`not a Kyverno Test (kind ${JSON.stringify(t.kind)}; want cli.kyverno.io/v1alpha1 Test)`);
  if (!Array.isArray(t.results)) return malformed('the test has no "results" list');

  const docsOf = (key: string): Result<SourceDoc[]> => {
    const value = t[key];
    const out: SourceDoc[] = [];
    for (const name of typeof value === 'string' ? [value] : strings(value)) {
      const docs = readSuiteDocs(files, name);
      if (!docs.ok) return docs;
      out.push(...docs.value);
    }
    return ok(out);
  };
  const named = {} as Record<(typeof FILE_LISTS)[number], SourceDoc[]>;
  for (const key of FILE_LISTS) {
    const docs = docsOf(key);
    if (!docs.ok) return docs;
    named[key] = docs.value;
  }

  const cluster = readClusterResources(files, named.clusterResources);
  if (!cluster.ok) return cluster;

  // variables.New: a `variables` file wins over inline `values`.
  const variablesFile = str(t, 'variables');
  const values = variablesFile ? readSuiteObject(files, variablesFile) : ok(isJsonObject(t.values) ? t.values : undefined);
  if (!values.ok) return values;
  // The Context file (cmd/cli/kubectl-kyverno/apis/v1alpha1 Context): its `spec.images` answer the image
  // registry reads of the suite's policies (FakeContextProvider.AddImageData), offline.
  const contextFile = str(t, 'context');
  const context = contextFile ? readSuiteObject(files, contextFile) : ok(undefined);
  if (!context.ok) return context;
  let imageData: ImageDataTable | undefined;
  if (context.value && isJsonObject(context.value.spec) && context.value.spec.images !== undefined) {
    const table = readImageData(context.value);
    if (typeof table === 'string') return malformed(`context ${contextFile}: ${table}`);
    imageData = table;
  }
  // Without clusterResources, the CEL policies' resource library reads the Context file's objects instead
  // (processor.NewContextProvider: the fake context provider).
  const contextResources = context.value && isJsonObject(context.value.spec) && Array.isArray(context.value.spec.resources) ? context.value.spec.resources.filter(isJsonObject) : [];
  const globalContext = readGlobalContextEntries(files, display, t.globalContextEntries);
  if (!globalContext.ok) return globalContext;
  const userInfoFile = str(t, 'userinfo');
  const userInfo = userInfoFile ? readSuiteObject(files, userInfoFile) : ok(undefined);
  if (!userInfo.ok) return userInfo;

  const results: SuiteResult[] = [];
  for (let index = 0; index < t.results.length; index++) {
    const entry = t.results[index];
    if (!isJsonObject(entry)) return malformed(`results[${index}] is not a mapping`);
    results.push(resultEntry(entry, index));
  }
  const metadata = isJsonObject(t.metadata) ? t.metadata : undefined;
  return ok({
    file: display,
    dir: files.dir,
    name: str(metadata, 'name') ?? str(t, 'name') ?? name,
    ...named,
    clusterResources: cluster.value.objects,
    clusterCrds: cluster.value.crds,
    hasClusterResources: named.clusterResources.length > 0,
    ...(values.value ? { values: values.value } : {}),
    ...(userInfo.value ? { userInfo: userInfo.value } : {}),
    apiCallResponses: (Array.isArray(t.apiCallResponses) ? t.apiCallResponses : []).filter(isJsonObject),
    ...(t.context !== undefined ? { context: t.context } : {}),
    ...(imageData ? { imageData } : {}),
    contextResources,
    globalContext: globalContext.value,
    results,
  });
}

function resultEntry(entry: JsonObject, index: number): SuiteResult {
  const resources = strings(entry.resources);
  const legacy = str(entry, 'resource');
  if (legacy) resources.push(legacy);
  const rule = str(entry, 'rule');
  const namespace = str(entry, 'namespace');
  const patched = str(entry, 'patchedResources') ?? str(entry, 'patchedResource');
  const ruleless = ['isMutatingAdmissionPolicy', 'isValidatingAdmissionPolicy', 'isMutatingPolicy', 'isValidatingPolicy', 'isGeneratingPolicy', 'isDeletingPolicy', 'isImageValidatingPolicy'].some(
    (k) => entry[k] === true,
  );
  return {
    index,
    policy: str(entry, 'policy') ?? '',
    ...(rule ? { rule } : {}),
    kind: str(entry, 'kind') ?? '',
    ...(namespace ? { namespace } : {}),
    resources,
    result: str(entry, 'result') ?? str(entry, 'status') ?? '',
    ...(patched ? { patchedResources: patched } : {}),
    ruleless,
    raw: entry,
  };
}
