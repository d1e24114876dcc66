import { apply } from '../src/interpreter/index.js';
import { jsonEqual, type JsonObject, type JsonValue } from '../src/ir/json.js';
import type { Policy } from '../src/ir/nodes.js';
import type { AdmissionRequest } from '../src/k8s/request.js';
import type { Benchmark } from './types.js';

/** Deterministic, distinct Pods: varied names, labels, containers and annotations. */
export function makePods(count: number): JsonObject[] {
  const pods: JsonObject[] = [];
  for (let i = 0; i < count; i++) {
    const containers: JsonObject[] = [];
    for (let c = 0; c < 1 + (i % 3); c++) {
      containers.push({
        name: c === 0 ? 'app' : `side-${c}`,
        image: `registry.example.com/team-${i % 17}/svc-${i}:${c}.${i % 5}`,
        ports: [{ containerPort: 8000 + c, protocol: 'TCP' }],
        resources: { limits: { cpu: '500m', memory: `${128 * (1 + (i % 4))}Mi` } },
      });
    }
    const labels: JsonObject = { app: `svc-${i}`, tier: i % 2 ? 'backend' : 'frontend' };
    if (i % 5 === 0) labels.team = 'preset';
    const annotations: JsonObject = { 'example.com/build': String(i) };
    if (i % 3 === 0) annotations['example.com/debug'] = 'true';
    pods.push({
      apiVersion: 'v1',
      kind: 'Pod',
      metadata: { name: `pod-${i}`, namespace: `ns-${i % 50}`, labels, annotations },
      spec: { containers, restartPolicy: 'Always', nodeSelector: { zone: `z${i % 3}` } },
    });
  }
  return pods;
}

/**
 * A benchmark of a policy set over 10,000 distinct Pods against a hand-written function doing the same
 * mutation. `verify` proves both do the same work: equal results, the request allowed, the input untouched.
 */
export function podPolicyBenchmark(name: string, policies: () => Policy[], handWritten: (pod: JsonObject) => JsonValue, verifyCount = 200): Benchmark {
  return {
    name,
    setup() {
      const set = policies();
      const pods = makePods(10_000);
      const requests: AdmissionRequest[] = pods.map((object) => ({ object, operation: 'CREATE' }));
      let sink: unknown;
      return {
        items: pods.length,
        run() {
          for (const r of requests) sink = apply(set, r, { trace: false, patch: false }).object;
        },
        baseline() {
          for (const p of pods) sink = handWritten(p);
        },
        verify() {
          for (let i = 0; i < verifyCount; i++) {
            const before = JSON.stringify(pods[i]);
            const a = apply(set, requests[i]!, { trace: false, patch: false });
            const b = handWritten(pods[i]!);
            if (!a.allowed || !jsonEqual(a.object, b)) {
              throw new Error(`interpreter and baseline disagree on pod ${i}:\n${JSON.stringify(a.object)}\n${JSON.stringify(b)}\n${a.diagnostics.map((d) => d.message).join('\n')}`);
            }
            if (JSON.stringify(pods[i]) !== before) throw new Error(`pod ${i} was mutated in place`);
          }
          void sink;
        },
      };
    },
  };
}
