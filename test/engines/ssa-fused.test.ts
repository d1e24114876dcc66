/**
 * Differential test of the fused ApplyConfiguration path (src/merge/ssa/fused-apply.ts: typing, guard and
 * merge in one walk, writing in place into maps earlier merges of the evaluation created) and of the in-place
 * JSONPatch (src/jsonpatch/evanphx-v4-in-place.ts with its strict decode, src/interpreter/ops/json-patch.ts)
 * against the reference pipeline (REFERENCE_SSA_ENGINE: apply.ts, and REFERENCE_TYPED_DECODER: evanphx-v4.ts,
 * copy-on-write throughout): whole evaluations of the MAP benchmark's policy, of a policy interleaving
 * merges and patches of every kind, and of every MAP corpus policy, over random variations of their objects
 * (labels and annotations present or not, containers with and without duplicate names, missing fields,
 * wrong types, nulls, undeclared fields), must give the same object, diagnostics and admission, and leave
 * the input as it was.
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { makePods } from '../../bench/pods.js';
import { tenMutationPolicies } from '../../bench/map.js';
import { kindSchema, REFERENCE_SSA_ENGINE, REFERENCE_TYPED_DECODER } from '../../src/engines/ssa.js';
import { apply } from '../../src/interpreter/index.js';
import type { ApplyResult } from '../../src/interpreter/api.js';
import { isJsonObject, type JsonObject, type JsonValue } from '../../src/ir/json.js';
import type { Policy } from '../../src/ir/nodes.js';
import { loadYamlText } from '../../src/io/yaml-load.js';
import type { AdmissionRequest } from '../../src/k8s/request.js';
import type { TypedDecoder } from '../../src/interpreter/engines.js';
import { CheckedSubtrees } from '../../src/merge/ssa/checked.js';
import { applyStructuredMergeDiff } from '../../src/merge/ssa/apply.js';
import { applyFused, FusedWalk } from '../../src/merge/ssa/fused-apply.js';
import { parsePolicyDocs } from '../../src/pipeline.js';
import { createRuntime } from '../../src/runtime/create.js';
import { deriveRuntime } from '../../src/runtime/runtime.js';
import { describeShared, sharedPath } from '../support/shared.js';
import { mulberry32 as random } from '../support/random.js';
import { policiesOf } from '../support/policies.js';

const FUSED = createRuntime();
const REFERENCE = deriveRuntime(FUSED, { merges: { ssa: REFERENCE_SSA_ENGINE }, typedDecoder: REFERENCE_TYPED_DECODER });

/**
 * The reference runtime with a strict decode that keeps no memo: every decode walks the whole object for
 * undeclared fields (the reference of the typing check an evaluation's first decode takes, src/engines/ssa.ts).
 */
const WALKING_DECODER: TypedDecoder = Object.assign((object: JsonValue, context: Parameters<TypedDecoder>[1]) => REFERENCE_TYPED_DECODER(object, { ...context, memo: undefined }), { inPlaceEdits: false } as const);
const WALKING_REFERENCE = deriveRuntime(FUSED, { merges: { ssa: REFERENCE_SSA_ENGINE }, typedDecoder: WALKING_DECODER });

/**
 * JSONPatches before any ApplyConfiguration: the first decode of the evaluation types the whole object
 * (and records it valid for the merge after it), an empty patch included (kube-apiserver decodes its result too).
 */
const PATCH_FIRST_POLICY = `apiVersion: admissionregistration.k8s.io/v1
kind: MutatingAdmissionPolicy
metadata:
  name: patch-first
spec:
  matchConstraints:
    resourceRules:
    - apiGroups: [""]
      apiVersions: [v1]
      operations: [CREATE]
      resources: [pods]
  reinvocationPolicy: Never
  mutations:
  - patchType: JSONPatch
    jsonPatch:
      expression: "[]"
  - patchType: JSONPatch
    jsonPatch:
      expression: >
        object.metadata.name.endsWith("3") ? [] : [JSONPatch{op: "add", path: "/metadata/annotations", value: {"a": "b"}}]
  - patchType: ApplyConfiguration
    applyConfiguration:
      expression: >
        Object{metadata: Object.metadata{labels: {"managed-by": "transmute"}}, spec: Object.spec{securityContext: Object.spec.securityContext{runAsNonRoot: true}}}
---
apiVersion: admissionregistration.k8s.io/v1
kind: MutatingAdmissionPolicyBinding
metadata:
  name: patch-first
spec:
  policyName: patch-first
`;

