/**
 * Gatekeeper mutators (Assign, AssignMetadata, ModifySet: mutations.gatekeeper.sh v1, v1beta1, v1alpha1;
 * AssignImage: v1alpha1 only) read from YAML documents into IR policies.
 *
 * A document goes through what the cluster does to it: the API server's schema (types, enums, defaults,
 * unknown fields), then Gatekeeper's construction checks in upstream order, the first failure refusing the
 * mutator with upstream's wording (TM2004; TM2003 for location syntax). An accepted mutator becomes one
 * policy `<Kind>/<name>` with fix-point semantics; `parseMutators` returns them in Gatekeeper's order.
 */
import { diagnostic, fail, failWith, ok, type Diagnostic, type Result } from '../../diagnostics/diagnostic.js';
import { isJsonObject } from '../../ir/json.js';
import type { Policy } from '../../ir/nodes.js';
import type { SourceDoc } from '../../io/source.js';
import { constructAssign, readAssign } from './assign.js';
import { constructAssignImage, readAssignImage } from './assign-image.js';
import { constructAssignMetadata, readAssignMetadata } from './assign-metadata.js';
import { Refusal, type GatekeeperMutator, type MutatorHeader, type MutatorKind } from './common.js';
import { DIALECT, FieldReader } from './fields.js';
import { constructModifySet, readModifySet } from './modify-set.js';
import { pushAll } from '../../util/arrays.js';
import { compareUtf8 } from '../../util/bytes.js';

export type { GatekeeperMutator, MutatorKind, SchemaRole } from './common.js';

export const MUTATIONS_GROUP = 'mutations.gatekeeper.sh';

/** Served versions per kind (the CRDs under config/crd): AssignImage was never promoted. */
const SERVED_VERSIONS: Readonly<Record<MutatorKind, readonly string[]>> = {
  Assign: ['v1', 'v1beta1', 'v1alpha1'],
  AssignMetadata: ['v1', 'v1beta1', 'v1alpha1'],
  ModifySet: ['v1', 'v1beta1', 'v1alpha1'],
  AssignImage: ['v1alpha1'],
};

function isMutatorKind(kind: unknown): kind is MutatorKind {
  return typeof kind === 'string' && Object.prototype.hasOwnProperty.call(SERVED_VERSIONS, kind);
}

function groupVersion(doc: SourceDoc): { group: string; version: string; kind: unknown } | null {
  if (!isJsonObject(doc.value)) return null;
  const apiVersion = doc.value['apiVersion'];
  if (typeof apiVersion !== 'string') return null;
  const slash = apiVersion.indexOf('/');
  const group = slash < 0 ? '' : apiVersion.slice(0, slash);
  const version = slash < 0 ? apiVersion : apiVersion.slice(slash + 1);
  return { group, version, kind: doc.value['kind'] };
}

/** True for a document of one of the four mutator kinds in the mutations group (any version). */
export function isGatekeeperMutator(doc: SourceDoc): boolean {
  const gv = groupVersion(doc);
  return gv !== null && gv.group === MUTATIONS_GROUP && isMutatorKind(gv.kind);
}

function refusal(doc: SourceDoc, code: 'TM1005' | 'TM2001' | 'TM2005', message: string, at: (string | number)[]): Diagnostic {
  return diagnostic(code, { phase: 'parse', message, span: doc.spanOf(at), dialect: DIALECT });
}

/** Reads one mutator document; refused mutators give the diagnostics that explain why. */
export function parseMutator(doc: SourceDoc): Result<GatekeeperMutator> {
  if (!isJsonObject(doc.value)) return fail(refusal(doc, 'TM1005', 'document is not a mapping', []));
  const gv = groupVersion(doc);
  const apiVersion = typeof doc.value['apiVersion'] === 'string' ? doc.value['apiVersion'] : '';
  if (gv === null || gv.group !== MUTATIONS_GROUP || !isMutatorKind(gv.kind) || !SERVED_VERSIONS[gv.kind].includes(gv.version)) {
    const kind = typeof doc.value['kind'] === 'string' ? doc.value['kind'] : '';
    return fail(refusal(doc, 'TM2001', `no matches for kind "${kind}" in version "${apiVersion}"`, ['kind']));
  }

  const r = new FieldReader(doc);
  r.object(['metadata']);
  const name = r.string(['metadata', 'name']);
  if (name === undefined && !r.has(['metadata', 'name'])) r.diagnostics.push(refusal(doc, 'TM2005', 'metadata.name: Required value', ['metadata']));
  const header: MutatorHeader = { kind: gv.kind, apiVersion, name: name ?? '' };

  const built = BUILDERS[header.kind](r, header);
  if (built === undefined) return failWith(r.diagnostics);
  if (built instanceof Refusal) return fail(...r.diagnostics, built.diagnostic);
  return ok(built, r.diagnostics);
}

function hasErrors(r: FieldReader): boolean {
  return r.diagnostics.some((d) => d.severity === 'error');
}

type Builder = (r: FieldReader, header: MutatorHeader) => GatekeeperMutator | Refusal | undefined;

/** A kind's spec read, then, when reading found no error, its construction checks run (undefined: not run). */
function builder<S>(read: (r: FieldReader) => S, construct: (r: FieldReader, header: MutatorHeader, spec: S) => GatekeeperMutator | Refusal): Builder {
  return (r, header) => {
    const spec = read(r);
    return hasErrors(r) ? undefined : construct(r, header, spec);
  };
}

const BUILDERS: Record<MutatorKind, Builder> = {
  Assign: builder(readAssign, constructAssign),
  AssignMetadata: builder(readAssignMetadata, constructAssignMetadata),
  ModifySet: builder(readModifySet, constructModifySet),
  AssignImage: builder(readAssignImage, constructAssignImage),
};

function compareBytes(a: string, b: string): number {
  return compareUtf8(a, b);
}

/**
 * Gatekeeper's mutator order (pkg/mutation/ordered_ids.go): by group, kind, namespace, name, byte-wise. The
 * group is always the mutations group and mutators have no namespace, so this is kind then name.
 */
export function compareMutators(a: Pick<GatekeeperMutator, 'kind' | 'name'>, b: Pick<GatekeeperMutator, 'kind' | 'name'>): number {
  return compareBytes(a.kind, b.kind) || compareBytes(a.name, b.name);
}

export interface ParsedMutators {
  mutators: GatekeeperMutator[];
  /** One per accepted mutator, in Gatekeeper's order. */
  policies: Policy[];
  diagnostics: Diagnostic[];
}

/** Reads the mutator documents among `docs` (others are ignored); refused mutators are left out. */
export function parseMutators(docs: readonly SourceDoc[]): ParsedMutators {
  const mutators: GatekeeperMutator[] = [];
  const diagnostics: Diagnostic[] = [];
  for (const doc of docs) {
    if (!isGatekeeperMutator(doc)) continue;
    const res = parseMutator(doc);
    pushAll(diagnostics, res.diagnostics);
    if (res.ok) mutators.push(res.value);
  }
  mutators.sort(compareMutators);
  return { mutators, policies: mutators.map((m) => m.policy), diagnostics };
}
