import { existsSync, readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { DEFAULT_SMD, DEFAULT_TSV, OUTPUT, generateMergeKeyTable, renderMergeKeyTable } from '../../../scripts/gen-smp-keys.js';
import { fieldSchema, elementSchema, schemaForResourceType } from '../../../src/merge/smp/schema.js';
import { describeShared } from '../../support/shared.js';

describeShared('merge-keys.json drift', () => {
  it('is what scripts/gen-smp-keys.ts generates from ../shared', () => {
    expect(existsSync(DEFAULT_TSV) && existsSync(DEFAULT_SMD)).toBe(true);
    const table = generateMergeKeyTable(readFileSync(DEFAULT_TSV, 'utf8'), readFileSync(DEFAULT_SMD, 'utf8'));
    // On failure: npx tsx scripts/gen-smp-keys.ts, then review the diff.
    expect(readFileSync(OUTPUT, 'utf8')).toBe(renderMergeKeyTable(table));
  });
});

describe('merge-keys.json facts (Kubernetes 1.21.2 as kyaml embeds it)', () => {
  const path = (apiVersion: string, kind: string, ...fields: Array<string | '[]'>) => {
    let s = schemaForResourceType(apiVersion, kind);
    for (const f of fields) s = f === '[]' ? elementSchema(s) : fieldSchema(s, f);
    return s;
  };

  it('keys the pod spec lists as the table says', () => {
    expect(path('v1', 'Pod', 'spec', 'containers')?.merge).toEqual(['name']);
    expect(path('v1', 'Pod', 'spec', 'volumes')?.merge).toEqual(['name']);
    expect(path('v1', 'Pod', 'spec', 'hostAliases')?.merge).toEqual(['ip']);
    expect(path('v1', 'Pod', 'spec', 'topologySpreadConstraints')?.merge).toEqual(['topologyKey', 'whenUnsatisfiable']);
    expect(path('v1', 'Pod', 'spec', 'containers', '[]', 'env')?.merge).toEqual(['name']);
    expect(path('v1', 'Pod', 'spec', 'containers', '[]', 'volumeMounts')?.merge).toEqual(['mountPath']);
    expect(path('v1', 'Pod', 'spec', 'containers', '[]', 'ports')?.merge).toEqual(['containerPort', 'protocol']);
    expect(path('apps/v1', 'Deployment', 'spec', 'template', 'spec', 'initContainers')?.merge).toEqual(['name']);
    expect(path('batch/v1', 'CronJob', 'spec', 'jobTemplate', 'spec', 'template', 'spec', 'containers')?.merge).toEqual(['name']);
    expect(path('v1', 'Service', 'spec', 'ports')?.merge).toEqual(['port', 'protocol']);
    expect(path('v1', 'ServiceAccount', 'secrets')?.merge).toEqual(['name']);
  });

  it('has the apimachinery ObjectMeta lists on every built-in kind', () => {
    expect(path('v1', 'ConfigMap', 'metadata', 'finalizers')?.merge).toEqual([]);
    expect(path('rbac.authorization.k8s.io/v1', 'Role', 'metadata', 'ownerReferences')?.merge).toEqual(['uid']);
  });

  it('replaces lists without a patch strategy and lists of unknown kinds', () => {
    expect(path('v1', 'Pod', 'spec', 'tolerations')?.merge).toBeUndefined();
    expect(path('v1', 'Pod', 'spec', 'containers', '[]', 'args')?.merge).toBeUndefined();
    expect(path('networking.k8s.io/v1', 'Ingress', 'spec', 'rules')?.merge).toBeUndefined();
    expect(schemaForResourceType('argoproj.io/v1alpha1', 'Rollout')).toBeNull();
    // Exact apiVersion only: a Pod under apps/v1 is unknown to kyaml (kyverno#3792).
    expect(schemaForResourceType('apps/v1', 'Pod')).toBeNull();
    // Kinds newer than 1.21 and versions removed before it are unknown.
    expect(schemaForResourceType('autoscaling/v2', 'HorizontalPodAutoscaler')).toBeNull();
    expect(schemaForResourceType('apps/v1beta1', 'Deployment')).toBeNull();
    expect(schemaForResourceType('batch/v1beta1', 'CronJob')).not.toBeNull();
  });
});