/**
 * Merges and JSONPatches in turn, so that patches write into maps merges created and merges into maps
 * patches created: multi-step patches whose later step fails, `test` steps, removals, list items added and
 * replaced, values read from the object, equal replacements, undeclared fields (a strict decode failure).
 */
const INTERLEAVED_POLICY = (failurePolicy: string): string => `apiVersion: admissionregistration.k8s.io/v1
kind: MutatingAdmissionPolicy
metadata:
  name: interleaved
spec:
  failurePolicy: ${failurePolicy}
  matchConstraints:
    resourceRules:
    - apiGroups: [""]
      apiVersions: [v1]
      operations: [CREATE]
      resources: [pods]
  variables:
  - name: labels
    expression: 'has(object.metadata.labels) ? object.metadata.labels : {}'
  reinvocationPolicy: Never
  mutations:
  - patchType: ApplyConfiguration
    applyConfiguration:
      expression: >
        Object{metadata: Object.metadata{labels: {"managed-by": "transmute"}}}
  - patchType: JSONPatch
    jsonPatch:
      expression: >
        [JSONPatch{op: "add", path: "/metadata/labels/team", value: "a"},
         JSONPatch{op: "add", path: "/metadata/annotations/" + jsonpatch.escapeKey("example.com/x"), value: "b"}]
  - patchType: ApplyConfiguration
    applyConfiguration:
      expression: >
        Object{metadata: Object.metadata{labels: {"after-patch": "yes"}, annotations: {"example.com/y": "c"}}}
  - patchType: JSONPatch
    jsonPatch:
      expression: >
        object.metadata.name.endsWith("3")
          ? [JSONPatch{op: "add", path: "/metadata/labels/x", value: "1"}, JSONPatch{op: "add", path: "/spec/missing/deeper", value: "2"}]
          : object.metadata.name.endsWith("4")
          ? [JSONPatch{op: "test", path: "/metadata/labels/team", value: "b"}, JSONPatch{op: "add", path: "/metadata/labels/tested", value: "1"}]
          : object.metadata.name.endsWith("5")
          ? [JSONPatch{op: "add", path: "/spec/zzUndeclared", value: "1"}]
          : object.metadata.name.endsWith("7")
          ? [JSONPatch{op: "copy", from: "/metadata/labels", path: "/metadata/annotations"}]
          : object.metadata.name.endsWith("6")
          ? [JSONPatch{op: "replace", path: "/metadata/annotations", value: object.metadata.labels}]
          : [JSONPatch{op: "replace", path: "/spec/restartPolicy", value: has(object.spec.restartPolicy) ? object.spec.restartPolicy : "Always"}]
  - patchType: JSONPatch
    jsonPatch:
      expression: >
        has(object.spec.tolerations)
          ? [JSONPatch{op: "add", path: "/spec/tolerations/0", value: {"key": "first"}},
             JSONPatch{op: "replace", path: "/spec/tolerations/-1", value: {"key": "last", "operator": "Exists"}}]
          : [JSONPatch{op: "add", path: "/spec/tolerations", value: [{"key": "only"}]},
             JSONPatch{op: "add", path: "/spec/tolerations/-", value: {"key": "second"}},
             JSONPatch{op: "remove", path: "/spec/tolerations/0"}]
  - patchType: JSONPatch
    jsonPatch:
      expression: >
        "example.com/build" in object.metadata.annotations
          ? [JSONPatch{op: "remove", path: "/metadata/annotations/" + jsonpatch.escapeKey("example.com/build")},
             JSONPatch{op: "replace", path: "/spec/containers/0/image", value: "img"},
             JSONPatch{op: "add", path: "/spec/containers/0/env", value: [{"name": "A", "value": variables.labels.size() > 0 ? "x" : "y"}]}]
          : []
  - patchType: ApplyConfiguration
    applyConfiguration:
      expression: >
        Object{spec: Object.spec{securityContext: Object.spec.securityContext{runAsNonRoot: true},
          containers: [Object.spec.containers{name: "app", imagePullPolicy: "Never"}]}}
  - patchType: JSONPatch
    jsonPatch:
      expression: >
        has(object.spec.containers[0].env)
          ? [JSONPatch{op: "add", path: "/spec/containers/0/env/-", value: {"name": "B", "value": "z"}},
             JSONPatch{op: "add", path: "/metadata/labels/last", value: "1"}]
          : [JSONPatch{op: "add", path: "/metadata/labels/last", value: "1"}]
---
apiVersion: admissionregistration.k8s.io/v1
kind: MutatingAdmissionPolicyBinding
metadata:
  name: interleaved
spec:
  policyName: interleaved
`;

