/**
 * transmute as a library, through its public API only (`transmute-policies`): a Gatekeeper mutator read from a
 * string, applied to a Pod, translated to a Kyverno ClusterPolicy, and the translation applied to the same Pod.
 * Run by test/api/example.test.ts, which also type-checks it against the built declarations.
 */
import { apply, createRuntime, loadPolicies, renderDiagnostic, translate, type AdmissionRequest, type JsonObject } from 'transmute-policies';

const MUTATOR = `
apiVersion: mutations.gatekeeper.sh/v1
kind: AssignMetadata
metadata:
  name: team-label
spec:
  match:
    scope: Namespaced
    kinds:
    - apiGroups: [""]
      kinds: ["Pod"]
  location: metadata.labels.team
  parameters:
    assign:
      value: platform
`;

const pod: JsonObject = {
  apiVersion: 'v1',
  kind: 'Pod',
  metadata: { name: 'web-1', namespace: 'prod', labels: { app: 'web' } },
  spec: { containers: [{ name: 'app', image: 'nginx:1.25' }] },
};

function fail(message: string): never {
  console.error(message);
  process.exit(1);
}

// One runtime for every evaluation: the default engines and the built-in kinds.
const runtime = createRuntime();
const request: AdmissionRequest = { object: pod, operation: 'CREATE', namespace: 'prod' };

const gatekeeper = loadPolicies({ name: 'team-label.yaml', text: MUTATOR });
if (!gatekeeper.ok) fail(gatekeeper.diagnostics.map((d) => renderDiagnostic(d, gatekeeper.sources)).join('\n'));
const applied = apply(gatekeeper.policies, request, { runtime });
console.log(`gatekeeper: ${JSON.stringify(applied.patch)}`);

const kyverno = translate(gatekeeper, { to: 'kyverno' });
if (kyverno.diagnostics.some((d) => d.severity === 'error')) fail(kyverno.diagnostics.map((d) => renderDiagnostic(d)).join('\n'));
console.log(kyverno.text.trimEnd());

const translated = loadPolicies({ name: 'translated.yaml', text: kyverno.text });
if (!translated.ok) fail(translated.diagnostics.map((d) => renderDiagnostic(d, translated.sources)).join('\n'));
const again = apply(translated.policies, request, { runtime });
console.log(`kyverno: ${JSON.stringify(again.patch)}`);
console.log(JSON.stringify(again.object) === JSON.stringify(applied.object) ? 'same object' : 'different objects');
