/**
 * Replays a chainsaw test against an in-memory cluster: policy documents become the active policy set,
 * applied resources go through admission (CREATE, or UPDATE of the stored object), and `assert` / `error`
 * steps check the stored objects with chainsaw's partial matching. Asserts on non-resources (policy status,
 * reports, events) cannot be checked offline and are left out; a case with no resource assert left is
 * `unsupported`, never a vacuous pass. The API server's own part is modelled where assertions observe it
 * (chainsaw-apiserver.ts over src/k8s/defaults: defaulting of built-in kinds before admission, after each
 * MutatingAdmissionPolicy mutation and on storage, the default admission plugins, typed persistence; the
 * `default` ServiceAccount of every namespace; a CustomResourceDefinition's kind, scope and schema for the
 * steps after it), and the background controller runs
 * after each write, delete and policy install (chainsaw-background.ts) for Kyverno policies with
 * `mutate.targets` and for MutatingPolicies with `evaluation.mutateExisting` (with `--via kyverno-mpol`, for the
 * MutatingPolicies a Kyverno case's mutate-existing rules translate into).
 */
import { apply } from '../../interpreter/index.js';
import { copyObject, defineOwn, hasOwn, isJsonObject, jsonEqual, type JsonObject, type JsonValue } from '../../ir/json.js';
import type { Policy } from '../../ir/nodes.js';
import type { SourceDoc } from '../../io/source.js';
import { asAdmitted, type AdmissionRequest } from '../../k8s/request.js';
import { describeDifference, subsetDifference } from '../compare.js';
import { isNamespacedKind, kindOf, namespaceStub } from '../kinds.js';
import { BUILT_IN_DIALECTS } from '../../dialects/registry.js';
import { firstError, MAP_CANNOT_MUTATE_EXISTING, missingDialect, preparePolicies, translateMutateExisting } from '../policies.js';
import type { CaseResult, ChainsawCase } from '../types.js';
import type { RunContext } from './context.js';
import { crdFacts, defaultServiceAccount, persistedWithDefaults } from './chainsaw-apiserver.js';
import { admittedObject, applyApiServerDefaults } from '../../k8s/defaults/index.js';
import { hasMutateExistingRules } from '../../dialects/kyverno/mutate-existing.js';
import { NEEDS_CLUSTER_DATA } from '../../dialects/kyverno/context.js';
import { backgroundPolicies, MpolBackground, runBackground, runOnPolicyUpdate, type BackgroundStore } from './chainsaw-background.js';
import { UNSUPPORTED_OFFLINE } from '../../cel/lib/kyverno-context.js';
import type { KyvernoDataProvider } from '../../cel/lib/kyverno-context.js';
import { createRuntime } from '../../runtime/create.js';
import { deriveRuntime, withKinds, type Runtime } from '../../runtime/runtime.js';
import { mutatesExisting } from '../../dialects/kyverno-mpol/recognize.js';
import { guessResource, kindOfResource, lookupKind, parseApiVersion } from '../../k8s/resources.js';
import { apiGet } from './api-server.js';
import { clusterGlobalContext } from './global-context-entries.js';

/** Namespaces every cluster has. */
const SYSTEM_NAMESPACES = ['default', 'kube-system', 'kube-public', 'kube-node-lease'];
/** Chainsaw talks to the API server as the cluster admin. */
const ADMIN = { username: 'kubernetes-admin', groups: ['system:masters', 'system:authenticated'] };
/** Who creates a namespace's `default` ServiceAccount (kube-controller-manager's serviceaccount controller). */
const SERVICE_ACCOUNT_CONTROLLER = {
  username: 'system:serviceaccount:kube-system:service-account-controller',
  groups: ['system:serviceaccounts', 'system:serviceaccounts:kube-system', 'system:authenticated'],
};
/** Features whose effects are background mutations of other objects, which admission alone cannot show. */
const BACKGROUND_FEATURES = ['mutateExisting', 'mpol:mutateExisting', 'mutateExistingOnPolicyUpdate'];
const OFFLINE_CONTEXT_ENTRY = 'unsupported offline: context entry';
/** dialects/kyverno/context.ts: an entry that reads the cluster, without a value supplied. */
const CLUSTER_CONTEXT_ENTRY = new RegExp(`context entry ("[^"]*") \\((configMap|apiCall|globalReference)\\) ${NEEDS_CLUSTER_DATA}`);

