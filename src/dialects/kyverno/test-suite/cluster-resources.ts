/**
 * A test's `clusterResources` files as `kyverno test` reads them (commands/test/test.go runTest): each is a
 * cli.kyverno.io/v1alpha1 `ClusterResource` whose `spec.resources` are objects of the fake cluster and whose
 * `spec.crds` name CustomResourceDefinition files, resolved against the test's folder like every file of the
 * test. A document of another kind is taken as an object of the cluster itself (how transmute read these
 * files before the CLI wrapped them).
 */
import { ok, type Result } from '../../../diagnostics/diagnostic.js';
import { isJsonObject, type JsonObject } from '../../../ir/json.js';
import { remappedDoc, type SourceDoc } from '../../../io/source.js';
import { kindSchemasFromCrds } from '../../../merge/ssa/openapi/load.js';
import { deriveRuntime, withKinds, type Runtime } from '../../../runtime/runtime.js';
import { objectsProvider } from '../../kyverno-mpol/mutate-existing.js';
import { readSuiteDocs, type SuiteFiles } from './files.js';

const CLUSTER_RESOURCE_API = 'cli.kyverno.io/v1alpha1';

export interface ClusterResources {
  /** The fake cluster's objects. */
  objects: SourceDoc[];
  /** The CRD documents the ClusterResources name, in order. */
  crds: SourceDoc[];
}

export function readClusterResources(files: SuiteFiles, docs: readonly SourceDoc[]): Result<ClusterResources> {
  const objects: SourceDoc[] = [];
  const crds: SourceDoc[] = [];
  for (const doc of docs) {
    const v = doc.value;
    if (!isJsonObject(v) || v.apiVersion !== CLUSTER_RESOURCE_API || v.kind !== 'ClusterResource') {
      objects.push(doc);
      continue;
    }
    const spec = isJsonObject(v.spec) ? v.spec : {};
    if (Array.isArray(spec.resources)) {
      spec.resources.forEach((resource, i) => {
        if (isJsonObject(resource)) objects.push(remappedDoc(doc, resource, (path) => ['spec', 'resources', i, ...path]));
      });
    }
    for (const name of Array.isArray(spec.crds) ? spec.crds : []) {
      if (typeof name !== 'string') continue;
      const read = readSuiteDocs(files, name);
      if (!read.ok) return read;
      crds.push(...read.value);
    }
  }
  return ok({ objects, crds });
}

/**
 * The runtime of a test that names `clusterResources`: `kyverno test` then builds its fake cluster of the
 * test's resources, targets, parameter objects, the ClusterResources' objects and CRDs, and the CEL
 * libraries read it (resource.Get/List); the CRDs also type their custom kinds. `objects` are the cluster's
 * objects but the CRDs (run.ts fakeCluster).
 */
export function clusterRuntime(base: Runtime, objects: readonly JsonObject[], crds: readonly SourceDoc[]): Result<Runtime> {
  const kinds = kindSchemasFromCrds(crds);
  if (!kinds.ok) return kinds;
  const crdObjects = crds.map((d) => d.value).filter(isJsonObject);
  const typed = kinds.value.size > 0 ? withKinds(base, kinds.value) : base;
  return ok(deriveRuntime(typed, { kyvernoData: objectsProvider([...objects, ...crdObjects]) }));
}
