/**
 * Runs of MAP mutations (src/compile/map-rule-runs.ts, issue 17) against the closure interpreter
 * (`interpret: true`, the reference, which runs every mutation as its own rule): random MutatingAdmissionPolicies
 * of 1–8 mutations mixing ApplyConfigurations (labels and annotations maps, nested structs, containers by `map()`
 * and by list literals, maps read from the object, values of the wrong type, undeclared keys, apiVersion/kind)
 * and JSONPatches (add/replace/remove/test/copy/move, `/-`, missing paths, kind changes, `[]`, two steps on one
 * path), variables reading what earlier mutations write, matchConditions, failurePolicy and reinvocationPolicy,
 * over random Pods (fields absent, null, of the wrong type, undeclared). Both must give the same object and
 * patch (key order included), verdict and diagnostics, traced or not, run twice on the same policy objects
 * (compiled code is cached per policy), and leave the request's object as it was. Runtimes with a defaulter or
 * the reference SSA engine make the run step aside, one with the reference typed decoder leaves JSONPatches to
 * their rules: the results must still agree. Fixed cases put maps the run made at a second place (patches
 * reading the object, ops the run leaves to the reference) and change the object's kind mid-run.
 * Mocks count the runs taken and the JSONPatches they applied, so that no comparison passes vacuously.
 */
import { describe, expect, it, vi } from 'vitest';
import { makePods } from '../../bench/pods.js';
import type * as MapRuleRuns from '../../src/compile/map-rule-runs.js';
import type * as MapRunDirect from '../../src/compile/map-run-direct.js';
import type * as MapRunPatch from '../../src/compile/map-run-patch.js';
import type * as MapRunPatchItems from '../../src/compile/map-run-patch-items.js';
import { GENERATED } from '../../src/compile/index.js';
import { REFERENCE_SSA_ENGINE, REFERENCE_TYPED_DECODER } from '../../src/engines/ssa.js';
import { compilePolicy } from '../../src/interpreter/compile.js';
import { apply, type ApplyResult } from '../../src/interpreter/index.js';
import type { JsonObject, JsonValue } from '../../src/ir/json.js';
import type { Policy } from '../../src/ir/nodes.js';
import { applyApiServerDefaults } from '../../src/k8s/defaults/index.js';
import type { AdmissionRequest } from '../../src/k8s/request.js';
import { createRuntime } from '../../src/runtime/create.js';
import { deriveRuntime, type Runtime } from '../../src/runtime/runtime.js';
import { applyConfiguration, jsonPatch, mapPolicyYaml, namedExpression } from '../support/map-policy.js';
import { policiesOf } from '../support/policies.js';
import { mulberry32, pick } from '../support/random.js';
import { differences } from '../support/run-differential.js';

type Rng = () => number;

const seen = vi.hoisted(() => ({ runsTaken: 0, patchesTaken: 0, directTaken: 0, variablesComputed: 0, itemStepsTaken: 0 }));

vi.mock('../../src/compile/map-rule-runs.js', async (importOriginal) => {
  const real = await importOriginal<typeof MapRuleRuns>();
  // Counts the runs that ran rules (a runner that steps aside returns where it started; one that throws failed
  // a rule), so the comparison is known to cover them.
  const mapRuleRuns: typeof real.mapRuleRuns = (rules, c) =>
    real.mapRuleRuns(rules, c)?.map((runner) =>
      runner === undefined
        ? undefined
        : (st, from, kept, admitted, scope) => {
            let next: number | undefined;
            try {
              next = runner(st, from, kept, admitted, scope);
              return next;
            } finally {
              if (next !== from) seen.runsTaken++;
            }
          },
    );
  return { ...real, mapRuleRuns };
});

vi.mock('../../src/compile/map-run-patch.js', async (importOriginal) => {
  const real = await importOriginal<typeof MapRunPatch>();
  // Counts the JSONPatches a run applied itself (undefined: left to the op).
  const patchMembers: typeof real.patchMembers = (facts, hold, doc, steps) => {
    const out = real.patchMembers(facts, hold, doc, steps);
    if (out !== undefined) seen.patchesTaken++;
    return out;
  };
  return { ...real, patchMembers };
});

vi.mock('../../src/compile/map-run-patch-items.js', async (importOriginal) => {
  const real = await importOriginal<typeof MapRunPatchItems>();
  // Counts the steps through list items and the appends a run wrote itself.
  const writeThroughItems: typeof real.writeThroughItems = (doc, path, value, w) => {
    seen.itemStepsTaken++;
    return real.writeThroughItems(doc, path, value, w);
  };
  return { ...real, writeThroughItems };
});

vi.mock('../../src/compile/map-run-direct.js', async (importOriginal) => {
  const real = await importOriginal<typeof MapRunDirect>();
  // Counts the mutations evaluated against the run's activation, and the variables those computed (not reused).
  const proto = real.DirectRun.prototype;
  const evaluate = proto.evaluate;
  const variable = proto.variable;
  const counting: Pick<typeof proto, 'evaluate' | 'variable'> = {
    evaluate(this: typeof proto, r, object) {
      seen.directTaken++;
      return evaluate.call(this, r, object);
    },
    variable(this: typeof proto, i) {
      const outcomes = (this as unknown as { outcomes: unknown[] }).outcomes;
      const before = [...outcomes];
      const out = variable.call(this, i);
      if (outcomes.some((o, k) => o !== before[k])) seen.variablesComputed++;
      return out;
    },
  };
  Object.assign(proto, counting);
  return real;
});

const step = (op: string, path: string, value?: string) => `JSONPatch{op: "${op}", path: ${path}${value === undefined ? '' : `, value: ${value}`}}`;

interface PolicyText {
  failurePolicy: 'Fail' | 'Ignore';
  reinvocationPolicy: 'Never' | 'IfNeeded';
  /** A label selector on the object, as YAML flow text: later policies' matches see what earlier ones wrote. */
  objectSelector: string | undefined;
  matchConditions: string[];
  variables: string[];
  mutations: string[];
}

function policyYaml(name: string, p: PolicyText): string {
  return mapPolicyYaml(name, {
    ...p,
    matchConditions: p.matchConditions.map((c, i) => namedExpression(`c${i}`, c)),
    variables: p.variables.map((v, i) => namedExpression(`v${i}`, v)),
  });
}

/**
 * A template of the generator: `risky` ones fail on some Pods or always (a missing field, the wrong type, an
 * undeclared key, a missing path). A policy either takes them or not, so that both denials and long runs of
 * mutations that all apply are common.
 */
