/**
 * Autogen of a Pod MutatingPolicy to Pod controllers (pkg/cel/policies/mpol/autogen/autogen.go,
 * pkg/cel/autogen/{support,config}.go): when the policy matches exactly `pods` of core v1 (one rule, no
 * selectors, names or exclusions), one variant per replacement group (`defaults`: deployments, daemonsets,
 * jobs, replicasets, statefulsets; `cronjobs`) matches the selected controllers with the same operations,
 * and its matchConditions and ApplyConfiguration expressions are rewritten by text replacement
 * (convertPodToTemplateExpression). JSONPatch expressions and variables are left as they are, as upstream.
 */
import type { ResourcePattern } from '../../ir/match.js';
import type { MatchResources, Mutation, Named } from '../map/model.js';
import { POD_CONTROLLERS, type MpolPolicy } from './model.js';

interface Target {
  group: string;
  version: string;
  resource: string;
}

const TARGETS: Record<string, Target & { ref: 'defaults' | 'cronjobs' }> = {
  cronjobs: { group: 'batch', version: 'v1', resource: 'cronjobs', ref: 'cronjobs' },
  daemonsets: { group: 'apps', version: 'v1', resource: 'daemonsets', ref: 'defaults' },
  deployments: { group: 'apps', version: 'v1', resource: 'deployments', ref: 'defaults' },
  jobs: { group: 'batch', version: 'v1', resource: 'jobs', ref: 'defaults' },
  replicasets: { group: 'apps', version: 'v1', resource: 'replicasets', ref: 'defaults' },
  statefulsets: { group: 'apps', version: 'v1', resource: 'statefulsets', ref: 'defaults' },
};

export interface AutogenVariant {
  /** `defaults` or `cronjobs`: names the variant (the IR policy's rule carries it). */
  config: string;
  matchConstraints: MatchResources;
  matchConditions: Named[];
  mutations: Mutation[];
}

function canAutogen(m: MatchResources): boolean {
  const empty = (s: MatchResources['namespaceSelector']) => !s || ((s.matchExpressions ?? []).length === 0 && Object.keys(s.matchLabels ?? {}).length === 0);
  if (!empty(m.namespaceSelector) || !empty(m.objectSelector) || m.excludeResourceRules.length > 0 || m.resourceRules.length !== 1) return false;
  const r = m.resourceRules[0]!;
  const one = (xs: string[], v: string) => xs.length === 1 && xs[0] === v;
  return (r.resourceNames ?? []).length === 0 && one(r.groups, '') && one(r.versions, 'v1') && one(r.resources, 'pods');
}

export function convertPodToTemplateExpression(expression: string, config: string): string {
  const spec = config === 'cronjobs' ? 'spec.jobTemplate.spec.template.spec' : 'spec.template.spec';
  const meta = config === 'cronjobs' ? 'spec.jobTemplate.spec.template.metadata' : 'spec.template.metadata';
  // autogen.go specRe, metadataLabelsRe, metadataAnnotationsRe: whole identifiers only (`\b`).
  const e = expression
    .replace(/\b(object|oldObject|Object)\.spec/g, `$1.${spec}`)
    .replace(/\b(object|oldObject|Object)\.metadata\.labels/g, `$1.${meta}.labels`)
    .replace(/\b(object|oldObject|Object)\.metadata\.annotations/g, `$1.${meta}.annotations`);
  const trimmed = e.trim();
  if (!trimmed.startsWith('Object')) return e;
  // The outermost Object{...} (whitespace allowed before the brace) is wrapped into the template's path;
  // braces are counted as upstream does (no regard for strings), so the rewrite is exactly as faithful as Kyverno's.
  const afterName = trimmed.slice('Object'.length).replace(/^[ \t\r\n]+/, '');
  if (!afterName.startsWith('{')) return e;
  const content = afterName.slice(1);
  let depth = 1;
  let end = -1;
  for (let i = 0; i < content.length; i++) {
    if (content[i] === '{') depth++;
    else if (content[i] === '}' && --depth === 0) {
      end = i;
      break;
    }
  }
  if (end <= 0) return e;
  const [open, close] =
    config === 'cronjobs'
      ? ['Object{spec: Object.spec{jobTemplate: Object.spec.jobTemplate{spec: Object.spec.jobTemplate.spec{template: Object.spec.jobTemplate.spec.template{', '}}}}}']
      : ['Object{spec: Object.spec{template: Object.spec.template{', '}}}'];
  return open + content.slice(0, end) + close + content.slice(end + 1);
}

export function autogenVariants(policy: MpolPolicy): AutogenVariant[] {
  if (!canAutogen(policy.matchConstraints)) return [];
  const selected = policy.autogenControllers ?? POD_CONTROLLERS;
  const groups = new Map<string, Target[]>();
  for (const c of selected) {
    const t = TARGETS[c];
    if (!t) continue;
    groups.set(t.ref, [...(groups.get(t.ref) ?? []), t]);
  }
  const operations = policy.matchConstraints.resourceRules[0]!.operations ?? [];
  return [...groups.keys()].sort().map((config) => {
    const rules: ResourcePattern[] = groups.get(config)!.map((t) => ({ groups: [t.group], versions: [t.version], resources: [t.resource], operations }));
    return {
      config,
      matchConstraints: { ...policy.matchConstraints, resourceRules: rules },
      matchConditions: policy.matchConditions.map((c) => ({ ...c, text: convertPodToTemplateExpression(c.text, config) })),
      mutations: policy.mutations.map((m) =>
        m.patchType === 'ApplyConfiguration' ? { ...m, expression: { ...m.expression, text: convertPodToTemplateExpression(m.expression.text, config) } } : m,
      ),
    };
  });
}
