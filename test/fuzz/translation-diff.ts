/**
 * A differential of translations: each mutating policy of a library admitted next to its translation to
 * another dialect, on the library's own objects and on seeded variations of them, as `transmute apply` admits
 * them (asAdmitted). Every object both sides allow differently, leave different, or only one side fails on is a
 * difference: either a translation that means something else, or a limit the translation states (its CEL fails
 * with the `transmute:` reason its notes give, or fails where it warned it may), which the report keeps apart. Suite rows prove a migration on
 * the objects the library's authors wrote; the variations reach the shapes they did not (a container whose
 * fields are all set, a port without a name, a list of three), which is where the differences hid.
 *
 * Units: each Kyverno ClusterPolicy / Policy alone; the Gatekeeper mutators of one file together (one
 * fix-point); the MutatingAdmissionPolicies of one folder with its bindings. Variations keep an object one
 * kube-apiserver would decode (kind and types) and one it would admit (list keys stay set and distinct).
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { apply, createRuntime, loadPolicies, translate } from '../../src/index.js';
import { builtinDecodeError, undecodedReason } from '../../src/engines/ssa.js';
import { isJsonObject, jsonEqual, type JsonObject, type JsonValue } from '../../src/ir/json.js';
import { loadYamlText } from '../../src/io/yaml-load.js';
import { describeDifference, firstDifference } from '../../src/k8s/object-diff.js';
import { asAdmitted, type AdmissionRequest, type Operation } from '../../src/k8s/request.js';
import { gvkOf } from '../../src/k8s/resources.js';
import type { Policy } from '../../src/ir/nodes.js';
import type { SourceDoc } from '../../src/io/source.js';
import { NAMED_LISTS } from '../../src/lowering/raise-kyverno-smp.js';
import { mulberry32, pick } from '../support/random.js';

export type SourceDialect = 'kyverno' | 'gatekeeper' | 'map';

export interface DiffOptions {
  dirs: readonly string[];
  source: SourceDialect;
  targets: readonly string[];
  /** Variations per object (the object itself is the first). */
  perObject: number;
  seed: number;
  operation: Operation;
  /** Objects every unit is also admitted with (a pool of common kinds), besides those beside its policies. */
  pool?: readonly JsonObject[];
}

export interface Difference {
  unit: string;
  target: string;
  object: JsonObject;
  /** The translation's CEL failed with a reason its notes state (`transmute: ...`). */
  stated: boolean;
  what: string;
}

export interface DiffReport {
  units: number;
  compared: number;
  /** Variations kube-apiserver would not decode (or would refuse for an empty container or volume name), left out. */
  undecodable: number;
  differences: Difference[];
}

const MAX_OBJECTS_PER_UNIT = 30;

function yamlFiles(dir: string, out: string[] = []): string[] {
  for (const name of readdirSync(dir).sort()) {
    if (name === 'node_modules' || name.startsWith('.git')) continue;
    const path = join(dir, name);
    if (statSync(path).isDirectory()) yamlFiles(path, out);
    else if (/\.ya?ml$/.test(name)) out.push(path);
  }
  return out;
}

function documentsOf(file: string): JsonValue[] {
  try {
    const loaded = loadYamlText(file, readFileSync(file, 'utf8'));
    return loaded.ok ? loaded.value.map((d: SourceDoc) => d.value) : [];
  } catch {
    return [];
  }
}

const POLICY_KINDS: Record<SourceDialect, RegExp> = {
  kyverno: /^(ClusterPolicy|Policy)$/,
  gatekeeper: /^(Assign|AssignMetadata|ModifySet|AssignImage)$/,
  map: /^MutatingAdmissionPolicy(Binding)?$/,
};

function isSourcePolicy(v: JsonValue, source: SourceDialect): v is JsonObject {
  if (!isJsonObject(v) || typeof v.kind !== 'string' || !POLICY_KINDS[source].test(v.kind)) return false;
  if (source === 'kyverno') return typeof v.apiVersion === 'string' && v.apiVersion.startsWith('kyverno.io/') && JSON.stringify(v.spec ?? {}).includes('"mutate"');
  if (source === 'gatekeeper') return typeof v.apiVersion === 'string' && v.apiVersion.startsWith('mutations.gatekeeper.sh/');
  return typeof v.apiVersion === 'string' && v.apiVersion.startsWith('admissionregistration.k8s.io/');
}