/** Merges and patches of a kind without schema (`unknownKinds: 'deduced'`): no strict decode, deduced typing. */
const DEDUCED_POLICY = `apiVersion: admissionregistration.k8s.io/v1
kind: MutatingAdmissionPolicy
metadata:
  name: widgets
spec:
  matchConstraints:
    resourceRules:
    - apiGroups: [example.com]
      apiVersions: [v1]
      operations: [CREATE]
      resources: [widgets]
  reinvocationPolicy: Never
  mutations:
  - patchType: ApplyConfiguration
    applyConfiguration:
      expression: >
        Object{spec: Object.spec{size: {"a": 1}}}
  - patchType: JSONPatch
    jsonPatch:
      expression: >
        [JSONPatch{op: "add", path: "/spec/size/b", value: [1, 2]}, JSONPatch{op: "add", path: "/spec/size/a", value: {"deep": true}}]
  - patchType: ApplyConfiguration
    applyConfiguration:
      expression: >
        Object{spec: Object.spec{size: {"c": 3, "a": 2}}}
  - patchType: JSONPatch
    jsonPatch:
      expression: >
        [JSONPatch{op: "add", path: "/spec/size/b/-", value: 3}, JSONPatch{op: "remove", path: "/spec/size/c"}]
---
apiVersion: admissionregistration.k8s.io/v1
kind: MutatingAdmissionPolicyBinding
metadata:
  name: widgets
spec:
  policyName: widgets
`;

function parsePolicies(text: string): Policy[] {
  return policiesOf('interleaved.yaml', text);
}

const clone = <T>(v: T): T => JSON.parse(JSON.stringify(v)) as T;

const ODD_VALUES: JsonValue[] = [null, 7, 'x', true, [], {}, ['a'], { zzUndeclared: 1 }, { name: 'app' }];

/** Every container path of `v` (maps and lists), the root first. */
function containers(v: JsonValue, path: (string | number)[] = [], out: (string | number)[][] = []): (string | number)[][] {
  if (v === null || typeof v !== 'object') return out;
  out.push(path);
  if (Array.isArray(v)) v.forEach((x, i) => containers(x, [...path, i], out));
  else for (const k of Object.keys(v)) containers(v[k]!, [...path, k], out);
  return out;
}

function at(v: JsonValue, path: readonly (string | number)[]): JsonValue {
  let cur = v;
  for (const p of path) cur = (cur as Record<string | number, JsonValue>)[p]!;
  return cur;
}

/** `doc` with a few random edits: keys removed or given odd values, list items duplicated or dropped, keys added. */
function variant(doc: JsonValue, next: () => number): JsonValue {
  const out = clone(doc);
  const edits = Math.floor(next() * 4);
  for (let e = 0; e < edits; e++) {
    const places = containers(out);
    const place = at(out, places[Math.floor(next() * places.length)]!);
    const pick = next();
    if (Array.isArray(place)) {
      if (place.length === 0) continue;
      const i = Math.floor(next() * place.length);
      if (pick < 0.5) place.push(clone(place[i]!));
      else place.splice(i, 1);
      continue;
    }
    const obj = place as JsonObject;
    const keys = Object.keys(obj);
    if (keys.length === 0 || pick < 0.15) {
      obj[['labels', 'annotations', 'zzUndeclared', 'team', 'tier', 'securityContext', 'tolerations', 'nodeSelector'][Math.floor(next() * 8)]!] = clone(ODD_VALUES[Math.floor(next() * ODD_VALUES.length)]!);
      continue;
    }
    const key = keys[Math.floor(next() * keys.length)]!;
    if (pick < 0.5) delete obj[key];
    else obj[key] = clone(ODD_VALUES[Math.floor(next() * ODD_VALUES.length)]!);
  }
  return out;
}

function outcome(r: ApplyResult): unknown {
  return { object: r.object, allowed: r.allowed, diagnostics: r.diagnostics.map((d) => ({ code: d.code, message: d.message, severity: d.severity })) };
}

