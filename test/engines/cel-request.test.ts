import { describe, expect, it } from 'vitest';
import { createCelEngine } from '../../src/engines/cel.js';
import type { ExprScope } from '../../src/interpreter/engines.js';
import type { JsonObject } from '../../src/ir/json.js';
import type { AdmissionRequest } from '../../src/k8s/request.js';

const origin = { file: 't.yaml', line: 1, col: 1, endLine: 1, endCol: 2, dialect: 'map' };

function scopeOf(request: AdmissionRequest): ExprScope {
  return { object: request.object ?? null, oldObject: null, request, params: null, namespaceObject: null, vars: {} };
}

function run(text: string, request: AdmissionRequest): { ok: true; value: unknown } | { ok: false; message: string } {
  const compiled = createCelEngine().compile({ text, origin });
  if (!compiled.ok) throw new Error(compiled.diagnostics[0]!.message);
  const r = compiled.fn(scopeOf(request));
  return r.ok ? { ok: true, value: r.value } : { ok: false, message: r.diagnostic.message };
}

const clusterRole: JsonObject = { apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'ClusterRole', metadata: { name: 'reader' } };
const generatedPod: JsonObject = { apiVersion: 'v1', kind: 'Pod', metadata: { generateName: 'p-', namespace: 'dev' }, spec: { containers: [] } };

// kube-apiserver hands CEL the AdmissionRequest as its JSON form reads (common.UnstructuredReflectToVal,
// DefaultUnstructuredConverter before it): fields tagged omitempty are absent when empty.
describe('CEL request: omitempty fields are absent when empty', () => {
  it('a cluster-scoped object has no request.namespace', () => {
    const request: AdmissionRequest = { operation: 'CREATE', object: clusterRole, userInfo: { username: 'alice' } };
    expect(run('has(request.namespace)', request)).toEqual({ ok: true, value: false });
    expect(run('request.?namespace.orValue("cluster")', request)).toEqual({ ok: true, value: 'cluster' });
    expect(run('request.namespace == ""', request)).toMatchObject({ ok: false, message: expect.stringContaining('no such key: namespace') });
    expect(run('request.name', request)).toEqual({ ok: true, value: 'reader' });
  });

  it('a generated name leaves request.name out, the namespace in', () => {
    const request: AdmissionRequest = { operation: 'CREATE', object: generatedPod, namespace: 'dev', userInfo: { username: 'alice' } };
    expect(run('has(request.name)', request)).toEqual({ ok: true, value: false });
    expect(run('request.name', request)).toMatchObject({ ok: false, message: expect.stringContaining('no such key: name') });
    expect(run('request.namespace', request)).toEqual({ ok: true, value: 'dev' });
  });

  it('no subResource, requestSubResource, uid, groups or extra unless the request has them', () => {
    const request: AdmissionRequest = { operation: 'CREATE', object: generatedPod, namespace: 'dev', userInfo: { username: 'alice', groups: [], extra: {} } };
    for (const field of ['subResource', 'requestSubResource']) expect(run(`has(request.${field})`, request)).toEqual({ ok: true, value: false });
    for (const field of ['uid', 'groups', 'extra']) expect(run(`has(request.userInfo.${field})`, request)).toEqual({ ok: true, value: false });
    expect(run('request.userInfo', request)).toEqual({ ok: true, value: { username: 'alice' } });
    const full: AdmissionRequest = { ...request, subResource: 'status', userInfo: { username: 'alice', uid: 'u-1', groups: ['dev'], extra: { scope: ['a'] } } };
    expect(run('[request.subResource, request.requestSubResource, request.userInfo.uid, request.userInfo.groups[0], request.userInfo.extra.scope[0]]', full)).toEqual({
      ok: true,
      value: ['status', 'status', 'u-1', 'dev', 'a'],
    });
  });

  it('a request without a user has an empty userInfo; kind, resource, operation and dryRun are always there', () => {
    const request: AdmissionRequest = { operation: 'CREATE', object: clusterRole };
    expect(run('request.userInfo', request)).toEqual({ ok: true, value: {} });
    expect(run('has(request.userInfo.username)', request)).toEqual({ ok: true, value: false });
    expect(run('[request.kind.kind, request.resource.resource, request.operation, request.dryRun]', request)).toEqual({ ok: true, value: ['ClusterRole', 'clusterroles', 'CREATE', false] });
  });
});
