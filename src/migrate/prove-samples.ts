/**
 * Proof rows from the library's own example objects, for a migrated policy that no suite entry or chainsaw test
 * checks: Gatekeeper's library, for one, ships each mutator with `samples/<case>/example.yaml` and no expected
 * result. Each Kubernetes object in the folder of the policy's file (and below it) is admitted twice as a
 * CREATE, as `transmute apply` admits it: through the source (Kyverno, or Gatekeeper's fix-point over the
 * file's mutators) and through the migration (MutatingPolicy or MutatingAdmissionPolicy); the row passes when
 * both allow it and leave the same object.
 *
 * Only what both engines can be asked about proves anything:
 * - an object kube-apiserver would not decode as its kind (a chainsaw assertion, a manifest with a field its
 *   kind does not declare) is not admitted as it is, so its row is not run;
 * - nor one the source cannot admit offline (it reads the cluster, a registry);
 * - custom kinds are typed with the CustomResourceDefinitions the library holds; one of a kind none defines
 *   is not run where the migrated MAP needs its schema;
 * - a policy none of whose objects the source changes gets no rows: agreeing to change nothing proves nothing.
 * Policies with mutate-existing rules are left out: their effect is on other objects than the one admitted.
 */
import { dirname } from 'node:path';
import { renderDiagnosticLine } from '../diagnostics/render.js';
import { dialectFor } from '../dialects/registry.js';
import { undecodedReason, unknownKindMessage } from '../engines/ssa.js';
import { kindSchemasFromCrds } from '../merge/ssa/openapi/load.js';
import { createRuntime } from '../runtime/create.js';
import type { Runtime } from '../runtime/runtime.js';
import { apply } from '../interpreter/index.js';
import { isJsonObject, jsonEqual, type JsonObject, type JsonValue } from '../ir/json.js';
import type { Policy } from '../ir/nodes.js';
import type { SourceDoc } from '../io/source.js';
import { loadYamlText } from '../io/yaml-load.js';
import { gvkOf } from '../k8s/resources.js';
import { asAdmitted, type AdmissionRequest } from '../k8s/request.js';
import { describeDifference, firstDifference } from '../k8s/object-diff.js';
import { parsePolicyDocs } from '../pipeline.js';
import { namespaceFor } from '../dialects/kyverno/apply-inputs.js';
import { resourceLabel } from '../dialects/kyverno/test-suite/select.js';
import { units } from './translate.js';
import type { Library, LibraryFile, Outcome, ProofRow, RowResult, SourcePolicy } from './model.js';

/** At most this many objects per policy: a policy at the top of a large library would otherwise meet all of them. */
export const MAX_SAMPLES_PER_POLICY = 50;

/**
 * API groups of documents that are not objects a cluster admits through mutation: policies and their
 * bindings and exceptions, test tooling, build configuration, policy reports, and the CustomResourceDefinitions
 * that type the examples (libraryRuntime).
 */
const NOT_SAMPLE_GROUPS = [
  'admissionregistration.k8s.io',
  'apiextensions.k8s.io',
  'kyverno.io',
  'policies.kyverno.io',
  'cli.kyverno.io',
  'chainsaw.kyverno.io',
  'kustomize.config.k8s.io',
  'wgpolicyk8s.io',
  'reports.kyverno.io',
];

/** A document that stands for an object a user would create: apiVersion, kind and a named metadata, and no policy. */
function isSampleObject(doc: SourceDoc): boolean {
  const v = doc.value;
  if (!isJsonObject(v) || typeof v.apiVersion !== 'string' || typeof v.kind !== 'string' || !isJsonObject(v.metadata)) return false;
  if (typeof v.metadata.name !== 'string' || v.metadata.name === '') return false;
  const group = v.apiVersion.includes('/') ? v.apiVersion.slice(0, v.apiVersion.indexOf('/')) : '';
  if (NOT_SAMPLE_GROUPS.includes(group) || group.endsWith('.gatekeeper.sh')) return false;
  return dialectFor(doc) === undefined;
}

/** Why kube-apiserver would not decode `object` as its kind (engines/ssa.ts; custom kinds without a schema: never). */
function invalidInstance(object: JsonObject, runtime: Runtime): string | undefined {
  return undecodedReason(object, gvkOf(object), runtime.schemas);
}

