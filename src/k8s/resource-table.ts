/**
 * Built-in Kubernetes kinds (resource-table.json): `group version Kind plural scope`, one row a kind, `core`
 * standing for the empty group, `N` namespaced and `C` cluster-scoped. Written from the Kubernetes API
 * reference (v1.34); the served version listed is the preferred one, and `resourceOf` keeps whatever version a
 * request names. test/k8s/resources.test.ts cross-checks the core, apps, batch and discovery rows against the
 * OpenAPI documents in ../shared/conformance/map/k8s-schema/openapi-v3. The rows are data, kept as JSON.
 */
import rows from './resource-table.json' with { type: 'json' };

/** The rows, one per line. */
export const BUILTIN_RESOURCES: string = rows.join('\n');
