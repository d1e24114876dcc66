/**
 * A namespaced custom kind `example.com/v1 Widget` whose CRD keys `spec.ports` by name (a list merged by key)
 * and leaves `spec.tags` atomic: for tests of schema-aware merges.
 */
export const WIDGET_CRD = `apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata:
  name: widgets.example.com
spec:
  group: example.com
  scope: Namespaced
  names: {kind: Widget, plural: widgets, singular: widget, listKind: WidgetList}
  versions:
  - name: v1
    served: true
    storage: true
    schema:
      openAPIV3Schema:
        type: object
        properties:
          spec:
            type: object
            properties:
              ports:
                type: array
                x-kubernetes-list-type: map
                x-kubernetes-list-map-keys: [name]
                items:
                  type: object
                  properties:
                    name: {type: string}
                    port: {type: integer}
              tags:
                type: array
                items: {type: string}
`;