interface Template {
  readonly risky: boolean;
  readonly make: (v: () => string) => string;
  /** Reads `variables.v0`: only for policies with variables. */
  readonly needsVariable?: true;
}
const safe = (make: Template['make']): Template => ({ risky: false, make });
const risky = (make: Template['make']): Template => ({ risky: true, make });
const fixed = (text: string, risk = false): Template => ({ risky: risk, make: () => text });

function choose(r: Rng, templates: readonly Template[], takeRisky: boolean): Template {
  const allowed = takeRisky ? templates : templates.filter((t) => !t.risky);
  return pick(r, allowed);
}

/** Variables: mostly strings (some reading what mutations write), a few of other types. */
const VARIABLES: readonly Template[] = [
  fixed('has(object.metadata.labels.tier) ? object.metadata.labels.tier : "none"'),
  fixed('has(object.metadata.labels.team) ? object.metadata.labels.team : "none"'),
  fixed('has(object.metadata.labels.seen) ? object.metadata.labels.seen : "unseen"'),
  fixed('"example.com/seen" in object.metadata.annotations ? "seen" : "unseen"', true),
  fixed('object.metadata.name + "-" + string(size(object.spec.containers))'),
  fixed('object.metadata.labels.tier', true),
  fixed('has(object.spec.nodeSelector) && "pool" in object.spec.nodeSelector ? object.spec.nodeSelector.pool : "nopool"'),
  fixed('object.kind + "/" + object.apiVersion'),
  fixed('request.operation + "/" + object.metadata.name'),
  fixed('size(object.spec.containers)', true),
  fixed('object.metadata.annotations', true),
  fixed('{"from-variable": "yes"}', true),
];
/** Safe where every variable is a string, as in the policies that take no risky template. */
const LATER_VARIABLES: readonly Template[] = [
  fixed('variables.v0 + "-again"'),
  fixed('has(object.metadata.labels.seen) ? object.metadata.labels.seen : variables.v0'),
  // has() of a variable: the mutations reading this one keep their lets (map-run-direct.ts takes plain reads only).
  fixed('has(variables.v0) ? variables.v0 + "-had" : "none"'),
];

/** A value where a string belongs: constants, variables, reads of the object, for risky policies the wrong type. */
function stringValue(r: Rng, variables: number, takeRisky: boolean): string {
  const roll = r();
  if (roll < 0.3) return pick(r, ['"c"', '"backend"', '"x-y"']);
  if (roll < 0.65 && variables > 0) return `variables.v${Math.floor(r() * variables)}`;
  if (roll < 0.8) return pick(r, ['object.metadata.name', 'string(size(object.spec.containers))', '"k-" + object.metadata.name']);
  if (takeRisky) return pick(r, ['1', 'object.metadata.labels.tier']);
  return '"k-" + object.metadata.name';
}

const TEAM = 'has(object.metadata.labels.team)';
const APPLY_CONFIGURATIONS: readonly Template[] = [
  // kube-apiserver compiles with HomogeneousAggregateLiterals: a map literal of mixed value types does not compile.
  safe((v) => `Object{metadata: Object.metadata{labels: {"managed-by": "transmute", "tier-seen": dyn(${v()})}}}`),
  safe((v) => `Object{metadata: Object.metadata{labels: {"seen": ${v()}}}}`),
  safe((v) => `Object{metadata: Object.metadata{labels: {"team": ${v()}}}}`),
  safe((v) => `Object{metadata: Object.metadata{annotations: {"example.com/seen": ${v()}}}}`),
  safe((v) => `Object{metadata: Object.metadata{annotations: {"example.com/policy": ${v()}}}}`),
  // Maps read from the object put into the patch: writes after must not reach the object's own maps.
  fixed('Object{metadata: Object.metadata{labels: object.metadata.annotations}}'),
  fixed('Object{metadata: Object.metadata{annotations: object.metadata.labels}}'),
  // nodeSelector and tolerations are atomic: an ApplyConfiguration may not change them once set (risky).
  fixed('Object{spec: Object.spec{nodeSelector: object.metadata.labels}}', true),
  fixed('Object{spec: Object.spec{nodeSelector: object.spec.nodeSelector}}'),
  { risky: true, needsVariable: true, make: () => 'Object{metadata: Object.metadata{labels: variables.v0}}' },
  fixed('Object{spec: Object.spec{containers: object.spec.containers.map(c, Object.spec.containers{name: c.name, imagePullPolicy: "IfNotPresent"})}}'),
  fixed('Object{spec: Object.spec{containers: object.spec.containers.map(c, Object.spec.containers{name: c.name, image: c.image + "-x"})}}', true),
  ...['proxy', 'app', 'side-1'].map((name) =>
    fixed(
      `Object{spec: Object.spec{containers: [Object.spec.containers{name: "${name}", image: "registry.example.com/proxy:1.0", ports: [Object.spec.containers.ports{containerPort: 15001, protocol: "TCP"}]}]}}`,
    ),
  ),
  fixed('Object{spec: Object.spec{containers: [Object.spec.containers{name: "app", image: "registry.example.com/app:2"}]}}'),
  fixed('Object{spec: Object.spec{containers: [Object.spec.containers{name: "side-1", imagePullPolicy: "Always"}, Object.spec.containers{name: "proxy", image: "p"}]}}'),
  fixed(
    'Object{spec: Object.spec{securityContext: Object.spec.securityContext{runAsNonRoot: true, seccompProfile: Object.spec.securityContext.seccompProfile{type: "RuntimeDefault"}}}}',
  ),
  fixed('Object{spec: Object.spec{securityContext: Object.spec.securityContext{runAsUser: 1000}}}'),
  risky((v) => `Object{spec: Object.spec{nodeSelector: {"pool": ${v()}}}}`),
  // Nulls: the fused merge leaves them to the reference.
  fixed('Object{metadata: Object.metadata{labels: {"c": "d"}}, spec: Object.spec{securityContext: null}}'),
  fixed('Object{metadata: Object.metadata{annotations: {"k": dyn(null)}}}'),
  fixed('Object{spec: Object.spec{nodeName: dyn(null), restartPolicy: "Never"}}'),
  fixed('Object{metadata: Object.metadata{finalizers: ["example.com/f"]}}'),
  fixed('Object{metadata: Object.metadata{labels: {"n": 1}}}', true),
  fixed('Object{spec: Object.spec{notAField: "x"}}', true),
  fixed('Object{spec: Object.spec{securityContext: Object.spec.securityContext{bogus: 1}}}', true),
  fixed('Object{apiVersion: "v1", kind: "Pod", metadata: Object.metadata{labels: {"ak": "v"}}}'),
  fixed('Object{kind: "Pod", spec: Object.spec{restartPolicy: "Never"}}'),
  safe((v) => `${TEAM} ? Object{metadata: Object.metadata{labels: {"team-seen": ${v()}}}} : Object{}`),
  risky((v) => `Object{spec: Object.spec{tolerations: [Object.spec.tolerations{key: "dedicated", operator: "Equal", value: ${v()}, effect: "NoSchedule"}]}}`),
  safe((v) => `Object{metadata: Object.metadata{labels: {"x": ${v()}}, annotations: {"y": ${v()}}}, spec: Object.spec{restartPolicy: "Never"}}`),
];

