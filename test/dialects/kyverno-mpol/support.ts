import { kyvernoMpolDialect } from '../../../src/dialects/kyverno-mpol/index.js';
import type { KyvernoDataProvider } from '../../../src/cel/lib/kyverno-context.js';
import type { Diagnostic } from '../../../src/diagnostics/diagnostic.js';
import { apply } from '../../../src/interpreter/index.js';
import type { ApplyResult } from '../../../src/interpreter/api.js';
import type { JsonValue } from '../../../src/ir/json.js';
import type { Policy } from '../../../src/ir/nodes.js';
import type { SourceDoc } from '../../../src/io/source.js';
import { loadYamlText } from '../../../src/io/yaml-load.js';
import type { AdmissionRequest } from '../../../src/k8s/request.js';
import { createRuntime } from '../../../src/runtime/index.js';

export function docs(text: string, file = 'mpol.yaml'): SourceDoc[] {
  const r = loadYamlText(file, text);
  if (!r.ok) throw new Error(r.diagnostics.map((d) => d.message).join('\n'));
  return r.value;
}

export function parse(text: string): { policies: Policy[]; diagnostics: Diagnostic[] } {
  const all = docs(text);
  return kyvernoMpolDialect.parse(all.filter((d) => kyvernoMpolDialect.recognizes(d)), { siblings: all.filter((d) => !kyvernoMpolDialect.recognizes(d)) });
}

export function run(text: string, object: JsonValue, extra: Partial<AdmissionRequest> = {}, data?: KyvernoDataProvider): ApplyResult {
  const parsed = parse(text);
  const errors = parsed.diagnostics.filter((d) => d.severity === 'error');
  if (errors.length > 0) throw new Error(errors.map((d) => d.message).join('\n'));
  const request: AdmissionRequest = { object, operation: 'CREATE', ...extra };
  return apply(parsed.policies, request, { runtime: createRuntime(data ? { kyvernoData: data } : {}) });
}

/** A MutatingPolicy on Pods (CREATE) with the given spec lines after matchConstraints. */
export function podPolicy(name: string, spec: string, resources = 'pods'): string {
  return `apiVersion: policies.kyverno.io/v1
kind: MutatingPolicy
metadata:
  name: ${name}
spec:
  matchConstraints:
    resourceRules:
    - apiGroups: [""]
      apiVersions: [v1]
      operations: [CREATE]
      resources: [${resources}]
${spec.replace(/^/gm, '  ')}
`;
}

export const pod = (labels: Record<string, string> = {}, image = 'nginx'): JsonValue => ({
  apiVersion: 'v1',
  kind: 'Pod',
  metadata: { name: 'p', namespace: 'default', labels },
  spec: { containers: [{ name: 'c', image }] },
});

export const deployment = (): JsonValue => ({
  apiVersion: 'apps/v1',
  kind: 'Deployment',
  metadata: { name: 'd', namespace: 'default' },
  spec: { template: { metadata: { labels: { app: 'x' } }, spec: { containers: [{ name: 'c', image: 'nginx' }] } } },
});
