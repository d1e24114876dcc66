/**
 * Gatekeeper's ExpansionTemplate (`expansion.gatekeeper.sh` v1alpha1 and v1beta1, whose specs are identical:
 * apis/expansion/v1alpha1 and v1beta1 convert to one `unversioned` type) read into the fields the expansion
 * system uses: `applyTo` (exact groups, versions and kinds, no operations and no globs), `templateSource`,
 * `generatedGVK` and `enforcementAction`.
 *
 * Reading is lenient as runtime.DefaultUnstructuredConverter is: a missing field is empty; a field of the
 * wrong type is refused (TM2002) as the API server's schema would refuse it.
 */
import { ok, fail, type Result } from '../../../diagnostics/diagnostic.js';
import type { Origin } from '../../../diagnostics/span.js';
import { isJsonObject, type JsonValue } from '../../../ir/json.js';
import type { SourceDoc, YamlPath } from '../../../io/source.js';
import type { GroupVersionKind } from '../../../k8s/request.js';
import { FieldReader } from '../fields.js';

export const EXPANSION_GROUP = 'expansion.gatekeeper.sh';
export const EXPANSION_KIND = 'ExpansionTemplate';
/** The versions the CRD serves (config/crd/bases/expansion.gatekeeper.sh_expansiontemplate.yaml). */
export const EXPANSION_VERSIONS: readonly string[] = ['v1alpha1', 'v1beta1'];

/** match.ApplyTo: a GVK matches when its group, version and kind are each listed (exact strings). */
export interface TemplateApplyTo {
  groups: string[];
  versions: string[];
  kinds: string[];
}

export interface ExpansionTemplate {
  name: string;
  applyTo: TemplateApplyTo[];
  /** A dotted path into the generator (`spec.template`, `spec.jobTemplate`), split on `.` with no escapes. */
  templateSource: string;
  generatedGVK: GroupVersionKind;
  /** Overrides the enforcement action of violations found on the resultants; '' keeps the Constraint's. */
  enforcementAction: string;
  /** Where the template was written, when it was read from a document. */
  origin?: Origin;
}

/** `apiVersion` split as schema.ParseGroupVersion does for a well-formed value. */
export function splitApiVersion(apiVersion: string): { group: string; version: string } {
  const slash = apiVersion.indexOf('/');
  return slash < 0 ? { group: '', version: apiVersion } : { group: apiVersion.slice(0, slash), version: apiVersion.slice(slash + 1) };
}

/** The GVK of an object (`Unstructured.GroupVersionKind()`): empty strings for what it lacks. */
export function gvkOfObject(value: JsonValue | undefined): GroupVersionKind {
  if (!isJsonObject(value)) return { group: '', version: '', kind: '' };
  const apiVersion = typeof value.apiVersion === 'string' ? value.apiVersion : '';
  const kind = typeof value.kind === 'string' ? value.kind : '';
  return { ...splitApiVersion(apiVersion), kind };
}

/** gator's isExpansion: the expansion group and kind, in any version (gator converts without a scheme check). */
export function isExpansionTemplate(value: JsonValue | undefined): boolean {
  const gvk = gvkOfObject(value);
  return gvk.group === EXPANSION_GROUP && gvk.kind === EXPANSION_KIND;
}

export function isExpansionTemplateDoc(doc: SourceDoc): boolean {
  return isExpansionTemplate(doc.value);
}

/** `apply.Matches(gvk)` of match.ApplyTo. */
export function applyToMatches(entry: TemplateApplyTo, gvk: GroupVersionKind): boolean {
  return entry.groups.includes(gvk.group) && entry.versions.includes(gvk.version) && entry.kinds.includes(gvk.kind);
}

/** Every GVK an applyTo list names (db.go applyToGVKs: groups × versions × kinds, duplicates kept). */
export function applyToGvks(applyTo: readonly TemplateApplyTo[]): GroupVersionKind[] {
  const out: GroupVersionKind[] = [];
  for (const a of applyTo) for (const group of a.groups) for (const version of a.versions) for (const kind of a.kinds) out.push({ group, version, kind });
  return out;
}

/** schema.GroupVersionKind.String(), as upstream messages print a GVK (`/v1, Kind=Pod`). */
export function gvkString(gvk: GroupVersionKind): string {
  return `${gvk.group}/${gvk.version}, Kind=${gvk.kind}`;
}

export function gvkKey(gvk: GroupVersionKind): string {
  return `${gvk.group}\u0000${gvk.version}\u0000${gvk.kind}`;
}

/** GroupVersion.String(): `v1` for the core group, `group/version` otherwise. */
export function apiVersionOf(gvk: Pick<GroupVersionKind, 'group' | 'version'>): string {
  return gvk.group === '' ? gvk.version : `${gvk.group}/${gvk.version}`;
}

const SPEC: YamlPath = ['spec'];

/** Reads an ExpansionTemplate document; type errors are refusals (TM2002) at the field. */
export function readExpansionTemplate(doc: SourceDoc): Result<ExpansionTemplate> {
  const r = new FieldReader(doc);
  r.object(['metadata']);
  const name = r.string(['metadata', 'name']) ?? '';
  r.object(SPEC);
  const applyTo = (r.array([...SPEC, 'applyTo']) ?? []).map((_, i) => {
    const at = [...SPEC, 'applyTo', i];
    r.object(at);
    return { groups: r.stringList([...at, 'groups']) ?? [], versions: r.stringList([...at, 'versions']) ?? [], kinds: r.stringList([...at, 'kinds']) ?? [] };
  });
  const gvkAt = [...SPEC, 'generatedGVK'];
  r.object(gvkAt);
  const template: ExpansionTemplate = {
    name,
    applyTo,
    templateSource: r.string([...SPEC, 'templateSource']) ?? '',
    generatedGVK: { group: r.string([...gvkAt, 'group']) ?? '', version: r.string([...gvkAt, 'version']) ?? '', kind: r.string([...gvkAt, 'kind']) ?? '' },
    enforcementAction: r.string([...SPEC, 'enforcementAction']) ?? '',
    origin: r.origin([]),
  };
  if (r.diagnostics.some((d) => d.severity === 'error')) return fail(...r.diagnostics);
  return ok(template, r.diagnostics);
}