/** Both runtimes on one request: the same whole result, and the input untouched by either. */
function expectSameEvaluation(policies: readonly Policy[], request: AdmissionRequest, label: string, referenceRuntime = REFERENCE): void {
  const before = JSON.stringify(request.object);
  const fused = apply(policies, request, { trace: false, patch: false, runtime: FUSED });
  expect(JSON.stringify(request.object), `${label}: input mutated`).toBe(before);
  const reference = apply(policies, request, { trace: false, patch: false, runtime: referenceRuntime });
  expect(outcome(fused), label).toStrictEqual(outcome(reference));
}

describe('first strict decode of an evaluation', () => {
  it('gives the reference result for patches before merges over random Pods (undeclared fields, wrong kinds, nulls, duplicates)', () => {
    const policies = parsePolicies(PATCH_FIRST_POLICY);
    const pods = makePods(60);
    const allowed = { yes: 0, no: 0 };
    for (let seed = 1; seed <= 500; seed++) {
      const next = random(seed);
      const pod = seed <= 60 ? pods[seed - 1]! : variant(pods[Math.floor(next() * pods.length)]!, next);
      const request = { object: pod, operation: 'CREATE' as const };
      expectSameEvaluation(policies, request, `patch-first policy, seed ${seed}`, WALKING_REFERENCE);
      expectSameEvaluation(policies, request, `patch-first policy against the copying reference, seed ${seed}`);
      allowed[apply(policies, request, { trace: false, patch: false, runtime: FUSED }).allowed ? 'yes' : 'no']++;
    }
    // Both answers are exercised: objects the decode or the merge turns down, and objects that pass.
    expect(allowed.yes).toBeGreaterThan(100);
    expect(allowed.no).toBeGreaterThan(20);
  });

  it('takes objects that declare every field but do not type (a wrong scalar kind, a duplicate key) as declared', () => {
    const policies = parsePolicies(PATCH_FIRST_POLICY);
    const pod = makePods(3)[2]!;
    const spec = pod.spec as JsonObject;
    const containers = spec.containers as JsonObject[];
    const cases: JsonObject[] = [
      { ...pod, spec: { ...spec, restartPolicy: 7 } },
      { ...pod, spec: { ...spec, containers: [...containers, containers[0]!] } },
      { ...pod, metadata: { ...(pod.metadata as JsonObject), labels: null } },
      { ...pod, spec: { ...spec, containers: [{ ...containers[0]!, ports: [{ containerPort: 'x' }] }] } },
      { ...pod, spec: { ...spec, zzUndeclared: true } },
    ];
    for (const [i, object] of cases.entries()) expectSameEvaluation(policies, { object, operation: 'CREATE' }, `case ${i}`, WALKING_REFERENCE);
  });
});

describe('fused ApplyConfiguration path', () => {
  it('is taken by the benchmark Pods (not silently the reference every time)', () => {
    const known = kindSchema({ group: '', version: 'v1', kind: 'Pod' })!;
    let taken = 0;
    for (const pod of makePods(30)) {
      const names = ((pod.spec as JsonObject).containers as JsonObject[]).map((c) => ({ name: c.name!, imagePullPolicy: 'IfNotPresent' }));
      const patch = { metadata: { labels: { 'managed-by': 'transmute' } }, spec: { containers: names, securityContext: { runAsNonRoot: true } } };
      if (applyFused(known.schema, known.typeRef, pod, patch, new CheckedSubtrees(known.schema), undefined, new FusedWalk()) !== undefined) taken++;
    }
    expect(taken).toBe(30);
  });

  it('gives the reference result for lists below lists (containers with ports), item ids of both sides kept apart', () => {
    const known = kindSchema({ group: '', version: 'v1', kind: 'Pod' })!;
    let fused = 0;
    const walk = new FusedWalk();
    for (let seed = 1; seed <= 200; seed++) {
      const next = random(seed * 13);
      const port = (): JsonObject => ({ containerPort: 8000 + Math.floor(next() * 3), protocol: next() < 0.8 ? 'TCP' : 'UDP', ...(next() < 0.3 ? { name: `p${Math.floor(next() * 9)}` } : {}) });
      const ports = (): JsonObject[] => Array.from({ length: Math.floor(next() * 3) }, port);
      const names = ['a', 'b', 'c'].slice(0, 1 + Math.floor(next() * 3));
      const live: JsonObject = { apiVersion: 'v1', kind: 'Pod', metadata: { name: `p${seed}` }, spec: { containers: names.map((name) => ({ name, image: 'i', ports: ports() })) } };
      const patchNames = next() < 0.7 ? names : ['z', ...names].slice(0, 1 + Math.floor(next() * 3));
      const patch: JsonObject = { spec: { containers: patchNames.map((name) => ({ name, ports: ports() })) } };
      const frozen = JSON.stringify(live);
      const reference = applyStructuredMergeDiff(known.schema, known.typeRef, live, patch, { atomicGuard: true, keepEqual: true });
      // One walk for every seed, as an evaluation's merges share theirs: stale scratch entries must not leak.
      const outcome = applyFused(known.schema, known.typeRef, live, patch, new CheckedSubtrees(known.schema), undefined, walk);
      expect(JSON.stringify(live), `seed ${seed}: input left as it was`).toBe(frozen);
      if (outcome === undefined) continue;
      fused++;
      expect(reference.ok, `seed ${seed}: the fused path answers only what the reference merges`).toBe(true);
      if (reference.ok) expect(outcome, `seed ${seed}`).toEqual(reference.value);
    }
    // Most patches take the fused path (the rest: item ids it leaves to the reference).
    expect(fused).toBeGreaterThan(60);
  });

  it('gives the reference result for the benchmark policy over random Pods', () => {
    const policies = tenMutationPolicies();
    const pods = makePods(60);
    let n = 0;
    for (let seed = 1; seed <= 400; seed++) {
      const next = random(seed);
      const pod = seed <= 60 ? pods[seed - 1]! : variant(pods[Math.floor(next() * pods.length)]!, next);
      expectSameEvaluation(policies, { object: pod, operation: 'CREATE' }, `benchmark policy, seed ${seed}`);
      n++;
    }
    expect(n).toBe(400);
  });
});

