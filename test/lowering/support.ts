/** Helpers for the raising tests: one-op policies, and running a policy the way `apply` would. */
import '../../src/dialects/registry.js';
import type { Origin } from '../../src/diagnostics/span.js';
import { apply } from '../../src/interpreter/index.js';
import type { JsonValue } from '../../src/ir/json.js';
import type { Guard, Op, Policy } from '../../src/ir/nodes.js';
import { printOps } from '../../src/ir/print.js';

export const O: Origin = { dialect: 'kyverno', file: 't.yaml', line: 1, col: 1, endLine: 1, endCol: 1 };

export function policyOf(body: Op[], guards: Guard[] = []): Policy {
  return { id: 'p', match: { globs: 'wildcard' }, guards: [], rules: [{ name: 'r', guards, body, origin: O }], semantics: { order: 'sequential', failurePolicy: 'fail' }, origin: O };
}

/** The object after the policy ran, or `error` when the request would be denied. */
export function run(p: Policy, object: JsonValue): JsonValue | 'error' {
  const r = apply([p], { object, oldObject: null, operation: 'CREATE', userInfo: {}, namespaceObject: null, params: null }, { trace: false });
  return r.allowed ? r.object : 'error';
}

export function body(p: Policy): string {
  return printOps(p.rules[0]!.body).trim();
}

const base = { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'x', namespace: 'dev' } };

/** Pods whose patched places are absent, present with other siblings, or already set: typed as a Pod is. */
export const PODS: JsonValue[] = [
  { ...base },
  { ...base, spec: {} },
  { ...base, metadata: { ...base.metadata, labels: { app: 'web', team: 'storage' }, annotations: { note: 'x' } }, spec: { dnsPolicy: 'Default', nodeSelector: { zone: 'west', disk: 'ssd' } } },
  { ...base, metadata: { ...base.metadata, labels: { app: 'db' } }, spec: { securityContext: { runAsNonRoot: false, fsGroup: 2000 }, hostNetwork: true, priorityClassName: 'low' } },
  { ...base, spec: { securityContext: { runAsUser: 0 }, nodeSelector: {} } },
];