export function runChainsawCase(c: ChainsawCase, ctx: RunContext): CaseResult {
  const missing = missingDialect(c.dialect, ctx.via, ctx.dialects);
  if (missing) return missing;
  // Policies may come in any write step (chainsaw `apply` of a policy file too).
  const policyDocs = c.steps.flatMap((s) => ('docs' in s && s.op !== 'assert' && s.op !== 'error' ? s.docs : []));
  // Kyverno `mutate.targets` rules are simulated (chainsaw-background.ts), or translated into MutatingPolicies
  // with `--via kyverno-mpol`; MutatingPolicies with evaluation.mutateExisting are simulated (MpolBackground).
  const kyvernoExisting = c.dialect === 'kyverno' && policyDocs.some(hasMutateExistingRules);
  const mpolExisting = c.dialect === 'kyverno-mpol' && policyDocs.some(mutatesExisting);
  if (kyvernoExisting && ctx.via === 'map') return { status: 'unsupported', class: 'cannot', reason: `translation to map: ${MAP_CANNOT_MUTATE_EXISTING}` };
  if (kyvernoExisting && ctx.via === 'gatekeeper') return { status: 'unsupported', class: 'cannot', reason: 'translation to gatekeeper: Gatekeeper mutates only the object of an admission request; it cannot mutate existing resources (mutate.targets)' };
  if (kyvernoExisting && ctx.via !== undefined && ctx.via !== 'kyverno-mpol') return { status: 'unsupported', class: 'yet', reason: `translation to ${ctx.via}: Kyverno mutate-existing rules are not translated to ${ctx.via} yet` };
  if (mpolExisting && ctx.via !== undefined && ctx.via !== 'kyverno-mpol') {
    const existing = policyDocs.find(mutatesExisting)!;
    return ctx.via === 'map'
      ? { status: 'unsupported', class: 'cannot', reason: `translation to map: ${describe(existing.value as JsonObject)}: MutatingAdmissionPolicy cannot mutate existing resources (it runs only at admission)` }
      : { status: 'unsupported', class: ctx.via === 'gatekeeper' ? 'cannot' : 'yet', reason: `translation to ${ctx.via}: ${describe(existing.value as JsonObject)}: ${ctx.via === 'gatekeeper' ? 'Gatekeeper mutates only the object of an admission request' : 'a MutatingPolicy that mutates existing resources is not translated to Kyverno yet'}` };
  }
  const background = c.features.find((f) => BACKGROUND_FEATURES.includes(f));
  if (background && !kyvernoExisting && !mpolExisting) {
    return { status: 'unsupported', reason: `${background}: background mutation of existing objects is not simulated for this case` };
  }
  const modes = { kyverno: kyvernoExisting && ctx.via === undefined, mpol: mpolExisting || (kyvernoExisting && ctx.via === 'kyverno-mpol') };
  const result = new Replay(c, ctx, modes).run();
  // A policy that needs data offline cannot have (http, image registries): the case says so, not a failure.
  if (result.status === 'failed' && result.reason?.includes(UNSUPPORTED_OFFLINE)) {
    const reason = result.reason;
    return { status: 'unsupported', reason: reason.slice(reason.indexOf(UNSUPPORTED_OFFLINE)).split(/[;)]/)[0]! };
  }
  // The same for a Kyverno imageRegistry context entry without the image's metadata (dialects/kyverno/context.ts).
  if (result.status === 'failed' && result.reason?.includes(OFFLINE_CONTEXT_ENTRY)) {
    const reason = result.reason;
    return { status: 'unsupported', reason: reason.slice(reason.indexOf(OFFLINE_CONTEXT_ENTRY)).split(/[;]/)[0]! };
  }
  // And for a configMap, apiCall or globalReference entry the replay does not answer (a namespaced Policy's, a
  // service call, a global reference; dialects/kyverno/context-cluster.ts answers the others): the corpus marks
  // its cases that read them as needing a cluster, a chainsaw test read as written is not marked.
  const entry = result.status === 'failed' ? CLUSTER_CONTEXT_ENTRY.exec(result.reason ?? '') : null;
  if (entry) return { status: 'unsupported', reason: `context entry ${entry[1]} (${entry[2]}) reads the cluster in a way the replay does not answer (a namespaced Policy's entry, a service call, a global reference)` };
  return result;
}