describe('in-place JSONPatch path', () => {
  it('gives the reference result for merges and patches in turn over random Pods', () => {
    const pods = makePods(60);
    for (const failurePolicy of ['Fail', 'Ignore']) {
      const policies = parsePolicies(INTERLEAVED_POLICY(failurePolicy));
      expect(policies[0]!.rules.length).toBe(8);
      for (let seed = 1; seed <= 300; seed++) {
        const next = random(seed * 31);
        const pod = seed <= 60 ? pods[seed - 1]! : variant(pods[Math.floor(next() * pods.length)]!, next);
        expectSameEvaluation(policies, { object: pod, operation: 'CREATE' }, `interleaved policy (${failurePolicy}), seed ${seed}`);
      }
    }
  });
});

/**
 * A patch that holds a map an earlier merge created (read back from the object) must not let the next merge
 * write into that map in place: it would then have two parents (ops/merge.ts ownedMaps, holdsAny). Constant
 * patches (frozen) hold no such map and keep writing in place.
 */
const SHARED_READ_POLICY = `apiVersion: admissionregistration.k8s.io/v1
kind: MutatingAdmissionPolicy
metadata:
  name: shared-read
spec:
  matchConstraints:
    resourceRules:
    - apiGroups: [""]
      apiVersions: [v1]
      operations: [CREATE]
      resources: [pods]
  reinvocationPolicy: Never
  mutations:
  - patchType: ApplyConfiguration
    applyConfiguration:
      expression: >
        Object{metadata: Object.metadata{labels: {"managed-by": "transmute"}}}
  - patchType: ApplyConfiguration
    applyConfiguration:
      expression: >
        Object{metadata: Object.metadata{annotations: object.metadata.labels}}
  - patchType: ApplyConfiguration
    applyConfiguration:
      expression: >
        Object{spec: Object.spec{securityContext: Object.spec.securityContext{runAsNonRoot: true}}}
  - patchType: ApplyConfiguration
    applyConfiguration:
      expression: >
        Object{metadata: Object.metadata{labels: {"later": "x"}}}
  - patchType: ApplyConfiguration
    applyConfiguration:
      expression: >
        Object{spec: Object.spec{containers: [Object.spec.containers{name: "proxy", image: "p:1"}]}}
  - patchType: ApplyConfiguration
    applyConfiguration:
      expression: >
        Object{metadata: Object.metadata{annotations: {"after": "y"}}, spec: Object.spec{securityContext: Object.spec.securityContext{runAsUser: 7}}}
---
apiVersion: admissionregistration.k8s.io/v1
kind: MutatingAdmissionPolicyBinding
metadata:
  name: shared-read
spec:
  policyName: shared-read
`;