const escaped = (key: string) => `"/metadata/annotations/" + jsonpatch.escapeKey("${key}")`;
const JSON_PATCHES: readonly Template[] = [
  fixed(`${TEAM} ? [${step('replace', '"/metadata/labels/team"', 'object.metadata.labels.team + "-owned"')}] : [${step('add', '"/metadata/labels/team"', '"platform"')}]`),
  safe((v) => `has(object.metadata.annotations) ? [${step('add', escaped('example.com/mutated-by'), v())}] : []`),
  safe((v) => `[${step('add', escaped('example.com/mutated-by'), v())}]`),
  fixed(`[${step('remove', '"/metadata/labels/tier"')}]`, true),
  fixed(`has(object.metadata.labels.tier) ? [${step('remove', '"/metadata/labels/tier"')}] : []`),
  fixed(`[${step('test', '"/metadata/labels/tier"', '"backend"')}, ${step('add', '"/metadata/labels/tested"', '"yes"')}]`, true),
  fixed(`[${step('add', '"/spec/tolerations/-"', '{"key": "k", "operator": "Exists"}')}]`, true),
  fixed(`has(object.spec.tolerations) ? [${step('add', '"/spec/tolerations/-"', '{"key": "k", "operator": "Exists"}')}] : [${step('add', '"/spec/tolerations"', '[]')}]`),
  fixed(`[${step('replace', '"/spec/nodeSelector"', 'object.metadata.labels')}]`, true),
  fixed(`[${step('add', '"/spec/nodeSelector"', 'object.metadata.labels')}]`),
  fixed(`[${step('add', '"/metadata/labels"', 'object.metadata.annotations')}]`),
  fixed('[JSONPatch{op: "copy", from: "/metadata/labels", path: "/metadata/annotations"}]', true),
  fixed('[JSONPatch{op: "move", from: "/metadata/annotations", path: "/spec/nodeSelector"}]', true),
  fixed(`[${step('remove', '"/spec/nope/x"')}]`, true),
  fixed(`[${step('replace', '"/kind"', '"Service"')}]`, true),
  fixed(`[${step('replace', '"/apiVersion"', '"apps/v1"')}, ${step('replace', '"/kind"', '"Deployment"')}]`, true),
  fixed(`[${step('replace', '"/kind"', '"Pod"')}]`),
  fixed(`[${step('replace', '"/apiVersion"', '"v1"')}]`),
  fixed('[]'),
  safe((v) => `has(object.metadata.labels) ? [${step('add', '"/metadata/labels/dup"', '"1"')}, ${step('replace', '"/metadata/labels/dup"', v())}] : []`),
  safe((v) => `[${step('add', '"/metadata/labels/dup"', '"1"')}, ${step('replace', '"/metadata/labels/dup"', v())}]`),
  safe((v) => `has(object.spec.nodeSelector) ? [${step('add', '"/spec/nodeSelector/pool"', v())}] : []`),
  safe((v) => `[${step('add', '"/metadata/labels/seen"', v())}]`),
  safe((v) => `[${step('add', '"/metadata/labels/team"', v())}]`),
  fixed(`[${step('add', '"/spec/containers/0/imagePullPolicy"', '"Always"')}]`, true),
  safe((v) => `has(object.metadata.annotations) ? [${step('add', '"/metadata/annotations/seen"', v())}] : [${step('add', '"/metadata/annotations"', '{"seen": "new"}')}]`),
  // Whole members replaced, several unrelated members at once, a scalar set to what it holds, escaped keys.
  fixed(`[${step('add', '"/metadata/labels"', '{"only": "this"}')}]`),
  fixed(`[${step('replace', '"/spec/securityContext"', '{"runAsUser": 7}')}]`),
  safe((v) => `[${step('add', '"/metadata/labels/a"', v())}, ${step('add', '"/metadata/annotations/b"', v())}, ${step('add', '"/spec/restartPolicy"', '"Never"')}]`),
  fixed(`[${step('replace', '"/spec/restartPolicy"', '"Always"')}]`),
  safe((v) => `has(object.metadata.labels) ? [${step('replace', '"/metadata/labels/absent"', v())}] : []`),
  fixed(`[${step('add', escaped('a~b/c'), '"escaped"')}]`),
  fixed(`[${step('add', '"/spec/priorityClassName"', 'object.metadata.name')}, ${step('add', '"/spec/securityContext/runAsNonRoot"', 'true')}]`),
  { risky: true, needsVariable: true, make: () => `[${step('add', '"/metadata/labels"', 'variables.v0')}]` },
  fixed(`[${step('add', '"/metadata/labels/x"', 'null')}]`, true),
  fixed(`[${step('add', '"/spec/nodeSelector"', 'null')}]`, true),
  fixed(`[${step('add', '"/metadata/labels/"', '"empty-key"')}]`, true),
  fixed(`[${step('add', '"/spec/undeclared"', '"x"')}]`, true),
  fixed(`[${step('add', '"/metadata/labels/n"', '1')}]`, true),
  fixed(`[${step('add', '"/metadata"', '{"name": "renamed"}')}]`, true),
  // Steps on nested places: each sees what the one before it wrote.
  fixed(`[${step('add', '"/metadata/labels"', 'null')}, ${step('add', '"/metadata/labels/a"', '"b"')}]`, true),
  fixed(`[${step('add', '"/metadata/labels"', '{"only": "this"}')}, ${step('add', '"/metadata/labels/a"', '"b"')}]`),
  fixed(`[${step('add', '"/spec/securityContext"', '{"runAsUser": 1}')}, ${step('add', '"/spec/securityContext/runAsNonRoot"', 'true')}]`),
  fixed(`[${step('add', '"/metadata/labels/a"', '"b"')}, ${step('add', '"/metadata/labels"', 'object.metadata.annotations')}, ${step('add', '"/metadata/labels/c"', '"d"')}]`, true),
];

const OBJECT_SELECTORS = [
  '{matchLabels: {managed-by: transmute}}',
  '{matchExpressions: [{key: seen, operator: Exists}]}',
  '{matchExpressions: [{key: tier, operator: NotIn, values: [frontend]}]}',
  '{matchExpressions: [{key: team, operator: DoesNotExist}]}',
];

const MATCH_CONDITIONS: readonly Template[] = [
  fixed('object.metadata.namespace != "ns-3"'),
  fixed('has(object.metadata.labels)'),
  fixed('object.metadata.labels.tier != "frontend"', true),
  fixed('size(object.spec.containers) > 0'),
];

