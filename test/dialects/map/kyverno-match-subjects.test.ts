/**
 * Kyverno's subjects in a policy's match and exclude (pkg/utils/match/subjects.go CheckSubjects): the request's
 * username matches a User or ServiceAccount pattern, or one of its groups a Group pattern. A match ignores them
 * for a request carrying no user; an exclusion tests them against the empty user. As matchConditions on
 * request.userInfo in MAP and MutatingPolicy; roles and cluster roles, which Kyverno computes from the
 * cluster's RoleBindings, cannot be.
 */
import { describe, expect, it } from 'vitest';
import { apply } from '../../../src/interpreter/index.js';
import type { JsonObject } from '../../../src/ir/json.js';
import type { Policy } from '../../../src/ir/nodes.js';
import type { UserInfo } from '../../../src/k8s/request.js';
import { kyvernoPolicies, refusal, translatedTo } from './kyverno-support.js';

const policy = (block: string): Policy[] =>
  kyvernoPolicies(`apiVersion: kyverno.io/v1
kind: ClusterPolicy
metadata: {name: subjects}
spec:
  rules:
  - name: label
${block.replace(/^/gm, '    ')}
    mutate:
      patchStrategicMerge:
        metadata:
          labels:
            labelled: "yes"
`);

const NAMESPACE: JsonObject = { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'team' } };

const USERS: (UserInfo | undefined)[] = [
  undefined,
  {},
  { username: 'alice', groups: ['system:authenticated'] },
  { username: 'bob', groups: ['system:masters', 'system:authenticated'] },
  { username: 'system:serviceaccount:argocd:argocd-application-controller', groups: ['system:serviceaccounts'] },
  { username: 'system:serviceaccount:other:argocd-x', groups: [] },
];

function result(policies: Policy[], user: UserInfo | undefined): unknown {
  const r = apply(policies, { object: NAMESPACE, operation: 'CREATE', ...(user ? { userInfo: user } : {}) });
  return r.allowed ? r.object : { denied: true };
}

const SUBJECTS = `- kind: Group
  name: system:masters
- kind: ServiceAccount
  name: argocd-*
  namespace: argocd
- kind: User
  name: ali?e`;

describe('Kyverno subjects in a policy match, to MAP and MutatingPolicy', () => {
  for (const [what, block] of [
    ['an exclusion', `match:\n  any:\n  - resources:\n      kinds: [Namespace]\nexclude:\n  any:\n  - subjects:\n${SUBJECTS.replace(/^/gm, '    ')}`],
    ['a match', `match:\n  all:\n  - resources:\n      kinds: [Namespace]\n    subjects:\n${SUBJECTS.replace(/^/gm, '    ')}`],
  ] as const) {
    it(`${what} on groups, service accounts and users gives what Kyverno gives for each user`, () => {
      const source = policy(block);
      const changed = USERS.filter((u) => JSON.stringify(result(source, u)) !== JSON.stringify(NAMESPACE));
      // The source labels some users' namespaces and not others': the test compares both kinds.
      expect(changed.length).toBeGreaterThan(0);
      expect(changed.length).toBeLessThan(USERS.length);
      for (const to of ['map', 'kyverno-mpol'] as const) {
        const target = translatedTo(source, to);
        for (const u of USERS) expect(result(target, u), `${to} ${JSON.stringify(u)}`).toEqual(result(source, u));
      }
    });
  }

  it('an exclusion on cluster roles cannot be: the request carries no roles', () => {
    const text = refusal(policy('match:\n  any:\n  - resources:\n      kinds: [Namespace]\nexclude:\n  any:\n  - clusterRoles: [cluster-admin]'));
    expect(text).toContain('cannot express a match or exclusion on roles or cluster roles');
  });
});