/**
 * The runtime the examples are admitted with: the built-in kinds, and the custom kinds of the
 * CustomResourceDefinitions the library holds (a cluster serving the library has them installed), typed as
 * kube-apiserver types them for MAP (`transmute apply --crd`). CRDs that do not convert are left out.
 */
function libraryRuntime(library: Library): Runtime {
  const crds: SourceDoc[] = [];
  for (const file of library.files) {
    for (const doc of file.docs ?? []) {
      const v = doc.value;
      if (isJsonObject(v) && v.apiVersion === 'apiextensions.k8s.io/v1' && v.kind === 'CustomResourceDefinition') crds.push(doc);
    }
  }
  if (crds.length === 0) return createRuntime();
  const kinds = kindSchemasFromCrds(crds);
  return kinds.ok ? createRuntime({ schemas: { kinds: kinds.value } }) : createRuntime();
}

/** Whether `file` lies in `folder` or below it (both relative to DIR, `/`-separated; `.` is DIR itself). */
function within(file: LibraryFile, folder: string): boolean {
  return folder === '.' || file.rel.startsWith(`${folder}/`);
}

interface Sample {
  file: LibraryFile;
  doc: SourceDoc;
  object: JsonObject;
}

/** The example objects under `folder`, in library order, at most MAX_SAMPLES_PER_POLICY. */
function samplesIn(library: Library, folder: string): Sample[] {
  const out: Sample[] = [];
  for (const file of library.files) {
    if (file.role === 'suite' || file.docs === undefined || !within(file, folder)) continue;
    for (const doc of file.docs) {
      if (!isSampleObject(doc)) continue;
      out.push({ file, doc, object: doc.value as JsonObject });
      if (out.length === MAX_SAMPLES_PER_POLICY) return out;
    }
  }
  return out;
}

/** The policies of `docs`, or why they do not parse (not expected: translation parsed both). */
function policiesOf(docs: readonly SourceDoc[]): Policy[] | string {
  const parsed = parsePolicyDocs(docs);
  const errors = parsed.diagnostics.filter((d) => d.severity === 'error');
  return errors.length > 0 ? errors.map((d) => renderDiagnosticLine(d)).join('; ') : parsed.policies;
}

/** The migrated documents as a policy file would hold them (JSON is YAML), named as OUT's copy of the source file. */
function migratedDocs(documents: readonly JsonObject[], display: string): SourceDoc[] | string {
  const loaded = loadYamlText(display, documents.map((d) => JSON.stringify(d)).join('\n---\n'));
  return loaded.ok ? loaded.value : loaded.diagnostics.map((d) => renderDiagnosticLine(d)).join('; ');
}

interface Admitted {
  object: JsonValue;
  allowed: boolean;
  /** The first error the evaluation reported, if any. */
  error: string | undefined;
}

function admit(policies: readonly Policy[], request: AdmissionRequest, runtime: Runtime): Admitted {
  const r = apply(policies, request, { trace: false, patch: false, runtime });
  const error = r.diagnostics.find((d) => d.severity === 'error');
  return { object: r.object, allowed: r.allowed, error: error === undefined ? undefined : error.message };
}

function side(policy: string, status: RowResult['status'], reason: string): RowResult {
  return { policy, rule: '', status, reason };
}

/**
 * Sample rows by source policy key (a Gatekeeper file's rows under its first mutator's key: the report reads
 * a group's rows from all its keys), for the migrated units none of whose keys `proven` already holds rows for.
 * `outDisplay`: how rows name OUT.
 */
export function proveBySamples(library: Library, outcomes: ReadonlyMap<string, Outcome>, proven: ReadonlyMap<string, readonly ProofRow[]>, outDisplay: string): Map<string, ProofRow[]> {
  const out = new Map<string, ProofRow[]>();
  let runtime: Runtime | undefined;
  for (const unit of units(library)) {
    const first = unit[0]!;
    const outcome = outcomes.get(first.key);
    if (outcome?.status !== 'translated' || outcome.documents.length === 0) continue;
    if (unit.some((p) => (proven.get(p.key)?.length ?? 0) > 0 || mutatesExisting(p))) continue;
    const rows = unitRows(library, unit, outcome, outDisplay, (runtime ??= libraryRuntime(library)));
    if (rows.length > 0) out.set(first.key, rows);
  }
  return out;
}