function randomPolicy(r: Rng): PolicyText {
  const takeRisky = r() < 0.4;
  const variableCount = Math.floor(r() * 4);
  const value = () => stringValue(r, variableCount, takeRisky);
  const variables = Array.from({ length: variableCount }, (_, i) => choose(r, i > 0 && r() < 0.25 ? LATER_VARIABLES : VARIABLES, takeRisky).make(value));
  const mutations = Array.from({ length: 1 + Math.floor(r() * 8) }, () => {
    if (r() < 0.55) {
      const t = choose(r, variableCount > 0 ? APPLY_CONFIGURATIONS : APPLY_CONFIGURATIONS.filter((a) => a.needsVariable !== true), takeRisky);
      return applyConfiguration(t.make(value));
    }
    return jsonPatch(choose(r, variableCount > 0 ? JSON_PATCHES : JSON_PATCHES.filter((a) => a.needsVariable !== true), takeRisky).make(value));
  });
  const matchConditions = r() < 0.3 ? [choose(r, MATCH_CONDITIONS, takeRisky).make(value)] : [];
  const objectSelector = r() < 0.25 ? pick(r, OBJECT_SELECTORS) : undefined;
  return { failurePolicy: r() < 0.8 ? 'Fail' : 'Ignore', reinvocationPolicy: r() < 0.6 ? 'Never' : 'IfNeeded', objectSelector, matchConditions, variables, mutations };
}

/** One policy, or two (a second one reinvokes the first, IfNeeded, when it changes the object). */
function randomPolicySet(r: Rng, name: string): string {
  const count = r() < 0.6 ? 1 : 2;
  return Array.from({ length: count }, (_, i) => policyYaml(`${name}-${i}`, randomPolicy(r))).join('---\n');
}

const POD_TEMPLATES = makePods(30);

type PodEdit = (pod: JsonObject, r: Rng) => void;
const meta = (pod: JsonObject) => pod.metadata as JsonObject;
const spec = (pod: JsonObject) => pod.spec as JsonObject;
const mapAt = (v: JsonValue | undefined): JsonObject | undefined => (v !== null && typeof v === 'object' && !Array.isArray(v) ? v : undefined);
const firstContainer = (pod: JsonObject): JsonObject | undefined => mapAt((spec(pod).containers as JsonValue[] | undefined)?.[0]);

/** Edits every policy handles: fields absent or empty, labels and annotations the mutations read. */
const SAFE_EDITS: readonly PodEdit[] = [
  (pod) => delete meta(pod).labels,
  (pod) => delete meta(pod).annotations,
  (pod) => (spec(pod).containers = []),
  (pod) => delete spec(pod).nodeSelector,
  (pod) => (spec(pod).securityContext = { runAsUser: 1 }),
  (pod) => (spec(pod).tolerations = [{ key: 'a', operator: 'Exists' }]),
  (pod) => {
    const labels = mapAt(meta(pod).labels);
    if (labels) labels.team = 'preset';
  },
  (pod) => {
    const annotations = mapAt(meta(pod).annotations);
    if (annotations) annotations['example.com/seen'] = 'yes';
  },
];

/** Edits some policies fail on: null, the wrong type, undeclared fields, duplicate keys of a keyed list, another kind. */
const RISKY_EDITS: readonly PodEdit[] = [
  (pod) => (meta(pod).labels = null),
  (pod) => (meta(pod).labels = ['x']),
  (pod) => {
    const labels = mapAt(meta(pod).labels);
    if (labels) labels.tier = 5;
  },
  (pod) => (meta(pod).annotations = null),
  (pod) => delete spec(pod).containers,
  (pod) => {
    const c = firstContainer(pod);
    if (c) c.image = 5;
  },
  (pod) => {
    const c = firstContainer(pod);
    if (c) (spec(pod).containers as JsonValue[]).push({ name: c.name ?? 'app', image: 'dup' });
  },
  (pod) => {
    const c = firstContainer(pod);
    if (c) c.undeclared = { a: 1 };
  },
  (pod) => (spec(pod).nodeSelector = null),
  (pod) => (spec(pod).nodeSelector = 'zone-a'),
  (pod) => (spec(pod).undeclared = { a: 1 }),
  (pod, r) => (spec(pod).securityContext = pick<JsonValue>(r, [{ seccompProfile: { type: 'Localhost', localhostProfile: 'x' } }, null, { runAsNonRoot: 'yes' }])),
  (pod) => delete meta(pod).namespace,
  (pod) => (pod.kind = 'Service'),
];

/** A Pod of the benchmark with up to 3 random edits, for half of them only edits every policy handles. */
function randomPod(r: Rng): JsonObject {
  const pod = structuredClone(pick(r, POD_TEMPLATES));
  const edits = r() < 0.5 ? SAFE_EDITS : [...SAFE_EDITS, ...RISKY_EDITS];
  const count = Math.floor(r() * 4);
  for (let e = 0; e < count; e++) pick(r, edits)(pod, r);
  return pod;
}

const DEFAULT_RUNTIME = createRuntime();
const DEFAULTING = createRuntime({ defaulter: applyApiServerDefaults });
const REFERENCE_SSA = deriveRuntime(DEFAULT_RUNTIME, { merges: { ssa: REFERENCE_SSA_ENGINE } });
/** Runs still merge ApplyConfigurations themselves, and leave every JSONPatch to its rule's body. */
const REFERENCE_DECODER = deriveRuntime(DEFAULT_RUNTIME, { typedDecoder: REFERENCE_TYPED_DECODER });
const runtimeName = (runtime: Runtime) =>
  runtime === DEFAULT_RUNTIME ? 'default' : runtime === DEFAULTING ? 'defaulting' : runtime === REFERENCE_SSA ? 'reference-ssa' : 'reference-decoder';

interface Tally {
  cases: number;
  /** Cases whose untraced generated evaluation ran a run of mutations. */
  runTaken: number;
  /** Of those, the ones allowed with a changed object, and the denied ones. */
  runChanged: number;
  runDenied: number;
}

/**
 * Compares generated and interpreted, untraced and traced, twice on the same policies; the input stays as it
 * was. Returns the untraced generated result and how many runs it took.
 */
