/**
 * An object's way through kube-apiserver around admission, as `kubectl get` then shows it: the request body is
 * decoded with its kind's defaults, the built-in mutating admission plugins run (CREATE), then the
 * MutatingAdmissionPolicies and webhooks (the caller's policies), and what they return is defaulted again
 * (webhook/mutating/dispatcher.go re-defaults the decoded patch result) and stored through the kind's Go
 * type, whose `omitempty` lists do not survive empty. Custom resources are stored as written.
 *
 * Not modelled (they need a cluster or are random): uid, resourceVersion, creationTimestamp, generation,
 * managedFields, status, a Service's allocated clusterIP(s) and IP families, a Job's controller-uid selector
 * and labels, LimitRanger's defaults from the namespace's LimitRanges, and resource quantities in canonical form
 * (SetDefaults_ResourceList rounds to milli-units and the apiserver re-serializes them: "0.5" is stored "500m").
 */
import { isJsonObject, type JsonObject, type JsonValue } from '../../ir/json.js';
import { builtInAdmission } from './admission.js';
import { applyApiServerDefaults } from './apply.js';

/** The object admission sees: defaulted, then changed by the built-in admission plugins (on CREATE). */
export function admittedObject(object: JsonValue, operation: string, tokenSuffix?: string): JsonValue {
  const defaulted = applyApiServerDefaults(object);
  if (!isJsonObject(defaulted)) return defaulted;
  return tokenSuffix === undefined ? builtInAdmission(defaulted, operation) : builtInAdmission(defaulted, operation, tokenSuffix);
}

/** The object as stored after admission returned it: defaulted again, built-in kinds round-tripped. */
export function storedObject(object: JsonValue): JsonValue {
  const defaulted = applyApiServerDefaults(object);
  return isJsonObject(defaulted) ? typedRoundTrip(defaulted) : defaulted;
}

/**
 * A built-in kind decoded into its Go struct and encoded again: its list fields are `omitempty`, so an empty
 * list (`env: []` after a patch removed every variable) is gone. Custom resources are stored as written.
 */
export function typedRoundTrip(o: JsonObject): JsonObject {
  return isBuiltIn(o) ? (dropEmptyLists(o) as JsonObject) : o;
}

/** Built-in API groups: the core group, unqualified groups (apps, batch) and *.k8s.io. */
export function isBuiltIn(o: JsonObject): boolean {
  const apiVersion = typeof o.apiVersion === 'string' ? o.apiVersion : '';
  const slash = apiVersion.indexOf('/');
  const group = slash < 0 ? '' : apiVersion.slice(0, slash);
  return !group.includes('.') || group.endsWith('.k8s.io');
}

function dropEmptyLists(v: JsonValue): JsonValue {
  if (Array.isArray(v)) return v.map(dropEmptyLists);
  if (!isJsonObject(v)) return v;
  const out: JsonObject = {};
  for (const k of Object.keys(v)) {
    const x = v[k]!;
    if (Array.isArray(x) && x.length === 0) continue;
    Object.defineProperty(out, k, { value: dropEmptyLists(x), enumerable: true, writable: true, configurable: true });
  }
  return out;
}
