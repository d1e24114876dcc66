/**
 * Reads a `kyverno-test.yaml` and every file it names (cmd/cli/kubectl-kyverno/test: LoadTest, and
 * commands/test runTest's loading). The test is decoded as `kyverno test` decodes it (strict-decode.ts): a
 * field the cli.kyverno.io/v1alpha1 Test lacks, the old form's `resource`, `patchedResource`, `status` and
 * `namespace` included, fails the load; so does the old form itself (no apiVersion or kind, or a top-level
 * `name`), which Kyverno refuses since 1.15. Files are resolved against the test's folder.
 */
import { folderOf } from '../../../io/relative-files.js';
import { diagnostic, fail, ok, type Diagnostic, type Result } from '../../../diagnostics/diagnostic.js';
import { isJsonObject, type JsonObject, type JsonValue } from '../../../ir/json.js';
import type { SourceDoc } from '../../../io/source.js';
import type { Span } from '../../../diagnostics/span.js';
import { displayName, readSuiteDocs, type SuiteFiles } from './files.js';
import type { SuiteResult, TestSuite } from './model.js';
import { readImageData, type ImageDataTable } from '../../../cel/lib/image-data.js';
import { readClusterResources } from './cluster-resources.js';
import { readGlobalContextEntries } from './global-context.js';
import { decodeStrictly, type StrictDecoded } from './strict-decode.js';

export const TEST_FILE_NAME = 'kyverno-test.yaml';

/** The fields of a test naming files of documents, read in this order (the first unreadable one is the error). */
const FILE_LISTS = ['policies', 'resources', 'targetResources', 'exceptions', 'paramResources', 'clusterResources'] as const;

const str = (o: JsonObject | undefined, key: string): string | undefined => (typeof o?.[key] === 'string' ? (o[key] as string) : undefined);
const strings = (v: JsonValue | undefined): string[] => (Array.isArray(v) ? v.filter((x): x is string => typeof x === 'string') : []);

/**
 * Loads the test at `path` (absolute or relative to cwd): its first document (see loadTestSuites for all).
 * `display` is how the user reached it, and names the test and its files in rows and diagnostics.
 */
export function loadTestSuite(path: string, display: string = path): Result<TestSuite> {
  const { files, name } = folderOf(path, display);
  const docs = readSuiteDocs(files, name);
  if (!docs.ok) return docs;
  return suiteOf(files, display, docs.value[0]);
}

/**
 * Every test of the file at `path`: LoadTest reads each YAML document of a kyverno-test.yaml as a test of its
 * own (`---` between them), each loaded or failing alone.
 */
export function loadTestSuites(path: string, display: string = path): Result<TestSuite>[] {
  const { files, name } = folderOf(path, display);
  const docs = readSuiteDocs(files, name);
  if (!docs.ok) return [docs];
  return docs.value.length === 0 ? [suiteOf(files, display, undefined)] : docs.value.map((doc) => suiteOf(files, display, doc));
}

