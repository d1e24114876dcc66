/** Policies the migrate tests share. */

/** A ClusterPolicy whose label comes from a ConfigMap of the cluster (a context entry no offline run has). */
export const ZONE_LABEL_POLICY = `apiVersion: kyverno.io/v1
kind: ClusterPolicy
metadata: {name: zone-label, annotations: {pod-policies.kyverno.io/autogen-controllers: none}}
spec:
  rules:
  - name: zone
    match: {any: [{resources: {kinds: [Pod]}}]}
    context:
    - name: settings
      configMap: {name: settings, namespace: kube-system}
    mutate:
      patchStrategicMerge:
        metadata:
          labels:
            zone: "{{ settings.data.zone }}"
`;