/** A Kubernetes object a policy may be admitted with (not a policy, test or tool document). */
function isAdmissible(v: JsonValue): v is JsonObject {
  if (!isJsonObject(v) || typeof v.apiVersion !== 'string' || typeof v.kind !== 'string' || !isJsonObject(v.metadata)) return false;
  if (/kyverno|gatekeeper|admissionregistration|chainsaw|kustomize/.test(v.apiVersion)) return false;
  return !/Policy|Test|Binding|Values|UserInfo|Template|Config$|Expansion|Provider|Kustomization/.test(v.kind);
}

/** The units of the library under `dirs`, each with the objects beside it. */
function unitsOf(opts: DiffOptions): { name: string; docs: JsonObject[]; objects: JsonObject[] }[] {
  const files = opts.dirs.flatMap((d) => yamlFiles(d));
  const docs = new Map(files.map((f) => [f, documentsOf(f)]));
  const objectsUnder = (dir: string): JsonObject[] =>
    [...docs]
      .filter(([f]) => f.startsWith(`${dir}/`))
      .flatMap(([, ds]) => ds.filter(isAdmissible))
      .slice(0, MAX_OBJECTS_PER_UNIT);
  const units: { name: string; docs: JsonObject[]; objects: JsonObject[] }[] = [];
  for (const [file, ds] of docs) {
    const policies = ds.filter((d): d is JsonObject => isSourcePolicy(d, opts.source));
    if (policies.length === 0) continue;
    const objects = [...objectsUnder(dirname(file)), ...(opts.pool ?? [])];
    if (opts.source === 'kyverno') policies.forEach((p, i) => units.push({ name: `${file}#${i} ${String((p.metadata as JsonObject | undefined)?.name ?? '')}`, docs: [p], objects }));
    else if (opts.source === 'gatekeeper') units.push({ name: file, docs: policies, objects });
    else if (policies.some((p) => p.kind === 'MutatingAdmissionPolicy')) {
      // Bindings and params live in files of their own beside the policies.
      const beside = [...docs].filter(([f]) => f !== file && dirname(f) === dirname(file)).flatMap(([f, others]) => others.filter((d): d is JsonObject => isJsonObject(d) && (/Binding$/.test(String(d.kind)) || /param/.test(basename(f)))));
      units.push({ name: file, docs: [...policies, ...beside], objects });
    }
  }
  return units;
}

/** Fields that key a list's elements: a copy of an element gets them changed, so that keys stay distinct. */
const KEY_FIELDS = ['name', 'containerPort', 'port', 'mountPath', 'devicePath', 'ip', 'topologyKey', 'key', 'uid', 'hostPort'];

interface Leaf {
  path: (string | number)[];
  container: boolean;
}

function leaves(v: JsonValue, path: (string | number)[] = [], out: Leaf[] = []): Leaf[] {
  if (Array.isArray(v)) v.forEach((x, i) => leaves(x, [...path, i], out));
  else if (isJsonObject(v)) {
    for (const k of Object.keys(v)) leaves(v[k]!, [...path, k], out);
    if (path.length > 0) out.push({ path, container: true });
  } else out.push({ path, container: false });
  return out;
}

/** Places a variation may change: not apiVersion, kind, metadata or its name and namespace, list keys, images, specs and templates. */
function changeable(l: Leaf): boolean {
  const [first, second] = l.path;
  const last = l.path[l.path.length - 1];
  const parent = l.path[l.path.length - 2];
  if (first === 'apiVersion' || first === 'kind' || (l.path.length === 1 && first === 'metadata')) return false;
  if (first === 'metadata' && l.path.length === 2 && (second === 'name' || second === 'namespace')) return false;
  if (typeof parent === 'number' && typeof last === 'string' && KEY_FIELDS.includes(last)) return false;
  return last !== 'image' && last !== 'spec' && last !== 'template' && last !== 'jobTemplate';
}

const IMAGES = ['nginx', 'Nginx', 'ghcr.io/org/app:1.2', `busybox@sha256:${'ab'.repeat(32)}`, 'localhost:5000/a/b', ' ', 'docker.io/library/nginx:latest'];

