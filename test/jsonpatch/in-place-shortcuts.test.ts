/**
 * The shortcuts of MAP's in-place JSONPatch path (src/interpreter/ops/json-patch.ts,
 * src/jsonpatch/evanphx-v4-in-place.ts, the strict decode of src/engines/ssa.ts) against the reference
 * (evanphx-v4.ts with the full strict decode, REFERENCE_TYPED_DECODER; and a decode that keeps no memo):
 * - an empty patch answered without a run, its strict decode still reporting what the object already had;
 * - adds and replaces of object members (setMembers: in place into maps the evaluation owns, others copied),
 *   the others by InPlaceRun; one that sets the value a member already holds (each patch runs twice; the
 *   Pods' own labels), which writes nothing;
 * - the type node of a step's path kept per place (PlaceMemo) for constant steps and computed ones, reused
 *   across evaluations of different kinds, and for paths with undeclared fields; a constant value found
 *   declared there once (PlaceMemo.fineValue), per kind.
 * Same whole result (object, admission, diagnostics), over random Pods and Deployments in turn.
 */
import { describe, expect, it } from 'vitest';
import { makePods } from '../../bench/pods.js';
import { REFERENCE_SSA_ENGINE, REFERENCE_TYPED_DECODER } from '../../src/engines/ssa.js';
import type { ApplyResult } from '../../src/interpreter/api.js';
import type { TypedDecoder } from '../../src/interpreter/engines.js';
import { apply } from '../../src/interpreter/index.js';
import type { JsonObject, JsonValue } from '../../src/ir/json.js';
import type { Policy } from '../../src/ir/nodes.js';
import { createRuntime } from '../../src/runtime/create.js';
import { deriveRuntime } from '../../src/runtime/runtime.js';
import { mulberry32 as random } from '../support/random.js';
import { applyConfiguration, jsonPatch, mapPolicies, namedExpression, PODS_ON_CREATE } from '../support/map-policy.js';

const FUSED = createRuntime();
const REFERENCE = deriveRuntime(FUSED, { merges: { ssa: REFERENCE_SSA_ENGINE }, typedDecoder: REFERENCE_TYPED_DECODER });
const WALKING_DECODER: TypedDecoder = Object.assign((object: JsonValue, context: Parameters<TypedDecoder>[1]) => REFERENCE_TYPED_DECODER(object, { ...context, memo: undefined }), { inPlaceEdits: false } as const);
const WALKING_REFERENCE = deriveRuntime(FUSED, { merges: { ssa: REFERENCE_SSA_ENGINE }, typedDecoder: WALKING_DECODER });

/** JSONPatch expressions: constant lists, computed ones (a path or value read from a variable), empty ones. */
const PATCHES = [
  '[]',
  'variables.empty == "" ? [] : [JSONPatch{op: "add", path: "/metadata/labels/x", value: "1"}]',
  '[JSONPatch{op: "add", path: "/metadata/labels/a", value: "b"}]',
  '[JSONPatch{op: "add", path: "/metadata/labels/a" + variables.empty, value: "b"}]',
  '[JSONPatch{op: "replace", path: "/metadata/annotations/n", value: "v"}]',
  '[JSONPatch{op: "add", path: "/spec/replicas", value: 3}]',
  '[JSONPatch{op: "add", path: "/spec/replicas" + variables.empty, value: 3}]',
  '[JSONPatch{op: "add", path: "/spec/zzUndeclared", value: "1"}]',
  '[JSONPatch{op: "add", path: "/spec/zzUndeclared" + variables.empty, value: {"deep": "x"}}]',
  '[JSONPatch{op: "add", path: "/spec/template/metadata/labels/t", value: "1"}]',
  '[JSONPatch{op: "add", path: "/spec/containers/0/name", value: "c"}]',
  '[JSONPatch{op: "add", path: "/metadata/labels", value: {"zz": "1"}}]',
  '[JSONPatch{op: "add", path: "/metadata/zzUndeclared", value: {"a": "b"}}]',
  '[JSONPatch{op: "add", path: "/metadata/labels/y", value: "1"}, JSONPatch{op: "remove", path: "/metadata/labels/y"}]',
  '[JSONPatch{op: "add", path: "/kind", value: "Pod"}]',
  '[JSONPatch{op: "replace", path: "/metadata/labels/tier", value: "backend"}]',
  '[JSONPatch{op: "add", path: "/metadata/labels/tier" + variables.empty, value: "frontend"}]',
  '[JSONPatch{op: "replace", path: "/spec/restartPolicy", value: "Always"}]',
  '[JSONPatch{op: "add", path: "/spec/replicas", value: 1}]',
  '[JSONPatch{op: "add", path: "/metadata/labels/tier", value: null}]',
  '[JSONPatch{op: "add", path: "/metadata/labels/tier/x", value: "1"}]',
  // A constant value checked once per place and kind (PlaceMemo.fineValue): declared in a Pod's status, not in a Deployment's.
  '[JSONPatch{op: "add", path: "/status", value: {"phase": "Running"}}]',
  '[JSONPatch{op: "add", path: "/metadata/labels/p", value: "1"}, JSONPatch{op: "add", path: "/status", value: {"phase": "Running"}}]',
  // Member sets into maps not owned (copied) beside owned ones, and a later step failing after an earlier one set.
  '[JSONPatch{op: "add", path: "/spec/nodeSelector/pool", value: "b"}, JSONPatch{op: "replace", path: "/metadata/labels/tier", value: "x"}]',
  '[JSONPatch{op: "add", path: "/metadata/labels/q", value: "1"}, JSONPatch{op: "add", path: "/spec/missing/x", value: "1"}]',
  // One op computing one of two paths (its one-step list and step are filled again at each evaluation).
  '[JSONPatch{op: "add", path: object.metadata.name.endsWith("1") ? "/spec/zzUndeclared" : "/spec/hostname", value: "h"}]',
];

