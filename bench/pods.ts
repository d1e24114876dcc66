import type { JsonObject } from '../src/ir/json.js';

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