class Replay {
  private readonly objects = new Map<string, JsonObject>();
  private policyDocs: SourceDoc[] = [];
  private policies: Policy[] = [];
  private readonly notes: string[] = [];
  private generated = 0;

  /** MutatingPolicies with evaluation.mutateExisting (the source's, or the translation's with `--via`). */
  private readonly mpol: MpolBackground | undefined;
  /**
   * The case's runtime, whose Kyverno CEL libraries (resource.Get, resource.List) read the replayed cluster,
   * with the apiserver's defaulting; CustomResourceDefinitions the steps install add their kinds to it.
   */
  private runtime: Runtime;
  /** Kinds CustomResourceDefinitions installed, by "group|Kind": their scope and plural resource. */
  private readonly customKinds = new Map<string, { namespaced: boolean; plural: string }>();
  private readonly store: BackgroundStore;
  /** Whether `mutate.targets` rules run after writes, deletes and policy installs. */
  private readonly background: boolean;

  constructor(
    private readonly c: ChainsawCase,
    private readonly ctx: RunContext,
    modes: { kyverno: boolean; mpol: boolean },
  ) {
    this.background = modes.kyverno;
    const cluster = { objects: () => this.objects.values(), list: (av: string, res: string, ns: string) => this.list(av, res, ns), kindOf: (av: string, res: string) => this.kindOfResource(av, res) };
    const provider: KyvernoDataProvider = {
      getResource: (av, res, ns, name) => this.lookup(av, res, ns, name),
      listResources: (av, res, ns) => this.list(av, res, ns),
      globalContext: clusterGlobalContext(cluster),
      apiGet: (urlPath) => apiGet(cluster, urlPath),
    };
    this.runtime = deriveRuntime(ctx.runtime ?? createRuntime(), { kyvernoData: provider, defaulter: applyApiServerDefaults });
    const replay = this;
    this.store = {
      objects: this.objects,
      keyOf: (o) => objectKey(o),
      requestFor: (o) => ({ userInfo: ADMIN, namespaceObject: this.namespaceObject(String(metadata(o).namespace ?? '')) }),
      // Read on use: a CustomResourceDefinition installed by a step replaces the runtime.
      get runtime() {
        return replay.runtime;
      },
    };
    this.mpol = modes.mpol
      ? new MpolBackground({
          objects: this.store.objects,
          keyOf: this.store.keyOf,
          requestFor: this.store.requestFor,
          get runtime() {
            return replay.runtime;
          },
          provider,
        })
      : undefined;
    // Namespaces that exist before any step runs: the cluster's own and the one chainsaw creates for the test.
    // They are what a policy matching `Namespace` finds as triggers on install (mutateExistingOnPolicyUpdate).
    // The API server labels every namespace with its name (NamespaceDefaultLabelName).
    for (const name of new Set([...SYSTEM_NAMESPACES, c.namespace])) {
      const ns = namespaceStub(name, { 'kubernetes.io/metadata.name': name });
      this.objects.set(objectKey(ns), ns);
      this.createdByCluster(defaultServiceAccount(name));
    }
  }

