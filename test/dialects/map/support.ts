import { apply } from '../../../src/interpreter/index.js';
import type { ApplyResult } from '../../../src/interpreter/api.js';
import type { JsonValue } from '../../../src/ir/json.js';
import type { Policy } from '../../../src/ir/nodes.js';
import { loadYamlText } from '../../../src/io/yaml-load.js';
import type { SourceDoc } from '../../../src/io/source.js';
import { mapDialect } from '../../../src/dialects/map/index.js';
import type { AdmissionRequest } from '../../../src/k8s/request.js';
import type { Diagnostic } from '../../../src/diagnostics/diagnostic.js';

export function docs(text: string, file = 'input.yaml'): SourceDoc[] {
  const r = loadYamlText(file, text);
  if (!r.ok) throw new Error(r.diagnostics.map((d) => d.message).join('\n'));
  return r.value;
}

/** Parses policies and bindings with the MAP dialect; the other documents are siblings (params). */
export function parse(text: string, siblingsText = ''): { policies: Policy[]; diagnostics: Diagnostic[] } {
  const all = docs(text);
  const mine = all.filter((d) => mapDialect.recognizes(d));
  const siblings = [...all.filter((d) => !mapDialect.recognizes(d)), ...(siblingsText ? docs(siblingsText, 'params.yaml') : [])];
  return mapDialect.parse(mine, { siblings });
}

export function run(text: string, object: JsonValue, extra: Partial<AdmissionRequest> = {}, siblingsText = ''): ApplyResult {
  const parsed = parse(text, siblingsText);
  const errors = parsed.diagnostics.filter((d) => d.severity === 'error');
  if (errors.length > 0) throw new Error(errors.map((d) => d.message).join('\n'));
  return apply(parsed.policies, { object, operation: 'CREATE', ...extra });
}

/** A policy document plus a binding to it. */
export function policy(name: string, spec: string, binding = ''): string {
  return `apiVersion: admissionregistration.k8s.io/v1
kind: MutatingAdmissionPolicy
metadata:
  name: ${name}
spec:
${spec.replace(/^/gm, '  ')}
---
apiVersion: admissionregistration.k8s.io/v1
kind: MutatingAdmissionPolicyBinding
metadata:
  name: ${name}-binding
spec:
  policyName: ${name}
${binding.replace(/^/gm, '  ')}
`;
}

export const PODS = `matchConstraints:
  resourceRules:
  - apiGroups: [""]
    apiVersions: ["v1"]
    operations: ["CREATE", "UPDATE"]
    resources: ["pods"]`;

export const POD = { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'p', namespace: 'default', labels: { app: 'x' } }, spec: { containers: [{ name: 'c', image: 'nginx' }] } };