/** The test of document `doc` of the test file `display` (undefined: the file holds none). */
function suiteOf(files: SuiteFiles, display: string, given: SourceDoc | undefined): Result<TestSuite> {
  const first = mappingOf(given, display);
  if (!first.ok) return first;
  const { doc, mapping } = first.value;
  // With a span, the diagnostic names the file itself.
  const malformed = (message: string, span?: Span): Result<TestSuite> => fail(diagnostic('TM7003', { phase: 'io', message: span ? message : `${display}: ${message}`, ...(span ? { span } : {}) }));
  const notATest = (kind: string): Result<TestSuite> => malformed(`not a Kyverno Test (kind ${JSON.stringify(kind)}; want cli.kyverno.io/v1alpha1 Test)`, doc.spanOf(['kind']));
  // Another kind of document (a manifest under a test's name) is said as such before its fields are.
  if (typeof mapping.kind === 'string' && mapping.kind !== 'Test') return notATest(mapping.kind);
  const decoded = decodeStrictly(mapping, 'test');
  if (!decoded.ok) return fail(decodeError(doc, decoded));
  const t = decoded.value;
  // commands/test: deprecations.CheckTest stops the run at a test of the old form (Go's empty strings: unset).
  const set = (key: string): boolean => (str(t, key) ?? '') !== '';
  if (!set('apiVersion') || !set('kind') || set('name')) {
    const at = set('name') ? doc.keySpanOf(['name']) : doc.spanOf([]);
    return malformed(`test file uses a deprecated schema — please migrate to the latest format (cli.kyverno.io/v1alpha1 Test with apiVersion, kind and metadata.name)`, at);
  }
  if (t.kind !== 'Test') return notATest(String(t.kind));
  if (!Array.isArray(t.results)) return malformed('the test has no "results" list');

  const docsOf = (key: string): Result<SourceDoc[]> => {
    const value = t[key];
    const out: SourceDoc[] = [];
    for (const name of strings(value)) {
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
  const values = variablesFile ? readDecoded(files, variablesFile, 'values') : ok(isJsonObject(t.values) ? t.values : undefined);
  if (!values.ok) return values;
  // The Context file (cmd/cli/kubectl-kyverno/apis/v1alpha1 Context): its `spec.images` answer the image
  // registry reads of the suite's policies (FakeContextProvider.AddImageData), offline.
  const contextFile = str(t, 'context');
  const context = contextFile ? readDecoded(files, contextFile, 'context') : ok(undefined);
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
  const userInfo = userInfoFile ? readDecoded(files, userInfoFile, 'userInfo') : ok(undefined);
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
    name: str(metadata, 'name') ?? display.slice(display.lastIndexOf('/') + 1),
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

/** `doc` (of the file shown as `shown`) as a mapping, with its positions; a document that is none, or none at all, is TM1005. */
function mappingOf(doc: SourceDoc | undefined, shown: string): Result<{ doc: SourceDoc; mapping: JsonObject }> {
  if (!doc || !isJsonObject(doc.value)) return fail(diagnostic('TM1005', { phase: 'io', message: `${shown}: expected one YAML mapping`, ...(doc ? { span: doc.spanOf([]) } : {}) }));
  return ok({ doc, mapping: doc.value });
}

/** The first document of file `name`, which must be a mapping, with its positions. */
function firstMapping(files: SuiteFiles, name: string): Result<{ doc: SourceDoc; mapping: JsonObject }> {
  const docs = readSuiteDocs(files, name);
  if (!docs.ok) return docs;
  return mappingOf(docs.value[0], displayName(files, name));
}

/** The TM7003 of a document kyverno test's UnmarshalStrict refuses (its errors carry these two prefixes). */
function decodeError(doc: SourceDoc, decoded: Extract<StrictDecoded, { ok: false }>): Diagnostic {
  const { message, path, atKey } = decoded.error;
  const span = atKey ? doc.keySpanOf(path) : doc.spanOf(path);
  return diagnostic('TM7003', { phase: 'io', message: `error unmarshaling JSON: while decoding JSON: ${message}`, span });
}

/**
 * The values, user info or context file `name` as kyverno test reads it: decoded strictly, and a values or user
 * info file refused in the old form without apiVersion or kind (variables.New and runTest: deprecations.CheckValues,
 * CheckUserInfo).
 */
function readDecoded(files: SuiteFiles, name: string, as: 'values' | 'userInfo' | 'context'): Result<JsonObject> {
  const first = firstMapping(files, name);
  if (!first.ok) return first;
  const { doc, mapping } = first.value;
  const decoded = decodeStrictly(mapping, as);
  if (!decoded.ok) return fail(decodeError(doc, decoded));
  const v = decoded.value;
  // A Context file has no such check.
  if (as !== 'context' && ((str(v, 'apiVersion') ?? '') === '' || (str(v, 'kind') ?? '') === '')) {
    const message = `${as} file ${name} uses a deprecated schema — please migrate to the latest format (apiVersion cli.kyverno.io/v1alpha1 and a kind)`;
    return fail(diagnostic('TM7003', { phase: 'io', message, span: doc.spanOf([]) }));
  }
  return ok(v);
}

function resultEntry(entry: JsonObject, index: number): SuiteResult {
  const resources = strings(entry.resources);
  const rule = str(entry, 'rule');
  const patched = str(entry, 'patchedResources');
  const operation = str(entry, 'operation');
  const ruleless = ['isMutatingAdmissionPolicy', 'isValidatingAdmissionPolicy', 'isMutatingPolicy', 'isValidatingPolicy', 'isGeneratingPolicy', 'isDeletingPolicy', 'isImageValidatingPolicy'].some(
    (k) => entry[k] === true,
  );
  return {
    index,
    policy: str(entry, 'policy') ?? '',
    ...(rule ? { rule } : {}),
    kind: str(entry, 'kind') ?? '',
    resources,
    result: str(entry, 'result') ?? '',
    ...(operation ? { operation } : {}),
    ...(patched ? { patchedResources: patched } : {}),
    ruleless,
    raw: entry,
  };
}