  /** Background rules for one trigger; their failures only become notes (Kyverno records them on the UR). */
  private runBackground(trigger: AdmissionRequest): void {
    if (!this.background) return;
    for (const e of runBackground(backgroundPolicies(this.policyDocs), trigger, this.store)) this.notes.push(`background: ${e}`);
  }

  run(): CaseResult {
    const dialect = (this.ctx.dialects ?? BUILT_IN_DIALECTS).byName(this.c.dialect)!;
    let checked = 0;
    for (const step of this.c.steps) {
      switch (step.op) {
        case 'policy':
        case 'apply':
        case 'create':
        case 'update':
        case 'patch': {
          const policyDocs = step.docs.filter((d) => dialect.recognizes(d));
          if (policyDocs.length > 0) {
            const r = this.addPolicies(policyDocs);
            if (r) return r;
          }
          for (const doc of step.docs) if (!dialect.recognizes(doc) && isJsonObject(doc.value)) this.admit(step.op, step.file, doc.value);
          break;
        }
        case 'assert':
        case 'error': {
          if (step.nonResource) break;
          for (const [i, doc] of step.docs.entries()) {
            if (!isJsonObject(doc.value)) continue;
            checked++;
            const expected = withoutStatus(doc.value);
            const r = step.op === 'assert' ? this.assert(step.file, i, expected) : this.refute(step.file, i, expected);
            if (r) return r;
          }
          break;
        }
        case 'delete':
          this.remove(step.ref);
          break;
        case 'wait-policy-ready':
        case 'sleep':
          break;
      }
    }
    if (checked === 0) return { status: 'unsupported', reason: 'no resource assertion can be checked offline' };
    return { status: 'passed' };
  }

  private addPolicies(given: SourceDoc[]): CaseResult | undefined {
    // A namespaced policy (Kyverno `Policy`) without a namespace lands in the test namespace, like any other
    // namespaced object chainsaw applies; left without one it would apply to no namespace at all.
    const docs = given.map((d) => (isJsonObject(d.value) ? { ...d, value: this.placed(d.value) } : d));
    const key = (d: SourceDoc): string => `${kindOf(d.value)}|${String(metadata(d.value).namespace ?? '')}|${String(metadata(d.value).name ?? '')}`;
    const replaced = new Set(docs.map(key));
    this.policyDocs = [...this.policyDocs.filter((d) => !replaced.has(key(d))), ...docs];
    const r = this.reload();
    if (r) return r;
    if (this.background) for (const e of runOnPolicyUpdate(docs, this.store)) this.notes.push(`background: ${e}`);
    if (this.mpol) {
      // Policy events of the MutatingPolicies installed by this step (translated ones with `--via`).
      let installed: readonly SourceDoc[] = docs;
      if (this.ctx.via === 'kyverno-mpol') {
        const t = translateMutateExisting(docs, this.c.id, this.ctx.admitted);
        installed = t.kind === 'ready' ? t.docs : [];
      }
      for (const e of this.mpol.installed(installed)) this.notes.push(`background: ${e}`);
    }
    return undefined;
  }

  private reload(): CaseResult | undefined {
    if (this.policyDocs.length === 0) {
      this.policies = [];
      this.mpol?.reload([]);
      return undefined;
    }
    const prepared = preparePolicies({ id: this.c.id, dialect: this.c.dialect, policyDocs: this.policyDocs, siblingDocs: [] }, this.ctx.via, this.ctx.admitted, this.ctx.dialects);
    if (prepared.kind === 'stop') return prepared.result;
    if (prepared.kind === 'rejected') return { status: 'failed', reason: `policies rejected: ${firstError(prepared.diagnostics)}` };
    this.policies = prepared.policies;
    this.mpol?.reload(prepared.docs ?? this.policyDocs);
    return undefined;
  }

