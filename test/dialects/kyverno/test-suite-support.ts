import { tempDir } from '../../support/temp.js';

/** A temporary folder with the given files (paths may contain folders), removed when the test file ends. */
export function suiteDir(files: Record<string, string>): string {
  return tempDir('suite', files);
}

export const POLICY = `apiVersion: kyverno.io/v1
kind: ClusterPolicy
metadata:
  name: add-label
spec:
  rules:
  - name: add-label
    match:
      any:
      - resources:
          kinds: [Pod]
    preconditions:
      all:
      - key: "{{ request.object.metadata.labels.skip || '' }}"
        operator: NotEquals
        value: "yes"
    mutate:
      patchStrategicMerge:
        metadata:
          labels:
            color: orange
`;

export const RESOURCES = `apiVersion: v1
kind: Pod
metadata:
  name: web
spec:
  containers:
  - name: app
    image: nginx
---
apiVersion: v1
kind: Pod
metadata:
  name: skipped
  labels:
    skip: "yes"
spec:
  containers:
  - name: app
    image: nginx
---
apiVersion: apps/v1
kind: Deployment
metadata:
  name: deploy
spec:
  template:
    metadata:
      labels:
        app: a
    spec:
      containers:
      - name: app
        image: nginx
---
apiVersion: v1
kind: Service
metadata:
  name: svc
spec:
  ports:
  - port: 80
`;

export const PATCHED_POD = `apiVersion: v1
kind: Pod
metadata:
  name: web
  namespace: default
  labels:
    color: orange
spec:
  containers:
  - name: app
    image: nginx
`;

export const PATCHED_DEPLOY = `apiVersion: apps/v1
kind: Deployment
metadata:
  name: deploy
  namespace: default
spec:
  template:
    metadata:
      labels:
        app: a
        color: orange
    spec:
      containers:
      - name: app
        image: nginx
`;

export function testFile(results: string, extra = ''): string {
  return `apiVersion: cli.kyverno.io/v1alpha1
kind: Test
metadata:
  name: t
policies:
- policy.yaml
resources:
- resources.yaml
${extra}results:
${results}`;
}