function compare(set: Policy[], object: JsonObject, runtime: Runtime, label: string): { result: ApplyResult; runsTaken: number } {
  const request: AdmissionRequest = { object, operation: 'CREATE' };
  const before = JSON.stringify(object);
  const taken = seen.runsTaken;
  const compiled = apply(set, request, { trace: false, runtime });
  const runsTaken = seen.runsTaken - taken;
  const interpreted = apply(set, request, { trace: false, interpret: true, runtime });
  expect(differences(compiled, interpreted), `${label}\nuntraced`).toEqual([]);
  expect(JSON.stringify(object), `${label}\ninput changed`).toBe(before);
  const again = apply(set, request, { trace: false, runtime });
  expect(differences(again, compiled), `${label}\nsecond run`).toEqual([]);
  const traced = apply(set, request, { trace: true, runtime });
  const tracedInterpreted = apply(set, request, { trace: true, interpret: true, runtime });
  expect(differences(traced, tracedInterpreted, { trace: true }), `${label}\ntraced`).toEqual([]);
  expect(differences(traced, compiled), `${label}\ntraced vs untraced`).toEqual([]);
  expect(JSON.stringify(object), `${label}\ninput changed`).toBe(before);
  return { result: compiled, runsTaken };
}

function runRandom(firstSeed: number, seeds: number, podsPerPolicy: number, runtimeOf: (r: Rng) => Runtime): Tally {
  const tally: Tally = { cases: 0, runTaken: 0, runChanged: 0, runDenied: 0 };
  for (let seed = firstSeed; seed < firstSeed + seeds; seed++) {
    const r = mulberry32(seed);
    const yaml = randomPolicySet(r, `p${seed}`);
    const set = policiesOf(`p${seed}.yaml`, yaml);
    for (let k = 0; k < podsPerPolicy; k++) {
      const object = randomPod(r);
      const runtime = runtimeOf(r);
      const label = `seed ${seed} pod ${k} runtime ${runtimeName(runtime)}\n${yaml}\n${JSON.stringify(object)}`;
      const { result, runsTaken } = compare(set, object, runtime, label);
      tally.cases++;
      if (runsTaken === 0) continue;
      tally.runTaken++;
      if (!result.allowed) tally.runDenied++;
      else if (result.object !== object) tally.runChanged++;
    }
  }
  return tally;
}

/**
 * JSONPatch steps through list items and appends (src/compile/map-run-patch-items.ts), each followed by an
 * ApplyConfiguration that types the object they made, and removes: taken, left to the op (an index written
 * otherwise or out of range, an insert, a missing list, an item without its key, a value of the wrong type,
 * nested paths, a key field or an item removed), or failing in the op.
 */
const LIST_PATCHES: readonly string[] = [
  `[${step('add', '"/spec/containers/-"', '{"name": "extra", "image": "x"}')}]`,
  `[${step('add', '"/spec/containers/-"', '{"image": "no-name"}')}]`,
  `[${step('add', '"/spec/containers/-"', '{"name": "app", "image": "same-name"}')}]`,
  `[${step('add', '"/spec/containers/-"', '{"name": "n", "ports": dyn([{"containerPort": "bad"}])}')}]`,
  `[${step('add', '"/spec/containers/0/env/-"', '{"name": "E", "value": "v"}')}]`,
  `[${step('add', '"/spec/containers/0/env"', '[{"name": "E", "value": "v"}]')}, ${step('add', '"/spec/containers/0/env/-"', '{"name": "F", "value": "w"}')}]`,
  `[${step('add', '"/spec/containers/0/imagePullPolicy"', '"Always"')}]`,
  `[${step('replace', '"/spec/containers/0/image"', '"replaced"')}]`,
  `[${step('add', '"/spec/containers/0/image"', '5')}]`,
  `[${step('add', '"/spec/containers/1/image"', '"second"')}]`,
  `[${step('add', '"/spec/containers/0/image"', '"a"')}, ${step('add', '"/spec/containers/1/image"', '"b"')}]`,
  `[${step('add', '"/spec/tolerations/-"', '{"key": "k1", "operator": "Exists"}')}, ${step('add', '"/spec/tolerations/-"', '{"key": "k2", "operator": "Exists"}')}]`,
  `has(object.spec.tolerations) ? [${step('add', '"/spec/tolerations/-"', '{"key": "k", "operator": "Exists"}')}] : [${step('add', '"/spec/tolerations"', '[]')}]`,
  `[${step('add', '"/spec/containers/00/image"', '"leading-zero"')}]`,
  `[${step('add', '"/spec/containers/-/image"', '"dash"')}]`,
  `[${step('add', '"/spec/containers/0"', '{"name": "first", "image": "x"}')}]`,
  `[${step('add', '"/spec/containers/0/ports/-"', '{"containerPort": 9090}')}]`,
  `[${step('add', '"/spec/containers/0/ports/-"', '{"protocol": "UDP"}')}]`,
  `[${step('add', '"/spec/containers/0/ports/0/containerPort"', '9191')}]`,
  `[${step('add', '"/spec/containers/0/resources/limits/cpu"', '"1"')}]`,
  `[${step('add', '"/spec/containers/0/securityContext"', '{"runAsUser": 1}')}, ${step('add', '"/metadata/labels/also"', '"yes"')}]`,
  `[${step('add', '"/metadata/finalizers/-"', '"example.com/f"')}]`,
  `[${step('add', '"/spec/containers/-"', '{"name": "extra", "image": "x"}')}, ${step('add', '"/spec/containers/0/image"', '"first"')}]`,
  // Removes: members on any path, a key field of an item (left to the op), an item, a missing member.
  `[${step('remove', '"/spec/containers/0/image"')}]`,
  `[${step('remove', '"/spec/containers/0/name"')}]`,
  `[${step('remove', '"/spec/containers/0/ports/0/protocol"')}]`,
  `[${step('remove', '"/spec/containers/0/resources/limits/cpu"')}, ${step('add', '"/spec/containers/0/resources/limits/memory"', '"1Gi"')}]`,
  `[${step('remove', '"/metadata/labels/app"')}, ${step('add', '"/metadata/labels/app2"', '"moved"')}]`,
  `[${step('remove', '"/metadata/labels/app"')}, ${step('add', '"/metadata/labels/app"', '"again"')}]`,
  `[${step('remove', '"/spec/containers/0"')}]`,
  `[${step('remove', '"/metadata/labels/missing"')}]`,
  `[${step('remove', '"/spec/nodeSelector"')}, ${step('remove', '"/spec/restartPolicy"')}]`,
];