  /** An admission request of a step (`userInfo` the test's admin) or of a controller of the cluster. */
  private admit(op: string, file: string, doc: JsonObject, userInfo: AdmissionRequest['userInfo'] = ADMIN): void {
    const object = this.placed(doc);
    const key = objectKey(object);
    const existing = this.objects.get(key);
    if (existing && op === 'create') {
      this.notes.push(`${file}: create of an existing ${describe(object)} refused`);
      return;
    }
    const written = existing && (op === 'apply' || op === 'patch') ? overlay(existing, object) : object;
    // The request body decoded with its kind's defaults, then (CREATE) the built-in admission plugins.
    const admitted = existing ? applyApiServerDefaults(written) : admittedObject(written, 'CREATE', (this.generated++).toString(36).padStart(5, '0'));
    const candidate = isJsonObject(admitted) ? admitted : written;
    // As kube-apiserver sends it to the webhooks (Kyverno's context holds the whole AdmissionRequest).
    const request: AdmissionRequest = asAdmitted({
      object: candidate,
      oldObject: existing ?? null,
      operation: existing ? 'UPDATE' : 'CREATE',
      userInfo,
      namespaceObject: this.namespaceObject(String(metadata(candidate).namespace ?? '')),
    });
    const result = apply(this.policies, request, { runtime: this.runtime });
    if (!result.allowed || !isJsonObject(result.object)) {
      this.notes.push(`${file}: ${describe(object)} denied: ${firstError(result.diagnostics)}`);
      return;
    }
    const stored = this.withGeneration(persistedWithDefaults(result.object), existing);
    this.objects.set(key, stored);
    if (!existing) this.installed(stored);
    // The background controller sees the persisted object (the UpdateRequest carries the admission request).
    this.runBackground({ ...request, object: stored });
    // A MutatingPolicy's UpdateRequest carries the request its mutating webhook received (before the admission
    // mutations of the replay's policies). Requests denied here create none (in a cluster the webhook may have
    // created one before another webhook denied the request).
    if (this.mpol) for (const e of this.mpol.admitted(request)) this.notes.push(`background: ${e}`);
  }

  /**
   * What the cluster does once an object is first stored: a CustomResourceDefinition makes its kind known (its
   * schema types later MutatingAdmissionPolicy mutations, its scope places later objects); a Namespace gets its
   * `default` ServiceAccount from the service account controller, whose create is an admission request the
   * policies installed by then may mutate or deny (kyverno/policies disable-automountserviceaccounttoken).
   */
  private installed(o: JsonObject): void {
    const crd = crdFacts(o);
    if (crd) {
      this.customKinds.set(`${crd.group}|${crd.kind}`, { namespaced: crd.namespaced, plural: crd.plural });
      if (crd.kinds) this.runtime = withKinds(this.runtime, crd.kinds);
    }
    if (o.kind === 'Namespace' && o.apiVersion === 'v1' && typeof metadata(o).name === 'string') {
      const account = defaultServiceAccount(String(metadata(o).name));
      if (!this.objects.has(objectKey(account))) this.admit('create', '(service account controller)', account, SERVICE_ACCOUNT_CONTROLLER);
    }
  }

  /** An object the cluster holds before any step runs (no policy is installed yet to see its create). */
  private createdByCluster(o: JsonObject): void {
    const key = objectKey(o);
    if (!this.objects.has(key)) this.objects.set(key, o);
  }

  /** Whether objects of this kind are namespaced: a CRD's scope once installed, else the kind-name table. */
  private namespaced(doc: JsonObject): boolean {
    const custom = this.customKinds.get(`${parseApiVersion(String(doc.apiVersion ?? '')).group}|${kindOf(doc)}`);
    return custom ? custom.namespaced : isNamespacedKind(kindOf(doc));
  }

