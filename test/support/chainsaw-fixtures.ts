/** A mutating ClusterPolicy, its readiness assert and a Pod, for tests of chainsaw tests (transmute test, migrate). */
export const ADD_TEAM_POLICY = `apiVersion: kyverno.io/v1
kind: ClusterPolicy
metadata:
  name: add-team
spec:
  rules:
  - name: team
    match:
      any:
      - resources:
          kinds: [Pod]
    mutate:
      patchStrategicMerge:
        metadata:
          labels:
            +(team): platform
`;

/** chainsaw's readiness assert of ADD_TEAM_POLICY. */
export const ADD_TEAM_READY = 'apiVersion: kyverno.io/v1\nkind: ClusterPolicy\nmetadata:\n  name: add-team\nstatus:\n  ready: true\n';

export const WEB_POD = 'apiVersion: v1\nkind: Pod\nmetadata:\n  name: web\nspec:\n  containers:\n  - name: app\n    image: nginx\n';

/** The Pod `web` with the label team `team`: what the assert of a test of ADD_TEAM_POLICY expects. */
export function labelledPod(team: string): string {
  return `apiVersion: v1\nkind: Pod\nmetadata:\n  name: web\n  labels:\n    team: ${team}\n`;
}