describe('runs of MAP mutations', () => {
  it('take JSONPatches through list items and appends as the op does, and leave the rest to it', () => {
    const { itemStepsTaken } = seen;
    let cases = 0;
    LIST_PATCHES.forEach((patch, t) => {
      const r = mulberry32(30_000 + t);
      const yaml = policyYaml(`items-${t}`, {
        failurePolicy: 'Fail',
        reinvocationPolicy: 'Never',
        objectSelector: undefined,
        matchConditions: [],
        variables: [],
        mutations: [jsonPatch(patch), applyConfiguration('Object{metadata: Object.metadata{labels: {"after": "x"}}}'), jsonPatch(patch)],
      });
      const set = policiesOf(`items-${t}.yaml`, yaml);
      for (let k = 0; k < 12; k++) {
        const object = randomPod(r);
        compare(set, object, DEFAULT_RUNTIME, `list patch ${t} pod ${k}\n${yaml}\n${JSON.stringify(object)}`);
        cases++;
      }
    });
    expect(cases).toBe(LIST_PATCHES.length * 12);
    // Steps the runs wrote through list items themselves (not left to the op).
    expect(seen.itemStepsTaken - itemStepsTaken).toBeGreaterThan(150);
  });

  it('are made over every stretch of MAP mutations', () => {
    const runs = (mutations: string[]) => {
      const set = policiesOf('runs.yaml', policyYaml('runs', { failurePolicy: 'Fail', reinvocationPolicy: 'Never', objectSelector: undefined, matchConditions: [], variables: [], mutations }));
      return compilePolicy(set[0]!, GENERATED).ruleRuns?.map((run) => run !== undefined);
    };
    const ac = applyConfiguration('Object{metadata: Object.metadata{labels: {"a": "b"}}}');
    const jp = jsonPatch('[]');
    expect(runs([ac, jp, ac])).toEqual([true, true, true]);
    expect(runs([jp, ac])).toEqual([true, true]);
    expect(runs([jp, jp])).toEqual([true, true]);
    expect(runs([ac])).toEqual([true]);
  });

  it('keep maps the run made out of in-place writes once shared, and type by the kind the object has', () => {
    const labels = (entries: string) => applyConfiguration(`Object{metadata: Object.metadata{labels: {${entries}}}}`);
    const container = (fields: string) => applyConfiguration(`Object{spec: Object.spec{containers: [Object.spec.containers{${fields}}]}}`);
    const cases: { variables?: string[]; mutations: string[] }[] = [
      // A nested map the run copied (the app container's resources), put into a new container by a template leaf.
      {
        mutations: [
          container('name: "app", resources: Object.spec.containers.resources{limits: {"cpu": "1"}}'),
          container('name: "side", image: "s", resources: object.spec.containers[0].resources'),
          container('name: "app", resources: Object.spec.containers.resources{limits: {"memory": "1Gi"}}'),
        ],
      },
      {
        mutations: [
          container('name: "app", resources: Object.spec.containers.resources{limits: {"cpu": "1"}}'),
          applyConfiguration('Object{spec: Object.spec{containers: object.spec.containers.map(c, Object.spec.containers{name: c.name + "-copy", image: "s", resources: c.resources})}}'),
          container('name: "app", resources: Object.spec.containers.resources{limits: {"memory": "1Gi"}}'),
        ],
      },
      { mutations: [labels('"a": "b"'), applyConfiguration('Object{metadata: Object.metadata{annotations: object.metadata.labels}}'), labels('"c": "d"')] },
      {
        mutations: [
          applyConfiguration('Object{metadata: Object.metadata{annotations: {"a": "b"}}}'),
          applyConfiguration('Object{metadata: Object.metadata{labels: object.metadata.annotations}}'),
          applyConfiguration('Object{metadata: Object.metadata{annotations: {"c": "d"}}}'),
        ],
      },
      { mutations: [labels('"a": "b"'), jsonPatch(`[${step('add', '"/metadata/annotations"', 'object.metadata.labels')}]`), labels('"c": "d"')] },
      { mutations: [labels('"a": "b"'), jsonPatch(`[${step('add', '"/metadata/annotations"', 'object.metadata.labels')}]`), jsonPatch(`[${step('add', '"/metadata/labels/c"', '"d"')}]`)] },
      {
        mutations: [
          labels('"a": "b"'),
          jsonPatch(`[${step('add', '"/metadata/labels/x"', '"y"')}]`),
          jsonPatch(`[${step('add', '"/metadata/annotations"', '{"copy": object.metadata.labels.x}')}]`),
          applyConfiguration('Object{metadata: Object.metadata{annotations: object.metadata.labels}}'),
          labels('"c": "d"'),
        ],
      },
      { variables: ['object.metadata.labels'], mutations: [labels('"a": "b"'), applyConfiguration('Object{metadata: Object.metadata{annotations: variables.v0}}'), labels('"c": "d"')] },
      { variables: ['object.metadata.labels'], mutations: [labels('"a": "b"'), jsonPatch(`[${step('add', '"/metadata/annotations"', 'variables.v0')}]`), labels('"c": "d"')] },
      // Mutations the run leaves to their op (remove, copy, an ApplyConfiguration naming apiVersion and kind)
      // between the ones it takes: what it owns is handed over and taken back around each.
      {
        mutations: [
          labels('"a": "b"'),
          jsonPatch(`has(object.metadata.labels.z) ? [${step('remove', '"/metadata/labels/z"')}] : []`),
          applyConfiguration('Object{metadata: Object.metadata{annotations: object.metadata.labels}}'),
          jsonPatch(`[${step('remove', '"/metadata/labels/a"')}]`),
        ],
      },
      {
        mutations: [
          labels('"a": "b"'),
          jsonPatch(`has(object.metadata.labels.z) ? [${step('remove', '"/metadata/labels/z"')}] : []`),
          applyConfiguration('Object{metadata: Object.metadata{annotations: object.metadata.labels}}'),
          applyConfiguration('Object{apiVersion: "v1", kind: "Pod", metadata: Object.metadata{labels: {"c": "d"}}}'),
        ],
      },
      // Type keys other than the object's: the engine merges the object's own (ssa.ts withTargetTypeKeys).
      { mutations: [labels('"a": "b"'), applyConfiguration('Object{apiVersion: "apps/v1", kind: "Deployment", metadata: Object.metadata{labels: {"c": "d"}}}'), labels('"e": "f"')] },
      // A null in the patch leaves the merge to the op's reference path.
      {
        mutations: [
          labels('"a": "b"'),
          jsonPatch(`has(object.metadata.labels.z) ? [${step('remove', '"/metadata/labels/z"')}] : []`),
          applyConfiguration('Object{metadata: Object.metadata{annotations: object.metadata.labels}}'),
          applyConfiguration('Object{metadata: Object.metadata{labels: {"c": "d"}}, spec: Object.spec{securityContext: null}}'),
        ],
      },
      { mutations: [labels('"a": "b"'), jsonPatch('[JSONPatch{op: "copy", from: "/metadata/labels", path: "/metadata/annotations"}]'), labels('"c": "d"')] },
      // A `test` step leaves the patch to the op's reference path, which shares the value it puts.
      { mutations: [labels('"a": "b"'), jsonPatch(`[${step('test', '"/metadata/name"', '"p"')}, ${step('add', '"/metadata/annotations"', 'object.metadata.labels')}]`), labels('"c": "d"')] },
      {
        mutations: [
          labels('"a": "b"'),
          jsonPatch(`[${step('test', '"/metadata/name"', '"p"')}, ${step('add', '"/metadata/annotations"', 'object.metadata.labels')}]`),
          jsonPatch(`[${step('add', '"/metadata/labels/c"', '"d"')}]`),
        ],
      },
      { mutations: [labels('"a": "b"'), jsonPatch('[JSONPatch{op: "copy", from: "/metadata/labels", path: "/metadata/annotations"}]'), jsonPatch(`[${step('add', '"/metadata/labels/c"', '"d"')}]`)] },
      {
        mutations: [
          applyConfiguration('Object{metadata: Object.metadata{annotations: {"a": "b"}}}'),
          jsonPatch(`[${step('remove', '"/metadata/annotations/a"')}]`),
          applyConfiguration('Object{metadata: Object.metadata{labels: object.metadata.annotations}}'),
          jsonPatch(`[${step('add', '"/metadata/annotations/c"', '"d"')}]`),
          applyConfiguration('Object{metadata: Object.metadata{annotations: {"e": "f"}}}'),
        ],
      },
      {
        mutations: [
          applyConfiguration('Object{spec: Object.spec{securityContext: Object.spec.securityContext{runAsUser: 1}}}'),
          jsonPatch(`has(object.metadata.labels) ? [${step('add', '"/metadata/labels/x"', '"y"')}] : [${step('add', '"/metadata/labels"', '{"x": "y"}')}]`),
          jsonPatch(`[${step('add', '"/metadata/annotations"', 'object.metadata.labels')}]`),
          jsonPatch(`[${step('add', '"/metadata/labels/c"', '"d"')}]`),
        ],
      },
    ];
    // A map the run copies (present in the Pod) becomes its own; one the patch brings is placed as it is.
    const pod = (metadata: JsonObject): JsonObject => ({ apiVersion: 'v1', kind: 'Pod', metadata: { name: 'p', namespace: 'ns', ...metadata }, spec: { containers: [{ name: 'app', image: 'i' }] } });
    const pods = [pod({}), pod({ labels: { z: 'z' } }), pod({ annotations: { q: 'q' } }), pod({ labels: { z: 'z' }, annotations: { q: 'q' } })];
    pods.push({ ...pods[1]!, spec: { containers: [{ name: 'app', image: 'i', resources: { limits: { cpu: '500m' } } }] } });
    // The object's kind changed by a JSONPatch: the mutations after it type by the new kind's schema (a Pod's
    // containers are undeclared in a Deployment's spec).
    const kindChanges = [
      [labels('"a": "b"'), jsonPatch(`[${step('replace', '"/apiVersion"', '"apps/v1"')}, ${step('replace', '"/kind"', '"Deployment"')}]`), applyConfiguration('Object{spec: Object.spec{containers: [Object.spec.containers{name: "x", image: "i"}]}}')],
      [labels('"a": "b"'), jsonPatch(`[${step('replace', '"/kind"', '"Service"')}]`), labels('"c": "d"')],
      [labels('"a": "b"'), jsonPatch(`[${step('replace', '"/kind"', '"Service"')}]`), jsonPatch(`[${step('add', '"/spec/restartPolicy"', '"Never"')}]`)],
      [labels('"a": "b"'), jsonPatch(`[${step('replace', '"/apiVersion"', '"apps/v1"')}, ${step('replace', '"/kind"', '"Deployment"')}]`), jsonPatch(`[${step('add', '"/spec/replicas"', '2')}]`)],
    ];
    // A Pod without a spec types as a ConfigMap too: the mutations after the change must type by the new kind.
    const toConfigMap = jsonPatch(`[${step('replace', '"/kind"', '"ConfigMap"')}]`);
    kindChanges.push(
      [labels('"a": "b"'), toConfigMap, applyConfiguration('Object{spec: Object.spec{restartPolicy: "Never"}}')],
      [labels('"a": "b"'), toConfigMap, jsonPatch(`[${step('add', '"/spec"', '{"restartPolicy": "Never"}')}]`)],
      [labels('"a": "b"'), toConfigMap, labels('"c": "d"'), jsonPatch(`[${step('add', '"/data"', '{"k": "v"}')}]`)],
    );
    const specless: JsonObject = { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'p', namespace: 'ns', labels: { z: 'z' } } };
    for (const [n, mutations] of kindChanges.entries()) {
      const yaml = policyYaml(`kind${n}`, { failurePolicy: 'Fail', reinvocationPolicy: 'Never', objectSelector: undefined, matchConditions: [], variables: [], mutations });
      const set = policiesOf(`kind${n}.yaml`, yaml);
      for (const runtime of [DEFAULT_RUNTIME, REFERENCE_DECODER]) {
        for (const object of [...pods, specless]) expect(compare(set, object, runtime, `${runtimeName(runtime)}\n${yaml}\n${JSON.stringify(object)}`).runsTaken, yaml).toBe(1);
      }
    }
    for (const [n, c] of cases.entries()) {
      const yaml = policyYaml(`alias${n}`, { failurePolicy: 'Fail', reinvocationPolicy: 'Never', objectSelector: undefined, matchConditions: [], variables: c.variables ?? [], mutations: c.mutations });
      const set = policiesOf(`alias${n}.yaml`, yaml);
      for (const runtime of [DEFAULT_RUNTIME, REFERENCE_DECODER]) {
        for (const object of pods) {
          const { result, runsTaken } = compare(set, object, runtime, `${runtimeName(runtime)}\n${yaml}\n${JSON.stringify(object)}`);
          expect(runsTaken, yaml).toBe(1);
          expect(result.allowed, yaml).toBe(true);
        }
      }
    }
  });

  it('leave a map of the object put where a scalar belongs to the op, with the maps the run owns', () => {
    const labels = (entries: string) => applyConfiguration(`Object{metadata: Object.metadata{labels: {${entries}}}}`);
    // The run owns the labels map when the second mutation puts it at a scalar field (and in a scalar map).
    const cases = [
      [labels('"a": "b"'), applyConfiguration('Object{metadata: Object.metadata{name: dyn(object.metadata.labels)}}'), labels('"c": "d"')],
      [labels('"a": "b"'), applyConfiguration('Object{metadata: Object.metadata{annotations: {"x": dyn(object.metadata.labels)}}}'), labels('"c": "d"')],
      [labels('"a": "b"'), applyConfiguration('Object{spec: Object.spec{containers: [Object.spec.containers{name: "app", image: dyn(object.metadata.labels)}]}}'), labels('"c": "d"')],
    ];
    const pod: JsonObject = { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'p', namespace: 'ns', labels: { z: 'z' } }, spec: { containers: [{ name: 'app', image: 'i' }] } };
    for (const [n, mutations] of cases.entries()) {
      const yaml = policyYaml(`scalar${n}`, { failurePolicy: 'Fail', reinvocationPolicy: 'Never', objectSelector: undefined, matchConditions: [], variables: [], mutations });
      const { result, runsTaken } = compare(policiesOf(`scalar${n}.yaml`, yaml), pod, DEFAULT_RUNTIME, yaml);
      expect(runsTaken, yaml).toBe(1);
      expect(result.allowed, yaml).toBe(false);
    }
  });

  it('type a constant value a JSONPatch sets once per place, and refuse one that does not type each time', () => {
    // map-run-patch.ts remembers a frozen value typed at its place: the same constant, not the same place.
    const tolerations = '[{"key": "dedicated", "operator": "Equal", "value": "apps", "effect": "NoSchedule"}]';
    const cases = [
      [jsonPatch(`[${step('add', '"/spec/tolerations"', tolerations)}]`)],
      [jsonPatch(`[${step('add', '"/spec/nodeSelector"', '{"pool": 1}')}]`)],
      [jsonPatch(`object.metadata.name == "p" ? [${step('add', '"/spec/nodeSelector"', '{"pool": "a"}')}] : [${step('add', '"/spec/nodeSelector"', '{"pool": 2}')}]`)],
      [jsonPatch(`[${step('add', '"/spec/tolerations"', tolerations)}]`), jsonPatch(`[${step('add', '"/spec/tolerations"', '[{"key": 1}]')}]`)],
    ];
    const pods: JsonObject[] = [
      { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'p', namespace: 'ns' }, spec: { containers: [{ name: 'app', image: 'i' }] } },
      { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'q', namespace: 'ns' }, spec: { containers: [{ name: 'app', image: 'i' }] } },
    ];
    const verdicts: boolean[] = [];
    for (const [n, mutations] of cases.entries()) {
      const yaml = policyYaml(`constants${n}`, { failurePolicy: 'Fail', reinvocationPolicy: 'Never', objectSelector: undefined, matchConditions: [], variables: [], mutations });
      const set = policiesOf(`constants${n}.yaml`, yaml);
      for (const object of [...pods, ...pods]) {
        const { result, runsTaken } = compare(set, object, DEFAULT_RUNTIME, `${yaml}\n${JSON.stringify(object)}`);
        expect(runsTaken, yaml).toBe(1);
        verdicts.push(result.allowed);
      }
    }
    expect(verdicts).toEqual([true, true, true, true, false, false, false, false, true, false, true, false, false, false, false, false]);
  });

  it('compute variables again after a mutation writes what they read, and keep them otherwise', () => {
    const labels = (entries: string) => applyConfiguration(`Object{metadata: Object.metadata{labels: {${entries}}}}`);
    const annotate = (key: string) => applyConfiguration(`Object{metadata: Object.metadata{annotations: {"${key}": variables.v0 + "/" + variables.v1}}}`);
    const variables = ['has(object.metadata.labels.seen) ? object.metadata.labels.seen : "unseen"', 'variables.v0 + "-" + object.metadata.name'];
    const cases: string[][] = [
      // Written between two reads by an ApplyConfiguration, by a JSONPatch; written elsewhere; read after a failure.
      [annotate('a'), labels('"seen": "by-ac"'), annotate('b')],
      [annotate('a'), jsonPatch(`[${step('add', '"/metadata/labels/seen"', '"by-patch"')}]`), annotate('b'), labels('"seen": "again"'), annotate('c')],
      [annotate('a'), labels('"other": "x"'), annotate('b'), jsonPatch(`[${step('add', '"/metadata/annotations/z"', '"y"')}]`), annotate('c')],
      [annotate('a'), jsonPatch(`[${step('add', '"/metadata/labels/seen"', '1')}]`), annotate('b')],
    ];
    const pods: JsonObject[] = [
      { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'p', namespace: 'ns' }, spec: { containers: [{ name: 'app', image: 'i' }] } },
      { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'q', namespace: 'ns', labels: { seen: 'before' } }, spec: { containers: [{ name: 'app', image: 'i' }] } },
    ];
    const { directTaken, variablesComputed } = seen;
    for (const [n, mutations] of cases.entries()) {
      const yaml = policyYaml(`vars${n}`, { failurePolicy: 'Fail', reinvocationPolicy: 'Never', objectSelector: undefined, matchConditions: [], variables, mutations });
      const set = policiesOf(`vars${n}.yaml`, yaml);
      for (const object of pods) expect(compare(set, object, DEFAULT_RUNTIME, `${yaml}\n${JSON.stringify(object)}`).runsTaken, yaml).toBe(1);
    }
    expect(seen.directTaken - directTaken).toBeGreaterThan(0);
    expect(seen.variablesComputed - variablesComputed).toBeGreaterThan(0);
  });

  it('agree with the closure interpreter on random policies and Pods', () => {
    const { patchesTaken, directTaken, variablesComputed } = seen;
    const tally = runRandom(1, 320, 4, () => DEFAULT_RUNTIME);
    expect(tally.cases).toBe(1280);
    // Runs taken, not stepped aside: with an allowed, changed object and with a rule failing; and JSONPatches
    // the runs applied themselves (859/413/443 and 1,650 when written).
    expect(tally.runTaken).toBeGreaterThan(650);
    expect(tally.runChanged).toBeGreaterThan(250);
    expect(tally.runDenied).toBeGreaterThan(350);
    expect(seen.patchesTaken - patchesTaken).toBeGreaterThan(1000);
    // Mutations evaluated against the run's activation, and variables they computed (6,550 and 434 when written).
    expect(seen.directTaken - directTaken).toBeGreaterThan(5000);
    expect(seen.variablesComputed - variablesComputed).toBeGreaterThan(350);
  });

  it('leave JSONPatches to their rules under another typed decoder, with the same results', () => {
    const patchesTaken = seen.patchesTaken;
    const tally = runRandom(20_001, 120, 3, () => REFERENCE_DECODER);
    expect(tally.cases).toBe(360);
    expect(tally.runTaken).toBeGreaterThan(150);
    expect(seen.patchesTaken).toBe(patchesTaken);
  });

  it('step aside under a defaulter or the reference SSA engine, with the same results', () => {
    const patchesTaken = seen.patchesTaken;
    const tally = runRandom(10_001, 120, 3, (r) => (r() < 0.5 ? DEFAULTING : REFERENCE_SSA));
    expect(tally.cases).toBe(360);
    expect(tally.runTaken).toBe(0);
    expect(seen.patchesTaken).toBe(patchesTaken);
  });
});