  /** Stored objects of an apiVersion and (plural) resource, in a namespace ('' for all). */
  private list(apiVersion: string, resource: string, namespace: string): JsonObject[] {
    const { group } = parseApiVersion(apiVersion);
    const out: JsonObject[] = [];
    for (const o of this.objects.values()) {
      if (o.apiVersion !== apiVersion) continue;
      const kind = kindOf(o);
      if ((lookupKind(group, kind)?.resource ?? this.customKinds.get(`${group}|${kind}`)?.plural ?? guessResource(kind)) !== resource) continue;
      if (namespace !== '' && String(metadata(o).namespace ?? '') !== namespace) continue;
      out.push(o);
    }
    return out;
  }

  /**
   * A custom resource as the API server stores it (apiextensions customresource strategy): `generation` 1 on
   * create, one more on an update that changes anything but metadata and status. Built-in kinds keep theirs
   * as written (their strategies differ per kind; the replay does not model them).
   */
  private withGeneration(o: JsonObject, existing: JsonObject | undefined): JsonObject {
    if (!this.customKinds.has(`${parseApiVersion(String(o.apiVersion ?? '')).group}|${kindOf(o)}`)) return o;
    const before = existing === undefined ? undefined : metadata(existing).generation;
    const content = (x: JsonObject): JsonObject => Object.fromEntries(Object.entries(x).filter(([k]) => k !== 'metadata' && k !== 'status'));
    const generation = typeof before !== 'number' ? 1 : jsonEqual(content(o), content(existing!)) ? before : before + 1;
    if (metadata(o).generation === generation) return o;
    return { ...o, metadata: { ...metadata(o), generation } };
  }

  /** The kind of a resource's objects: a built-in one's, an installed CRD's, else a stored object's. */
  private kindOfResource(apiVersion: string, resource: string): string | undefined {
    const { group, version } = parseApiVersion(apiVersion);
    const builtIn = kindOfResource({ group, version, resource });
    if (builtIn !== undefined) return builtIn.kind;
    for (const [key, facts] of this.customKinds) if (facts.plural === resource && key.startsWith(`${group}|`)) return key.slice(group.length + 1);
    return undefined;
  }

  private lookup(apiVersion: string, resource: string, namespace: string, name: string): JsonObject | undefined {
    return this.list(apiVersion, resource, namespace).find((o) => metadata(o).name === name && String(metadata(o).namespace ?? '') === namespace);
  }

