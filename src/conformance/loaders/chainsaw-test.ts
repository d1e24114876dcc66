/**
 * A chainsaw test as its authors write it (`chainsaw-test.yaml`, chainsaw.kyverno.io/v1alpha1 Test), read into
 * the replay's case (runners/chainsaw.ts), or the reason it cannot be replayed offline. The steps' `try`
 * operations become the replay's: `apply`, `create`, `update`, `patch` of a file or an inline `resource` (a
 * file of policies installs them), `assert` and `error` (an assert of a policy waits for it to be ready, which
 * an installed policy is), `delete` of a `ref` or a file's objects, `sleep`. `catch`, `finally` and `cleanup`
 * only collect output or clean up: they are not run. Operations that collect output (`describe`, `get`,
 * `events`, `podLogs`) change nothing and are skipped.
 *
 * Not replayed, with the reason:
 * - what needs a live cluster or a shell: `script`, `command`, `wait`, a file glob, an operation with
 *   `expect` or `outputs`;
 * - bindings (`bindings`, a `($name)` value), which the replay does not evaluate; a step template (`use`) is
 *   expanded where its bindings are plain values used whole (chainsaw's `$namespace` is the test's namespace);
 * - a test whose policies do not mutate (validate, generate, verifyImages only), or mix dialects;
 * - an `assert` of a CustomResourceDefinition that no earlier step installs: the test runs in a cluster its CI
 *   prepared beforehand (kyverno/policies installs the CRDs of its third-party kinds before the tests);
 * - a check of what Kyverno itself makes (reports, webhook configurations, generated admission policies,
 *   update requests, events), which the replay does not make.
 */
import { basename, dirname, resolve } from 'node:path';
import { ok, type Result } from '../../diagnostics/diagnostic.js';
import { hasMutateExistingRules } from '../../dialects/kyverno/mutate-existing.js';
import { BUILT_IN_DIALECTS, type DialectSet } from '../../dialects/registry.js';
import { isJsonObject, type JsonObject, type JsonValue } from '../../ir/json.js';
import type { SourceDoc } from '../../io/source.js';
import type { ChainsawCase, ChainsawStep } from '../types.js';
import { malformed, obj, readDocs, str, synthesizedDocs, type CaseFiles } from './common.js';

export const CHAINSAW_TEST_FILE_NAME = 'chainsaw-test.yaml';

/**
 * The namespace a test runs in when its Test names none: chainsaw makes an ephemeral one with a random name
 * (`chainsaw-<adjective>-<animal>`); the replay's is fixed, so that its results are deterministic.
 */
export const EPHEMERAL_TEST_NAMESPACE = 'chainsaw-test';

/** A chainsaw test read for the replay: its case, or why it is not run; and the names of its policies. */
export type ChainsawTestLoad =
  | {
      kind: 'case';
      case: ChainsawCase;
      policies: string[];
      /** The files (absolute paths) its mutating policies come from. */
      policyFiles: string[];
    }
  | { kind: 'not-run'; reason: string; policies: string[] };

const WRITE_OPS = ['apply', 'create', 'update', 'patch'] as const;
const CHECK_OPS = ['assert', 'error'] as const;
const COLLECTORS = new Set(['describe', 'get', 'events', 'podLogs']);
const LIVE_ONLY = new Set(['script', 'command', 'wait']);
/** Kinds Kyverno's controllers make, not the mutations the replay runs. */
const MADE_BY_KYVERNO = new Set([
  'PolicyReport',
  'ClusterPolicyReport',
  'EphemeralReport',
  'ClusterEphemeralReport',
  'MutatingWebhookConfiguration',
  'ValidatingWebhookConfiguration',
  'MutatingAdmissionPolicy',
  'MutatingAdmissionPolicyBinding',
  'ValidatingAdmissionPolicy',
  'ValidatingAdmissionPolicyBinding',
  'UpdateRequest',
  'Event',
]);

/** The mutating policy kinds per dialect (a file of other policies installs nothing the replay runs). */
function mutates(doc: SourceDoc, dialect: string): boolean {
  const v = doc.value;
  if (!isJsonObject(v)) return false;
  if (dialect === 'kyverno') {
    const rules = obj(v.spec)?.rules;
    return (Array.isArray(rules) && rules.some((r) => isJsonObject(r) && r.mutate !== undefined)) || hasMutateExistingRules(doc);
  }
  if (dialect === 'kyverno-mpol') return v.kind === 'MutatingPolicy' || v.kind === 'NamespacedMutatingPolicy';
  if (dialect === 'map') return v.kind === 'MutatingAdmissionPolicy';
  return false;
}

/** Whether a document holds a chainsaw binding (`($name)`), which the replay does not evaluate. */
function holdsBinding(v: JsonValue): boolean {
  return JSON.stringify(v).includes('($');
}

/**
 * Reads the chainsaw test at `path`; `display` names it in reasons and diagnostics; `readFrom` (CaseFiles)
 * where the files it names are read from.
 */