const TEXTS = ['', ' ', 'true', 'null', '1e3', '08', 'a"b', "it's", '{{x}}', 'ü', 'a/b', 'A:B', 'yes', '~', '-1', '1.50', 'latest', '*'];

/** A seeded variation of `base`: one or two changes among added labels and annotations, a generated name, removed, changed, copied or emptied members. */
export function variation(base: JsonObject, r: () => number, counter: { n: number }): JsonObject {
  const o = structuredClone(base);
  const md = o.metadata as JsonObject;
  for (let n = 1 + Math.floor(r() * 2); n > 0; n--) {
    const c = r();
    if (c < 0.12) md.labels = { ...(isJsonObject(md.labels) ? md.labels : {}), [pick(r, ['app', 'team', 'tier', 'x'])]: pick(r, ['a', '', 'true', 'web']) };
    else if (c < 0.18) {
      if (typeof md.name === 'string') {
        md.generateName = `${md.name}-`;
        delete md.name;
      }
    } else if (c < 0.24) md.annotations = { ...(isJsonObject(md.annotations) ? md.annotations : {}), [pick(r, ['a', 'example.com/x', 'kubernetes.io/y'])]: pick(r, ['1', '', 'true']) };
    else if (c < 0.3) {
      // An image of another shape: Kyverno's `images` parse it, or fail on it (an upper-case repository).
      const images = leaves(o).filter((l) => l.path[l.path.length - 1] === 'image' && l.path.includes('containers'));
      if (images.length === 0) continue;
      const l = pick(r, images);
      let parent: JsonValue = o;
      for (const step of l.path.slice(0, -1)) parent = (parent as Record<string | number, JsonValue>)[step]!;
      (parent as JsonObject).image = pick(r, IMAGES);
    } else {
      const places = leaves(o).filter(changeable);
      if (places.length === 0) continue;
      const l = pick(r, places);
      let parent: JsonValue = o;
      for (const step of l.path.slice(0, -1)) parent = (parent as Record<string | number, JsonValue>)[step]!;
      const key = l.path[l.path.length - 1]!;
      const holder = parent as Record<string | number, JsonValue>;
      const value = holder[key]!;
      if (c < 0.5) {
        if (Array.isArray(parent)) parent.splice(key as number, 1);
        else delete holder[key];
      } else if (c < 0.7 && !l.container) {
        holder[key] = typeof value === 'string' ? pick(r, [...TEXTS, `${value}x`]) : typeof value === 'number' ? pick(r, [0, value + 1, -1]) : typeof value === 'boolean' ? !value : value;
      } else if (c < 0.9 && Array.isArray(parent) && isJsonObject(value)) {
        const copy = structuredClone(value);
        const u = ++counter.n;
        for (const f of KEY_FIELDS) {
          if (typeof copy[f] === 'string') copy[f] = `${copy[f] as string}-u${u}`;
          else if (typeof copy[f] === 'number') copy[f] = (copy[f] as number) + 1000 + u;
        }
        if (copy.controller === true) copy.controller = false;
        parent.push(copy);
      } else if (!Array.isArray(parent) && isJsonObject(value)) holder[key] = {};
      else if (Array.isArray(value)) holder[key] = [];
    }
  }
  return o;
}

interface Outcome {
  object: JsonValue;
  allowed: boolean;
  error: string | undefined;
}

function admit(policies: readonly Policy[], object: JsonObject, old: JsonObject | null, operation: Operation, runtime: ReturnType<typeof createRuntime>): Outcome {
  const ns = (object.metadata as JsonObject).namespace;
  const request: AdmissionRequest = asAdmitted({
    object: operation === 'DELETE' ? null : object,
    oldObject: operation === 'DELETE' ? object : old,
    operation,
    userInfo: {},
    // The Namespace a cluster would have, with the label kube-apiserver gives every Namespace.
    namespaceObject: typeof ns === 'string' && ns !== '' ? { apiVersion: 'v1', kind: 'Namespace', metadata: { name: ns, labels: { 'kubernetes.io/metadata.name': ns } } } : null,
    params: null,
    ...(typeof ns === 'string' && ns !== '' ? { namespace: ns } : {}),
  });
  const r = apply(policies, request, { trace: false, patch: false, runtime });
  // kube-apiserver decodes what a webhook returns into the built-in kind: a value of the wrong type denies the request.
  const decodeError = r.allowed && isJsonObject(r.object) ? builtinDecodeError(r.object, gvkOf(r.object)) : undefined;
  if (decodeError !== undefined) return { object: null, allowed: false, error: `decode: ${decodeError}` };
  return { object: r.object, allowed: r.allowed, error: r.diagnostics.find((d) => d.severity === 'error')?.message };
}

