import { copyObject, isJsonObject, type JsonObject, type JsonValue } from '../src/ir/json.js';
import type { Policy } from '../src/ir/nodes.js';
import { loadYamlText } from '../src/io/yaml-load.js';
import { parsePolicyDocs } from '../src/pipeline.js';
import type { Benchmark } from './types.js';
import { podPolicyBenchmark } from './pods.js';

/** The 20-operation policy of the core benchmark: sets, a keyed list element, a guarded remove, an if-absent label. */
export const TWENTY_OPS_POLICY = `apiVersion: transmute.dev/v1alpha1
kind: Policy
metadata:
  name: twenty-ops
spec:
  semantics: {order: sequential}
  match:
    globs: wildcard
    any:
    - kinds: [{kind: Pod}]
  rules:
  - name: harden
    body:
    - set: object.metadata.labels.team!absent
      value: platform
    - set: object.metadata.labels.managed-by
      value: transmute
    - set: object.metadata.annotations."example.com/policy"
      value: twenty-ops
    - when: {exists: object.metadata.annotations."example.com/debug"}
      then:
      - remove: object.metadata.annotations."example.com/debug"
    - set: object.spec.securityContext.runAsNonRoot
      value: true
    - set: object.spec.securityContext.seccompProfile.type
      value: RuntimeDefault
    - set: object.spec.automountServiceAccountToken
      value: false
    - set: object.spec.enableServiceLinks
      value: false
    - set: object.spec.terminationGracePeriodSeconds
      value: 30
    - set: object.spec.dnsPolicy
      value: ClusterFirst
    - set: object.spec.priorityClassName
      value: standard
    - set: 'object.spec.containers[name: "app"].imagePullPolicy'
      value: IfNotPresent
    - set: 'object.spec.containers[name: "app"].securityContext.allowPrivilegeEscalation'
      value: false
    - set: 'object.spec.containers[name: "app"].securityContext.readOnlyRootFilesystem'
      value: true
    - set: 'object.spec.containers[name: "app"].securityContext.capabilities.drop'
      value: [ALL]
    - set: 'object.spec.containers[name: "app"].env[name: "TZ"].value'
      value: UTC
    - set: object.spec.tolerations
      value: [{key: dedicated, operator: Equal, value: apps, effect: NoSchedule}]
    - set: object.spec.nodeSelector.pool
      value: general
    - set: object.metadata.labels.hardened
      value: "true"
    - set: object.spec.restartPolicy
      value: Always
`;

export function twentyOpsPolicies(): Policy[] {
  const docs = loadYamlText('twenty-ops.yaml', TWENTY_OPS_POLICY);
  if (!docs.ok) throw new Error(docs.diagnostics.map((d) => d.message).join('\n'));
  const parsed = parsePolicyDocs(docs.value);
  if (parsed.diagnostics.length > 0) throw new Error(parsed.diagnostics.map((d) => d.message).join('\n'));
  return parsed.policies;
}

const obj = (v: JsonValue | undefined): JsonObject => (isJsonObject(v) ? v : {});

/** The same mutation written by hand, copy-on-write like the interpreter (inputs are never mutated). */
export function handWritten(pod: JsonObject): JsonObject {
  const metadata = copyObject(obj(pod.metadata));
  const labels = copyObject(obj(metadata.labels));
  if (!Object.prototype.hasOwnProperty.call(labels, 'team')) labels.team = 'platform';
  labels['managed-by'] = 'transmute';
  const annotations = copyObject(obj(metadata.annotations));
  annotations['example.com/policy'] = 'twenty-ops';
  delete annotations['example.com/debug'];
  labels.hardened = 'true';
  metadata.labels = labels;
  metadata.annotations = annotations;
  const spec = copyObject(obj(pod.spec));
  const sc = copyObject(obj(spec.securityContext));
  sc.runAsNonRoot = true;
  sc.seccompProfile = { ...obj(sc.seccompProfile), type: 'RuntimeDefault' };
  spec.securityContext = sc;
  spec.automountServiceAccountToken = false;
  spec.enableServiceLinks = false;
  spec.terminationGracePeriodSeconds = 30;
  spec.dnsPolicy = 'ClusterFirst';
  spec.priorityClassName = 'standard';
  const containers = Array.isArray(spec.containers) ? spec.containers.slice() : [];
  let idx = containers.findIndex((c) => isJsonObject(c) && c.name === 'app');
  if (idx < 0) {
    containers.push({ name: 'app' });
    idx = containers.length - 1;
  }
  const app = copyObject(obj(containers[idx]));
  app.imagePullPolicy = 'IfNotPresent';
  const csc = copyObject(obj(app.securityContext));
  csc.allowPrivilegeEscalation = false;
  csc.readOnlyRootFilesystem = true;
  csc.capabilities = { ...obj(csc.capabilities), drop: ['ALL'] };
  app.securityContext = csc;
  const env = Array.isArray(app.env) ? app.env.slice() : [];
  const tz = env.findIndex((e) => isJsonObject(e) && e.name === 'TZ');
  if (tz < 0) env.push({ name: 'TZ', value: 'UTC' });
  else env[tz] = { ...obj(env[tz]), value: 'UTC' };
  app.env = env;
  containers[idx] = app;
  spec.containers = containers;
  spec.tolerations = [{ key: 'dedicated', operator: 'Equal', value: 'apps', effect: 'NoSchedule' }];
  spec.nodeSelector = { ...obj(spec.nodeSelector), pool: 'general' };
  spec.restartPolicy = 'Always';
  return { ...pod, metadata, spec };
}

export const benchmarks: Benchmark[] = [podPolicyBenchmark('ir: 20-op policy over 10,000 Pods', twentyOpsPolicies, handWritten, 200)];
