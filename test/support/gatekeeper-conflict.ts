/**
 * Two Assigns that read spec.containers as a keyed list and as an object: Gatekeeper's ErrConflictingSchema
 * disables both (the second only for generated resources, so its match.source must survive a round trip).
 */
export const SCHEMA_CONFLICT_ASSIGNS = `apiVersion: mutations.gatekeeper.sh/v1
kind: Assign
metadata:
  name: a
spec:
  applyTo:
  - groups: ['']
    versions: [v1]
    kinds: [Pod]
  location: 'spec.containers[name: app].imagePullPolicy'
  parameters:
    assign:
      value: Always
---
apiVersion: mutations.gatekeeper.sh/v1
kind: Assign
metadata:
  name: b
spec:
  applyTo:
  - groups: ['']
    versions: [v1]
    kinds: [Pod]
  match:
    source: Generated
  location: spec.containers.foo
  parameters:
    assign:
      value: bar
`;