/** An element of a list the API server requires names in (containers, volumes, env) with an empty name: validation refuses the object whatever admission does. */
function unnamedElement(v: JsonValue, key?: string): boolean {
  if (Array.isArray(v)) return v.some((x) => (key !== undefined && NAMED_LISTS.has(key) && isJsonObject(x) && x.name === '') || unnamedElement(x));
  if (!isJsonObject(v)) return false;
  return Object.keys(v).some((k) => (Array.isArray(v[k]) ? unnamedElement(v[k]!, k) : unnamedElement(v[k]!)));
}

const NEEDS_CLUSTER = /needs a cluster or external data|supply its value offline/;

function seedOf(text: string, seed: number): number {
  let h = 7;
  for (let i = 0; i < text.length; i++) h = (Math.imul(h, 31) + text.charCodeAt(i)) >>> 0;
  return (h ^ seed) >>> 0;
}

export function translationDiff(opts: DiffOptions): DiffReport {
  const runtime = createRuntime({});
  const report: DiffReport = { units: 0, compared: 0, undecodable: 0, differences: [] };
  const counter = { n: 0 };
  for (const unit of unitsOf(opts)) {
    const source = loadPolicies({ name: unit.name, text: unit.docs.map((d) => JSON.stringify(d)).join('\n---\n') });
    if (!source.ok) continue;
    for (const to of opts.targets) {
      const translated = translate(source, { to });
      if (translated.text === '' || translated.diagnostics.some((d) => d.severity === 'error')) continue;
      const target = loadPolicies({ name: `${unit.name} as ${to}`, text: translated.text });
      if (!target.ok) {
        report.differences.push({ unit: unit.name, target: to, object: {}, stated: false, what: `the translation does not load: ${target.diagnostics[0]?.message ?? ''}` });
        continue;
      }
      report.units++;
      // The translation's warnings (TM4003) say where it may fail where its source does not.
      const warned = translated.diagnostics.some((d) => d.code === 'TM4003');
      const r = mulberry32(seedOf(`${unit.name} ${to}`, opts.seed));
      for (const base of unit.objects) {
        for (let k = 0; k < opts.perObject; k++) {
          const object = k === 0 ? base : variation(base, r, counter);
          const old = opts.operation === 'UPDATE' ? (k % 2 === 0 ? base : variation(base, r, counter)) : null;
          if (undecodedReason(object, gvkOf(object)) !== undefined || unnamedElement(object)) {
            report.undecodable++;
            continue;
          }
          const a = admit(source.policies, object, old, opts.operation, runtime);
          // A source that reads the cluster (a context entry, an apiCall) cannot be run offline: nothing to compare.
          if (a.error !== undefined && NEEDS_CLUSTER.test(a.error)) continue;
          const b = admit(target.policies, object, old, opts.operation, runtime);
          report.compared++;
          if (!a.allowed && !b.allowed) continue;
          if (a.allowed === b.allowed && jsonEqual(a.object, b.object) && (a.error === undefined) === (b.error === undefined)) continue;
          const d = firstDifference(a.object, b.object);
          const what = a.error !== undefined || b.error !== undefined ? `source: ${a.error ?? 'no error'}; translation: ${b.error ?? 'no error'}` : d ? describeDifference(d) : `allowed ${String(a.allowed)}, translation ${String(b.allowed)}`;
          // A custom kind needs its CustomResourceDefinition's schema where kube-apiserver types the object (MAP).
          const stated = (b.error ?? '').includes('transmute: ') || (b.error ?? '').includes('There can be a delay between when CustomResourceDefinitions are created') || (warned && a.error === undefined && b.error !== undefined);
          report.differences.push({ unit: unit.name, target: to, object, stated, what });
        }
      }
    }
  }
  return report;
}