describe('merges whose patch holds what an earlier merge created', () => {
  it('gives the reference result over random Pods', () => {
    const policies = parsePolicies(SHARED_READ_POLICY);
    const pods = makePods(30);
    for (let seed = 1; seed <= 120; seed++) {
      const next = random(seed * 17);
      const pod = seed <= 30 ? pods[seed - 1]! : variant(pods[Math.floor(next() * pods.length)]!, next);
      expectSameEvaluation(policies, { object: pod, operation: 'CREATE' }, `shared-read policy, seed ${seed}`);
    }
  });
});

describe('in-place JSONPatch path for a kind without schema', () => {
  const fused = createRuntime({ schemas: { unknownKinds: 'deduced' } });
  const reference = deriveRuntime(fused, { merges: { ssa: REFERENCE_SSA_ENGINE }, typedDecoder: REFERENCE_TYPED_DECODER });

  it('gives the reference result over random objects', () => {
    const policies = parsePolicies(DEDUCED_POLICY);
    const widget: JsonValue = { apiVersion: 'example.com/v1', kind: 'Widget', metadata: { name: 'w', labels: { a: 'b' } }, spec: { size: { z: 0, a: 'x' }, list: [{ name: 'n' }] } };
    for (let seed = 1; seed <= 200; seed++) {
      const object = seed === 1 ? widget : variant(widget, random(seed * 131));
      const request: AdmissionRequest = { object, operation: 'CREATE' };
      const before = JSON.stringify(object);
      const a = apply(policies, request, { trace: false, patch: false, runtime: fused });
      expect(JSON.stringify(object), `seed ${seed}: input mutated`).toBe(before);
      const b = apply(policies, request, { trace: false, patch: false, runtime: reference });
      expect(outcome(a), `deduced kind, seed ${seed}`).toStrictEqual(outcome(b));
    }
  });
});

interface CorpusCase {
  readonly id: string;
  readonly policies: Policy[];
  readonly request: AdmissionRequest;
}

function corpusCases(): CorpusCase[] {
  const root = sharedPath('conformance/map');
  const out: CorpusCase[] = [];
  for (const suite of ['k8s-unit', 'k8s-integration']) {
    const dir = join(root, suite);
    if (!existsSync(dir)) continue;
    for (const name of readdirSync(dir)) {
      const caseDir = join(dir, name);
      if (!existsSync(join(caseDir, 'manifest.json'))) continue;
      const manifest = JSON.parse(readFileSync(join(caseDir, 'manifest.json'), 'utf8')) as JsonObject;
      const files = (manifest.files ?? {}) as Record<string, string>;
      let text = '';
      for (const key of ['policy', 'policies', 'binding', 'bindings']) if (files[key]) text += `${readFileSync(join(caseDir, files[key]), 'utf8')}\n---\n`;
      const docs = loadYamlText(`${name}.yaml`, text, { yamlVersion: '1.2' });
      if (!docs.ok) continue;
      const parsed = parsePolicyDocs(docs.value);
      if (parsed.policies.length === 0 || !files.object) continue;
      const objectDocs = loadYamlText(files.object, readFileSync(join(caseDir, files.object), 'utf8'));
      if (!objectDocs.ok || objectDocs.value.length === 0) continue;
      const req = (manifest.request ?? {}) as JsonObject;
      const request: AdmissionRequest = { object: objectDocs.value[0]!.value, operation: (req.operation as AdmissionRequest['operation']) ?? 'CREATE', namespace: (req.namespace as string) ?? '' };
      if (isJsonObject(req.kind)) request.kind = req.kind as unknown as NonNullable<AdmissionRequest['kind']>;
      out.push({ id: `${suite}/${name}`, policies: parsed.policies, request });
    }
  }
  return out;
}

describeShared('fused ApplyConfiguration path over the MAP corpus', () => {
  const cases = corpusCases();

  it('finds the corpus policies', () => {
    expect(cases.length).toBeGreaterThan(40);
  });

  it('gives the reference result for every corpus policy over variations of its object', () => {
    for (const c of cases) {
      expectSameEvaluation(c.policies, c.request, `${c.id}, its own object`);
      for (let seed = 1; seed <= 40; seed++) {
        const next = random(seed * 7919);
        expectSameEvaluation(c.policies, { ...c.request, object: variant(c.request.object, next) }, `${c.id}, seed ${seed}`);
      }
    }
  });
});