function mutatesExisting(p: SourcePolicy): boolean {
  return p.rules.some((r) => r.kind === 'mutate-existing');
}

function unitRows(library: Library, unit: readonly SourcePolicy[], outcome: Extract<Outcome, { status: 'translated' }>, outDisplay: string, runtime: Runtime): ProofRow[] {
  const first = unit[0]!;
  const folder = dirname(first.file.rel);
  const samples = samplesIn(library, folder);
  if (samples.length === 0) return [];
  const source = policiesOf(unit.map((p) => p.doc));
  const migratedSource = migratedDocs(outcome.documents, `${outDisplay.replace(/\/+$/, '')}/${first.file.rel}`);
  const migrated = typeof migratedSource === 'string' ? migratedSource : policiesOf(migratedSource);
  if (typeof source === 'string' || typeof migrated === 'string') return [];
  const sourceName = unit.map((p) => p.name).join(', ');
  const migratedName = outcome.target.ref;
  const namespaces = samples.map((s) => s.object).filter((o) => o.kind === 'Namespace' && o.apiVersion === 'v1');
  const rows: ProofRow[] = [];
  let changed = false;
  for (const s of samples) {
    const md = s.object.metadata as JsonObject;
    const request: AdmissionRequest = asAdmitted({
      object: s.object,
      oldObject: null,
      operation: 'CREATE',
      userInfo: {},
      namespaceObject: namespaceFor(s.object, namespaces, undefined) ?? null,
      params: null,
      ...(typeof md.namespace === 'string' && md.namespace !== '' ? { namespace: md.namespace } : {}),
    });
    const row = { suite: s.file.path, entry: s.doc.index, resource: resourceLabel(String(s.object.kind), String(md.name), typeof md.namespace === 'string' ? md.namespace : undefined), sample: true as const };
    const invalid = invalidInstance(s.object, runtime);
    if (invalid !== undefined) {
      rows.push({ ...row, original: side(sourceName, 'skipped', 'not run'), migrated: side(migratedName, 'skipped', 'not run'), notRun: `not a ${String(s.object.kind)} kube-apiserver decodes: ${invalid}` });
      continue;
    }
    const before = admit(source, request, runtime);
    if (!before.allowed || before.error !== undefined) {
      rows.push({ ...row, original: side(sourceName, 'skipped', 'not run'), migrated: side(migratedName, 'skipped', 'not run'), notRun: `the source could not admit it offline: ${before.error ?? 'denied'}` });
      continue;
    }
    const mutated = !jsonEqual(before.object, s.object);
    if (mutated) changed = true;
    const after = admit(migrated, request, runtime);
    // A custom resource's kind without its CustomResourceDefinition in the library: kube-apiserver types the
    // object with the CRD's schema; what the cluster would do is not known here.
    if (after.error !== undefined && after.error.includes(unknownKindMessage(gvkOf(s.object)))) {
      rows.push({ ...row, original: side(sourceName, 'skipped', 'not run'), migrated: side(migratedName, 'skipped', 'not run'), notRun: `no schema for ${String(s.object.apiVersion)} ${String(s.object.kind)}: kube-apiserver types it with its CustomResourceDefinition's schema, which the library does not hold` });
      continue;
    }
    const original = side(sourceName, 'passed', mutated ? 'changed the object' : 'left the object unchanged');
    let result: RowResult;
    if (!after.allowed || after.error !== undefined) result = side(migratedName, 'failed', `the migrated policy ${after.allowed ? 'reported' : 'denied the request'}: ${after.error ?? 'denied'}`);
    else {
      const d = firstDifference(before.object, after.object);
      result = d === undefined ? side(migratedName, 'passed', original.reason) : side(migratedName, 'failed', `a different object than the source's: ${describeDifference(d)}`);
    }
    rows.push({ ...row, original, migrated: result });
  }
  return changed ? rows : [];
}