export function loadChainsawTest(path: string, display: string = path, dialects: DialectSet = BUILT_IN_DIALECTS, readFrom?: CaseFiles['readFrom']): Result<ChainsawTestLoad> {
  const files: CaseFiles = { dir: dirname(resolve(path)), display: dirname(display), ...(readFrom ? { readFrom } : {}) };
  const docs = readDocs(files, basename(path));
  if (!docs.ok) return docs;
  const test = docs.value.map((d) => d.value).find((v) => isJsonObject(v) && v.kind === 'Test');
  if (!isJsonObject(test) || typeof test.apiVersion !== 'string' || !test.apiVersion.startsWith('chainsaw.kyverno.io/')) {
    return malformed(`${display}: not a chainsaw Test (chainsaw.kyverno.io Test)`);
  }
  const spec = obj(test.spec) ?? {};
  const policies: string[] = [];
  const notRun = (reason: string): Result<ChainsawTestLoad> => ok({ kind: 'not-run', reason: `not run: ${reason}`, policies });
  if (test.apiVersion !== 'chainsaw.kyverno.io/v1alpha1') return notRun(`${test.apiVersion} tests are not replayed (only chainsaw.kyverno.io/v1alpha1)`);
  // Templating (on by default) changes only values that hold bindings, which are refused where they occur.
  if (spec.bindings !== undefined) return notRun('the test has bindings, which the replay does not evaluate');
  // `spec.namespace` runs the test in that namespace instead of an ephemeral one (chainsaw creates it if needed).
  const namespace = typeof spec.namespace === 'string' && spec.namespace !== '' ? spec.namespace : EPHEMERAL_TEST_NAMESPACE;
  const steps: ChainsawStep[] = [];
  const policyDialects = new Set<string>();
  const policyFiles = new Set<string>();
  let mutating = false;
  // Objects the steps write, by "kind|name", for the CustomResourceDefinitions an assert expects.
  const written = new Set<string>();
  const rawSteps = Array.isArray(spec.steps) ? spec.steps : [];
  for (const [si, rawStep] of rawSteps.entries()) {
    let step = obj(rawStep);
    if (!step) return malformed(`${display}: spec.steps[${si}] is not a mapping`);
    if (step.bindings !== undefined) return notRun(`step ${si + 1} has bindings, which the replay does not evaluate`);
    if (step.use !== undefined) {
      const used = stepTemplate(files, display, obj(step.use) ?? {}, si, namespace);
      if (!used.ok) return used;
      if (typeof used.value === 'string') return notRun(used.value);
      step = used.value;
    }
    const ops = Array.isArray(step.try) ? step.try : [];
    for (const [oi, rawOp] of ops.entries()) {
      const op = obj(rawOp);
      const where = `step ${si + 1} (${str(step, 'name') ?? 'unnamed'}), try[${oi}]`;
      if (!op) return malformed(`${display}: ${where} is not a mapping`);
      const name = Object.keys(op).find((k) => k !== 'description');
      if (name === undefined) continue;
      const body = obj(op[name]) ?? {};
      if (LIVE_ONLY.has(name)) return notRun(`${where} is a ${name} operation, which needs a live cluster`);
      if (COLLECTORS.has(name)) continue;
      if (name === 'sleep') {
        steps.push({ op: 'sleep' });
        continue;
      }
      if (body.expect !== undefined || body.outputs !== undefined || body.bindings !== undefined) return notRun(`${where} has expect, outputs or bindings, which the replay does not evaluate`);
      if (name === 'delete') {
        const ref = obj(body.ref);
        if (ref) {
          steps.push({ op: 'delete', ref });
          continue;
        }
        if (typeof body.file !== 'string') return notRun(`${where}: a delete without a ref or a file`);
      }
      let loaded: SourceDoc[];
      let file: string;
      if (typeof body.file === 'string') {
        file = body.file;
        if (/[*?[]/.test(file)) return notRun(`${where} names files by a glob (${file})`);
        const read = readDocs(files, file);
        if (!read.ok) return read;
        loaded = read.value.filter((d) => isJsonObject(d.value) && Object.keys(d.value).length > 0);
      } else if (isJsonObject(body.resource)) {
        file = `${basename(display)}#${where}`;
        const made = synthesizedDocs(body.resource, file);
        if (!made.ok) return made;
        loaded = made.value;
      } else return notRun(`${where} is a ${name} operation without a file or a resource`);
      if (loaded.some((d) => holdsBinding(d.value))) return notRun(`${where}: ${file} holds bindings (\`($…)\`), which the replay does not evaluate`);
      if (name === 'delete') {
        for (const d of loaded) {
          const md = obj((d.value as JsonObject).metadata) ?? {};
          steps.push({ op: 'delete', ref: { apiVersion: (d.value as JsonObject).apiVersion ?? '', kind: (d.value as JsonObject).kind ?? '', name: md.name ?? '', ...(md.namespace !== undefined ? { namespace: md.namespace } : {}) } });
        }
        continue;
      }
      const policyDocs = loaded.filter((d) => dialects.for(d) !== undefined);
      if ((CHECK_OPS as readonly string[]).includes(name)) {
        // An assert of policies waits for them to be ready: an installed policy is.
        if (policyDocs.length > 0 && policyDocs.length === loaded.length) {
          if (name === 'assert') steps.push({ op: 'wait-policy-ready' });
          continue;
        }
        const unwritten = (d: SourceDoc): boolean => !written.has(`${String((d.value as JsonObject).kind)}|${String(obj((d.value as JsonObject).metadata)?.name ?? '')}`);
        const missingCrd = name === 'assert' ? loaded.find((d) => (d.value as JsonObject).kind === 'CustomResourceDefinition' && unwritten(d)) : undefined;
        if (missingCrd) return notRun(`${where} asserts the CustomResourceDefinition ${String(obj((missingCrd.value as JsonObject).metadata)?.name ?? '')}, which none of its steps installs: the test expects a cluster prepared beforehand`);
        const made = loaded.find((d) => MADE_BY_KYVERNO.has(String((d.value as JsonObject).kind)) && unwritten(d));
        if (made) return notRun(`${where} checks a ${String((made.value as JsonObject).kind)}, which Kyverno itself makes (reports, webhook configurations, generated policies, update requests, events): the replay does not make them`);
        steps.push({ op: name as (typeof CHECK_OPS)[number], file, docs: loaded, nonResource: false });
        continue;
      }
      if (!(WRITE_OPS as readonly string[]).includes(name)) return notRun(`${where}: the ${name} operation is not replayed`);
      for (const d of loaded) written.add(`${String((d.value as JsonObject).kind)}|${String(obj((d.value as JsonObject).metadata)?.name ?? '')}`);
      for (const d of policyDocs) {
        const dialect = dialects.for(d)!.name;
        if (mutates(d, dialect)) {
          mutating = true;
          policyDialects.add(dialect);
          policies.push(String(obj((d.value as JsonObject).metadata)?.name ?? ''));
          if (typeof body.file === 'string') policyFiles.add(resolve(files.dir, body.file));
        }
      }
      steps.push({ op: policyDocs.length > 0 ? 'policy' : (name as (typeof WRITE_OPS)[number]), file, docs: loaded });
    }
  }
  if (!mutating) return notRun('its policies do not mutate; transmute runs mutations only');
  if (policyDialects.size > 1) return notRun(`its policies mix dialects (${[...policyDialects].join(', ')}), which one replay does not run together`);
  const dialect = [...policyDialects][0]!;
  return ok({
    kind: 'case',
    policies,
    policyFiles: [...policyFiles],
    case: { id: display, path: files.dir, corpus: '', source: 'chainsaw-test', dialect, format: 'kyverno-chainsaw', namespace, steps, features: [] },
  });
}

/**
 * A step's `use` of a StepTemplate (chainsaw.kyverno.io/v1alpha1): the template's step with its bindings
 * written in, where each binding is a plain value and each use of one is a whole `($name)` value (as Kyverno's
 * step templates use them: `file: ($file)`, `name: ($name)`). Chainsaw's built-in `$namespace` is the test's
 * namespace (`namespace`) unless the use binds it. Anything else is a reason not to run.
 */
function stepTemplate(files: CaseFiles, display: string, use: JsonObject, si: number, namespace: string): Result<JsonObject | string> {
  const where = `step ${si + 1} uses a step template`;
  if (typeof use.template !== 'string') return ok(`${where} without a template file`);
  const read = readDocs(files, use.template);
  if (!read.ok) return read;
  const template = read.value.map((d) => d.value).find((v) => isJsonObject(v) && v.kind === 'StepTemplate');
  if (!isJsonObject(template)) return malformed(`${display}: ${use.template} is not a chainsaw StepTemplate`);
  const values = new Map<string, JsonValue>([['namespace', namespace]]);
  const bindings = obj(use.with)?.bindings;
  for (const b of Array.isArray(bindings) ? bindings : []) {
    if (!isJsonObject(b) || typeof b.name !== 'string' || b.value === undefined || (typeof b.value === 'string' && b.value.startsWith('('))) return ok(`${where} whose bindings are not plain values`);
    values.set(b.name, b.value);
  }
  let unbound = false;
  const bind = (v: JsonValue): JsonValue => {
    if (typeof v === 'string') {
      const m = /^\(\$([A-Za-z_][A-Za-z0-9_]*)\)$/.exec(v);
      if (!m) return v;
      if (!values.has(m[1]!)) unbound = true;
      return values.get(m[1]!) ?? v;
    }
    if (Array.isArray(v)) return v.map(bind);
    if (isJsonObject(v)) return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, bind(x)]));
    return v;
  };
  const step = bind(obj(template.spec) ?? {}) as JsonObject;
  if (unbound || holdsBinding(step.try ?? null)) return ok(`${where} (${use.template}) with bindings the replay does not evaluate`);
  return ok(step);
}