  private namespaceObject(namespace: string): JsonObject | null {
    if (namespace === '') return null;
    return this.objects.get(objectKey({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: namespace } })) ?? namespaceStub(namespace);
  }

  private assert(file: string, index: number, expected: JsonObject): CaseResult | undefined {
    const candidates = this.candidates(expected);
    const where = `assert ${file}#${index} (${describe(this.placed(expected))})`;
    if (candidates.length === 0) return { status: 'failed', reason: `${where}: not found${this.noteSuffix()}` };
    let first: string | undefined;
    for (const actual of candidates) {
      const d = subsetDifference(expected, actual);
      if (!d) return undefined;
      first ??= describeDifference(d);
    }
    return { status: 'failed', reason: `${where}: ${first}${this.noteSuffix()}` };
  }

  private refute(file: string, index: number, expected: JsonObject): CaseResult | undefined {
    const matching = this.candidates(expected).find((actual) => subsetDifference(expected, actual) === undefined);
    if (!matching) return undefined;
    return { status: 'failed', reason: `error ${file}#${index}: ${describe(matching)} matches, but must not` };
  }

  private remove(ref: JsonObject): void {
    const target = this.placed({ apiVersion: ref.apiVersion ?? '', kind: ref.kind ?? '', metadata: { name: ref.name ?? '', ...(ref.namespace ? { namespace: ref.namespace } : {}) } });
    const key = objectKey(target);
    const existing = this.objects.get(key);
    if (existing) {
      this.objects.delete(key);
      // A delete triggers mutate-existing rules too (match.operations may name DELETE); Kyverno then reads
      // request.oldObject wherever request.object is written (mutate-existing.ts).
      const deletion: AdmissionRequest = asAdmitted({ ...this.store.requestFor(existing), object: null, oldObject: existing, operation: 'DELETE' });
      this.runBackground(deletion);
      if (this.mpol) for (const e of this.mpol.admitted(deletion)) this.notes.push(`background: ${e}`);
      return;
    }
    const before = this.policyDocs.length;
    this.policyDocs = this.policyDocs.filter((d) => objectKey(this.placed(d.value as JsonObject)) !== key);
    if (this.policyDocs.length !== before) this.reload();
  }

  /** Stored objects an assertion document addresses: same apiVersion and kind, namespace, and name if given. */
  private candidates(expected: JsonObject): JsonObject[] {
    const placed = this.placed(expected);
    const md = metadata(placed);
    const out: JsonObject[] = [];
    for (const o of this.objects.values()) {
      if (o.apiVersion !== placed.apiVersion || o.kind !== placed.kind) continue;
      const omd = metadata(o);
      if ((omd.namespace ?? '') !== (md.namespace ?? '')) continue;
      if (typeof md.name === 'string' && omd.name !== md.name) continue;
      out.push(o);
    }
    return out;
  }

  /** The object with the test namespace filled in for namespaced kinds, and a name for `generateName`. */
  private placed(doc: JsonObject): JsonObject {
    const md = metadata(doc);
    const needsNamespace = this.namespaced(doc) && (typeof md.namespace !== 'string' || md.namespace === '');
    const needsName = typeof md.name !== 'string' && typeof md.generateName === 'string';
    if (!needsNamespace && !needsName) return doc;
    const copy = copyObject(doc);
    const m = copyObject(md);
    if (needsNamespace) m.namespace = this.c.namespace;
    if (needsName) m.name = `${String(md.generateName)}${(this.generated++).toString(36).padStart(5, '0')}`;
    copy.metadata = m;
    return copy;
  }

  private noteSuffix(): string {
    return this.notes.length > 0 ? ` (earlier: ${this.notes.join('; ')})` : '';
  }
}

/**
 * An assertion document without its `status`: status is written by controllers, never by admission, and the
 * chainsaw tests assert it only to wait for readiness (a Pod `Running`, a CRD `Established`). Offline no status
 * ever exists, so keeping it would fail every such assert and make every such `error` step pass vacuously.
 */
function withoutStatus(doc: JsonObject): JsonObject {
  if (!hasOwn(doc, 'status')) return doc;
  const copy = copyObject(doc);
  delete copy.status;
  return copy;
}

/** `kubectl apply` onto a stored object, simplified: maps merge recursively, everything else is replaced. */
function overlay(base: JsonValue, patch: JsonValue): JsonObject {
  if (!isJsonObject(base) || !isJsonObject(patch)) return patch as JsonObject;
  const out = copyObject(base);
  for (const k of Object.keys(patch)) {
    const next = patch[k]!;
    defineOwn(out, k, isJsonObject(next) && isJsonObject(out[k]) ? overlay(out[k]!, next) : next);
  }
  return out;
}

function metadata(o: JsonValue): JsonObject {
  return isJsonObject(o) && isJsonObject(o.metadata) ? o.metadata : {};
}

function objectKey(o: JsonObject): string {
  const md = metadata(o);
  return `${String(o.apiVersion ?? '')}|${kindOf(o)}|${String(md.namespace ?? '')}|${String(md.name ?? '')}`;
}

function describe(o: JsonObject): string {
  const md = metadata(o);
  return `${kindOf(o)} ${md.namespace ? `${String(md.namespace)}/` : ''}${String(md.name ?? md.generateName ?? '')}`;
}
