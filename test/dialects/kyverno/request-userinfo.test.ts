import { describe, expect, it } from 'vitest';
import { apply } from '../../../src/interpreter/index.js';
import type { JsonObject } from '../../../src/ir/json.js';
import type { AdmissionRequest } from '../../../src/k8s/request.js';
import { kyvernoPolicies } from '../map/kyverno-support.js';

const policy = (label: string) =>
  kyvernoPolicies(`apiVersion: kyverno.io/v1
kind: ClusterPolicy
metadata: {name: who}
spec:
  background: false
  rules:
  - name: who
    match:
      any:
      - resources:
          kinds: [Pod]
    mutate:
      patchStrategicMerge:
        metadata:
          labels:
            who: "${label}"
`);

const pod: JsonObject = { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'web', namespace: 'default' }, spec: { containers: [{ name: 'app', image: 'nginx' }] } };

function run(label: string, userInfo: AdmissionRequest['userInfo']): { label?: unknown; error?: string } {
  const r = apply(policy(label), { object: pod, operation: 'CREATE', namespace: 'default', name: 'web', userInfo });
  if (!r.allowed) return { error: r.diagnostics.map((d) => d.message).join('; ') };
  return { label: ((r.object as JsonObject).metadata as JsonObject & { labels?: JsonObject }).labels?.who };
}

// Kyverno adds the user to its context as encoding/json writes kyvernov2.RequestInfo (AddUserInfo,
// toUnstructured): authentication/v1 UserInfo's fields are all omitempty, so an empty username is absent.
describe('Kyverno context: request.userInfo', () => {
  it('holds the username, groups and uid the request gives', () => {
    expect(run('{{ request.userInfo.username }}', { username: 'alice', groups: ['dev'] })).toEqual({ label: 'alice' });
    expect(run("{{ join(',', request.userInfo.groups) }}", { username: 'alice', groups: ['dev', 'ops'] })).toEqual({ label: 'dev,ops' });
  });

  it('leaves out an empty username, uid, groups and extra', () => {
    expect(run('x{{ request.userInfo.username }}', { groups: ['dev'] }).error).toMatch(/Unknown key "username" in path/);
    expect(run("{{ request.userInfo.username || 'anonymous' }}", { username: '', groups: [] })).toEqual({ label: 'anonymous' });
    expect(run("{{ to_string(keys(request.userInfo)) }}", { username: 'alice', uid: '', groups: [], extra: {} })).toEqual({ label: '["username"]' });
  });
});
