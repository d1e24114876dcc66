/**
 * `transmute conformance --via D` checks the pipeline `transmute translate --to D` runs (issue 12): for the same
 * policy documents, the documents `preparePolicies(..., D)` generates and reads back are, byte for byte, what
 * `translateDocuments` (the CLI's `translate`) writes, and both pass through the optimizer. A separate copy of
 * the translation in the conformance runner (one without `optimize`, or its own merge of the mutate-existing
 * rules) fails here.
 */
import { beforeEach, describe, expect, it, vi } from 'vitest';
import { preparePolicies } from '../../src/conformance/policies.js';
import { loadYamlText } from '../../src/io/yaml-load.js';
import type { SourceDoc } from '../../src/io/source.js';
import { parsePolicyDocs, translateDocuments } from '../../src/pipeline.js';
import { SCHEMA_CONFLICT_ASSIGNS } from '../support/gatekeeper-conflict.js';

// Counts the optimizer's runs, wherever it is imported from: the shared pipeline is the only caller here.
const calls = vi.hoisted(() => ({ optimize: 0 }));
vi.mock('../../src/optimizer/index.js', async (importOriginal) => {
  const mod = await importOriginal<typeof import('../../src/optimizer/index.js')>();
  return {
    ...mod,
    optimize: (...args: Parameters<typeof mod.optimize>) => {
      calls.optimize += 1;
      return mod.optimize(...args);
    },
  };
});

const GATEKEEPER = `apiVersion: mutations.gatekeeper.sh/v1
kind: AssignMetadata
metadata:
  name: team-label
spec:
  match:
    scope: Namespaced
    kinds:
    - apiGroups: ['']
      kinds: [Pod]
  location: metadata.labels.team
  parameters:
    assign:
      value: platform
---
apiVersion: mutations.gatekeeper.sh/v1
kind: Assign
metadata:
  name: pull-always
spec:
  applyTo:
  - groups: ['']
    versions: [v1]
    kinds: [Pod]
  match:
    source: Original
  location: 'spec.containers[name: *].imagePullPolicy'
  parameters:
    pathTests:
    - subPath: 'spec.containers[name: *].imagePullPolicy'
      condition: MustNotExist
    assign:
      value: Always
`;

const GATEKEEPER_CONFLICT = SCHEMA_CONFLICT_ASSIGNS;

const KYVERNO = `apiVersion: kyverno.io/v1
kind: ClusterPolicy
metadata:
  name: add-labels
spec:
  rules:
  - name: add-team
    match:
      any:
      - resources:
          kinds: [Pod]
    preconditions:
      all:
      - key: "{{ request.operation }}"
        operator: Equals
        value: CREATE
    mutate:
      patchStrategicMerge:
        metadata:
          labels:
            team: platform
`;

// An admission rule and a mutate-existing rule: kyverno-mpol merges the two translations, MAP and Gatekeeper refuse.
const KYVERNO_EXISTING = `apiVersion: kyverno.io/v1
kind: ClusterPolicy
metadata:
  name: label-and-sync
spec:
  rules:
  - name: label-configmap
    match:
      any:
      - resources:
          kinds: [ConfigMap]
    mutate:
      patchStrategicMerge:
        metadata:
          labels:
            synced: "false"
  - name: mutate-secret-on-configmap-create
    match:
      any:
      - resources:
          kinds: [ConfigMap]
          names: [dictionary-1]
          namespaces: [staging]
    mutate:
      mutateExistingOnPolicyUpdate: false
      patchStrategicMerge:
        metadata:
          labels:
            foo: bar
      targets:
      - apiVersion: v1
        kind: Secret
        name: secret-1
        namespace: staging
`;

const MAP = `apiVersion: admissionregistration.k8s.io/v1
kind: MutatingAdmissionPolicy
metadata:
  name: annotate
spec:
  matchConstraints:
    resourceRules:
    - apiGroups: ['']
      apiVersions: [v1]
      operations: [CREATE]
      resources: [configmaps]
  failurePolicy: Fail
  reinvocationPolicy: Never
  mutations:
  - patchType: ApplyConfiguration
    applyConfiguration:
      expression: |
        Object{
          metadata: Object.metadata{
            annotations: {"owner": "platform"}
          }
        }
---
apiVersion: admissionregistration.k8s.io/v1
kind: MutatingAdmissionPolicyBinding
metadata:
  name: annotate-binding
spec:
  policyName: annotate
`;

const INPUTS: { name: string; dialect: string; yaml: string }[] = [
  { name: 'gatekeeper mutators', dialect: 'gatekeeper', yaml: GATEKEEPER },
  { name: 'gatekeeper mutators in a schema conflict', dialect: 'gatekeeper', yaml: GATEKEEPER_CONFLICT },
  { name: 'kyverno policy', dialect: 'kyverno', yaml: KYVERNO },
  { name: 'kyverno policy with a mutate-existing rule', dialect: 'kyverno', yaml: KYVERNO_EXISTING },
  { name: 'mutating admission policy', dialect: 'map', yaml: MAP },
];
const TARGETS = ['gatekeeper', 'kyverno', 'map', 'kyverno-mpol'];

function docsOf(name: string, yaml: string): SourceDoc[] {
  const loaded = loadYamlText(`${name}.yaml`, yaml);
  if (!loaded.ok) throw new Error(`${name} does not load`);
  return loaded.value;
}

/** What `transmute translate --to via` writes for the documents (src/cli/commands/translate.ts). */
function translated(docs: readonly SourceDoc[], via: string) {
  const parsed = parsePolicyDocs(docs);
  expect(parsed.diagnostics.filter((d) => d.severity === 'error')).toEqual([]);
  return translateDocuments(docs, parsed.policies, via, 'error');
}

describe('conformance --via runs the pipeline translate runs', () => {
  beforeEach(() => {
    calls.optimize = 0;
  });

  const written: string[] = [];
  for (const input of INPUTS) {
    for (const via of TARGETS) {
      it(`${input.name} via ${via}`, () => {
        const docs = docsOf(input.name, input.yaml);
        const prepared = preparePolicies({ id: input.name, dialect: input.dialect, policyDocs: docs, siblingDocs: [] }, via);
        expect(calls.optimize, 'preparePolicies translates through optimize()').toBe(1);
        const cli = translated(docs, via);
        const refused = cli.diagnostics.find((d) => d.severity === 'error');
        if (refused) {
          // What translate refuses, the runner does not run: unsupported for TM4001, failed otherwise.
          expect(prepared.kind).toBe('stop');
          if (prepared.kind === 'stop') expect(prepared.result.status).toBe(refused.code === 'TM4001' ? 'unsupported' : 'failed');
          return;
        }
        expect(prepared.kind, prepared.kind === 'stop' ? prepared.result.reason : '').toBe('ready');
        if (prepared.kind !== 'ready') return;
        expect(prepared.text).toBe(cli.text);
        expect(prepared.docs?.map((d) => d.value)).toEqual(loadYamlText('cli.yaml', cli.text).ok ? (loadYamlText('cli.yaml', cli.text) as { value: SourceDoc[] }).value.map((d) => d.value) : undefined);
        if (cli.text !== '') written.push(`${input.name} via ${via}`);
      });
    }
  }

  it('compared real translations, the conflicting mutators and the mutate-existing merge among them', () => {
    // Not vacuous: most directions write documents, including the two that differ from a copy of the old runner.
    expect(written.length).toBeGreaterThanOrEqual(11);
    expect(written).toContain('gatekeeper mutators in a schema conflict via gatekeeper');
    expect(written).toContain('kyverno policy with a mutate-existing rule via kyverno-mpol');
  });
});