/** A policy over Pods and Deployments: an ApplyConfiguration (so that later patches write in place) or none, then each patch twice. */
function policy(merge: boolean, patches: readonly string[] = PATCHES): Policy[] {
  const mutations = patches.flatMap((p) => [jsonPatch(p), jsonPatch(p)]);
  if (merge) mutations.unshift(applyConfiguration('Object{metadata: Object.metadata{labels: {"seen": "yes"}, annotations: {"n": "m"}}}'));
  return mapPolicies('p', {
    failurePolicy: 'Ignore',
    reinvocationPolicy: 'Never',
    resourceRules: [PODS_ON_CREATE, '{apiGroups: [apps], apiVersions: [v1], operations: [CREATE], resources: [deployments]}'],
    variables: [namedExpression('empty', '""')],
    mutations,
  });
}

function deployment(i: number): JsonObject {
  return {
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: { name: `d-${i}`, namespace: 'ns', labels: { app: 'a' } },
    spec: { replicas: 1, selector: { matchLabels: { app: 'a' } }, template: { metadata: { labels: { app: 'a' } }, spec: { containers: [{ name: 'c', image: 'i' }] } } },
  };
}

/** Some objects with an undeclared field already, so that an empty patch's decode has something to report. */
function objects(): JsonObject[] {
  const next = random(17);
  const out: JsonObject[] = [];
  const pods = makePods(24) as JsonObject[];
  pods.forEach((pod, i) => {
    out.push(next() < 0.25 ? { ...pod, zzTop: 1 } : pod);
    const d = deployment(i);
    out.push(next() < 0.25 ? { ...d, spec: { ...(d.spec as JsonObject), zzInSpec: true } } : d);
  });
  return out;
}

function outcome(r: ApplyResult): unknown {
  return { object: r.object, allowed: r.allowed, diagnostics: r.diagnostics.map((d) => ({ code: d.code, message: d.message, severity: d.severity })) };
}

describe('in-place JSONPatch shortcuts', () => {
  for (const merge of [false, true]) {
    it(`give the reference result over Pods and Deployments in turn (${merge ? 'after a merge' : 'patches only'})`, () => {
      // One mutation at a time, then all together: each mutation's failure ends the evaluation.
      const whole = policy(merge);
      const singles = PATCHES.map((p) => policy(merge, [p]));
      for (const policies of [whole, ...singles]) {
        // Twice over: the second round takes the places and steps the first one prepared, kinds in turn.
        for (let round = 0; round < 2; round++) {
          for (const object of objects()) {
            const request = { object, operation: 'CREATE' as const };
            const before = JSON.stringify(object);
            const fused = apply(policies, request, { trace: false, patch: false, runtime: FUSED });
            expect(JSON.stringify(object), 'input mutated').toBe(before);
            const label = `${JSON.stringify(object)}`;
            expect(outcome(fused), label).toStrictEqual(outcome(apply(policies, request, { trace: false, patch: false, runtime: REFERENCE })));
            expect(outcome(fused), label).toStrictEqual(outcome(apply(policies, request, { trace: false, patch: false, runtime: WALKING_REFERENCE })));
          }
        }
      }
    });
  }

  it('reports what an object already lacks a declaration for on an empty patch, every time', () => {
    const policies = policy(false, ['[]']);
    const pod = { ...(makePods(1)[0] as JsonObject), zzTop: 1 };
    for (let i = 0; i < 3; i++) {
      const r = apply(policies, { object: pod, operation: 'CREATE' }, { trace: false, patch: false, runtime: FUSED });
      expect(r.diagnostics.map((d) => d.message).join('\n')).toContain('unknown field "zzTop"');
    }
  });
});
