import { gatekeeperDialect } from '../src/dialects/gatekeeper/index.js';
import { copyObject, isJsonObject, type JsonObject, type JsonValue } from '../src/ir/json.js';
import type { Policy } from '../src/ir/nodes.js';
import { loadYamlText } from '../src/io/yaml-load.js';
import type { Benchmark } from './types.js';
import { podPolicyBenchmark } from './pods.js';

const APPLY_TO_POD = `  applyTo:
  - groups: [""]
    versions: ["v1"]
    kinds: ["Pod"]
`;

/**
 * 50 mutators of the four kinds: 10 Assign on plain fields, 5 Assign on every container guarded by a
 * MustNotExist pathTest, 5 AssignImage (the same domain), 20 AssignMetadata labels, 10 ModifySet merges.
 */
export function fiftyMutators(): string {
  const docs: string[] = [];
  for (let i = 0; i < 10; i++) {
    docs.push(`apiVersion: mutations.gatekeeper.sh/v1
kind: Assign
metadata:
  name: node-${String(i).padStart(2, '0')}
spec:
${APPLY_TO_POD}  location: spec.nodeSelector.k${i}
  parameters:
    assign:
      value: v${i}
`);
  }
  for (let i = 0; i < 5; i++) {
    docs.push(`apiVersion: mutations.gatekeeper.sh/v1
kind: Assign
metadata:
  name: secctx-${i}
spec:
${APPLY_TO_POD}  location: "spec.containers[name: *].securityContext.s${i}"
  parameters:
    pathTests:
    - subPath: "spec.containers[name: *].securityContext.s${i}"
      condition: MustNotExist
    assign:
      value: true
`);
  }
  for (let i = 0; i < 5; i++) {
    docs.push(`apiVersion: mutations.gatekeeper.sh/v1alpha1
kind: AssignImage
metadata:
  name: mirror-${i}
spec:
${APPLY_TO_POD}  location: "spec.containers[name: *].image"
  parameters:
    assignDomain: mirror.example.com
`);
  }
  for (let i = 0; i < 20; i++) {
    docs.push(`apiVersion: mutations.gatekeeper.sh/v1
kind: AssignMetadata
metadata:
  name: label-${String(i).padStart(2, '0')}
spec:
  location: metadata.labels.gk-l${i}
  parameters:
    assign:
      value: v${i}
`);
  }
  for (let i = 0; i < 10; i++) {
    docs.push(`apiVersion: mutations.gatekeeper.sh/v1
kind: ModifySet
metadata:
  name: args-${String(i).padStart(2, '0')}
spec:
${APPLY_TO_POD}  location: "spec.containers[name: *].args"
  parameters:
    operation: merge
    values:
      fromList: ["--flag-${i}"]
`);
  }
  return docs.join('---\n');
}

export function fiftyMutatorPolicies(): Policy[] {
  const docs = loadYamlText('fifty-mutators.yaml', fiftyMutators());
  if (!docs.ok) throw new Error(docs.diagnostics.map((d) => d.message).join('\n'));
  const parsed = gatekeeperDialect.parse(docs.value);
  if (parsed.diagnostics.length > 0 || parsed.policies.length !== 50) throw new Error(parsed.diagnostics.map((d) => d.message).join('\n'));
  return parsed.policies;
}

const obj = (v: JsonValue | undefined): JsonObject => (isJsonObject(v) ? v : {});

/** AssignImage's domain replacement, by hand: the domain is what precedes the first `/` if it looks like one. */
function withDomain(image: string, domain: string): string {
  const slash = image.indexOf('/');
  const head = slash < 0 ? '' : image.slice(0, slash);
  const hasDomain = slash >= 0 && (head.includes('.') || head.includes(':') || head === 'localhost');
  return `${domain}/${hasDomain ? image.slice(slash + 1) : image}`;
}

/** The converged result of the 50 mutators, written by hand in one pass (copy-on-write). */
export function handWrittenGatekeeper(pod: JsonObject): JsonObject {
  const metadata = copyObject(obj(pod.metadata));
  const labels = copyObject(obj(metadata.labels));
  for (let i = 0; i < 20; i++) if (!Object.prototype.hasOwnProperty.call(labels, `gk-l${i}`)) labels[`gk-l${i}`] = `v${i}`;
  metadata.labels = labels;
  const spec = copyObject(obj(pod.spec));
  const nodeSelector = copyObject(obj(spec.nodeSelector));
  for (let i = 0; i < 10; i++) nodeSelector[`k${i}`] = `v${i}`;
  spec.nodeSelector = nodeSelector;
  spec.containers = (Array.isArray(spec.containers) ? spec.containers : []).map((c) => {
    const container = copyObject(obj(c));
    const sc = copyObject(obj(container.securityContext));
    for (let i = 0; i < 5; i++) if (!Object.prototype.hasOwnProperty.call(sc, `s${i}`)) sc[`s${i}`] = true;
    container.securityContext = sc;
    if (typeof container.image === 'string') container.image = withDomain(container.image, 'mirror.example.com');
    const args = Array.isArray(container.args) ? container.args.slice() : [];
    for (let i = 0; i < 10; i++) if (!args.includes(`--flag-${i}`)) args.push(`--flag-${i}`);
    container.args = args;
    return container;
  });
  return { ...pod, metadata, spec };
}

export const benchmarks: Benchmark[] = [podPolicyBenchmark('gatekeeper: 50 mutators (fix-point) over 10,000 Pods', fiftyMutatorPolicies, handWrittenGatekeeper, 200)];
