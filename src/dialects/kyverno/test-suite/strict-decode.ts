/**
 * How `kyverno test` reads a `kyverno-test.yaml` document (cmd/cli/kubectl-kyverno/test/load.go LoadTest) and
 * the values, user info and context files it names: sigs.k8s.io/yaml UnmarshalStrict into apis/v1alpha1 Test
 * (Values, UserInfo, Context), i.e. the YAML turned into JSON (map keys sorted) and decoded by encoding/json with
 * DisallowUnknownFields. Since the old schema was removed (kyverno#12840, Kyverno 1.15) a test that names a
 * field the Test type lacks (`resource`, `patchedResource` and `status` of the old results, a typo) fails to
 * load, and `kyverno test` stops before running any test.
 *
 * encoding/json's rules, as reproduced here:
 * - a key matches a field by its exact JSON name, else case-insensitively (`Policies` sets `policies`); two
 *   keys of one field both decode, the later (in sorted order) wins;
 * - a key no field takes is an error (`json: unknown field "x"`), and so is a value of the wrong JSON type
 *   (`json: cannot unmarshal string into Go struct field Test.policies of type []string`); `null` is always
 *   accepted. Decoding goes on after an error; the first one (in key order) is the one returned.
 *
 * The Kubernetes types a test may embed (ObjectMeta, Namespace, APIResource) are checked at their first level
 * only: below it, values are accepted as they are, so a test this check passes may still fail Kyverno's
 * load, never the other way round.
 */
import { hasOwn, isJsonObject, type JsonObject, type JsonValue } from '../../../ir/json.js';
import type { YamlPath } from '../../../io/source.js';

/** A Go type as encoding/json decodes into it. */
type GoType =
  | { readonly kind: 'string' | 'bool' | 'int' | 'any'; readonly go: string }
  | { readonly kind: 'slice' | 'map'; readonly go: string; readonly of: GoType }
  | { readonly kind: 'struct'; readonly go: string; readonly fields: Readonly<Record<string, GoType>> };

const STRING: GoType = { kind: 'string', go: 'string' };
const BOOL: GoType = { kind: 'bool', go: 'bool' };
const INT: GoType = { kind: 'int', go: 'int' };
const ANY: GoType = { kind: 'any', go: 'interface {}' };
const STRINGS: GoType = { kind: 'slice', go: '[]string', of: STRING };
const RAW: GoType = { kind: 'any', go: 'runtime.RawExtension' };
const VALUES_MAP: GoType = { kind: 'map', go: 'map[string]interface {}', of: ANY };
const STRING_MAP: GoType = { kind: 'map', go: 'map[string]string', of: STRING };

const slice = (of: GoType): GoType => ({ kind: 'slice', go: `[]${of.go}`, of });

/** A struct type of `go` name with its fields, those of the structs it embeds inline included. */
const struct = (go: string, fields: Record<string, GoType>): GoType => ({ kind: 'struct', go, fields });

/** A Kubernetes type: checked at its first level only (see the header). */
const shallow = struct;

const TYPE_META: Record<string, GoType> = { apiVersion: STRING, kind: STRING };

/** metav1.ObjectMeta (k8s.io/apimachinery v0.3x). */
const OBJECT_META = shallow('v1.ObjectMeta', {
  name: STRING,
  generateName: STRING,
  namespace: STRING,
  selfLink: STRING,
  uid: STRING,
  resourceVersion: STRING,
  generation: ANY,
  creationTimestamp: ANY,
  deletionTimestamp: ANY,
  deletionGracePeriodSeconds: ANY,
  labels: STRING_MAP,
  annotations: STRING_MAP,
  ownerReferences: ANY,
  finalizers: STRINGS,
  managedFields: ANY,
});

/** metav1.APIResource. */
const API_RESOURCE = shallow('v1.APIResource', {
  name: STRING,
  singularName: STRING,
  namespaced: BOOL,
  group: STRING,
  version: STRING,
  kind: STRING,
  verbs: STRINGS,
  shortNames: STRINGS,
  categories: STRINGS,
  storageVersionHash: STRING,
});

/** corev1.Namespace. */
const NAMESPACE = shallow('v1.Namespace', { ...TYPE_META, metadata: OBJECT_META, spec: ANY, status: ANY });

/** apis/v1alpha1 ValuesSpec and what it holds. */
const VALUES_SPEC_FIELDS: Record<string, GoType> = {
  globalValues: VALUES_MAP,
  policies: slice(
    struct('v1alpha1.Policy', {
      name: STRING,
      resources: slice(struct('v1alpha1.Resource', { name: STRING, values: VALUES_MAP })),
      rules: slice(struct('v1alpha1.Rule', { name: STRING, values: VALUES_MAP, foreachValues: { kind: 'map', go: 'map[string][]interface {}', of: slice(ANY) } })),
    }),
  ),
  namespaceSelector: slice(struct('v1alpha1.NamespaceSelector', { name: STRING, labels: STRING_MAP })),
  namespaces: slice(NAMESPACE),
  subresources: slice(struct('v1alpha1.Subresource', { subresource: API_RESOURCE, parentResource: API_RESOURCE })),
};

/** TestResult: TestResultBase and TestResultData, both inline. */
const TEST_RESULT = struct('v1alpha1.TestResult', {
  policy: STRING,
  rule: STRING,
  isValidatingAdmissionPolicy: BOOL,
  isMutatingAdmissionPolicy: BOOL,
  isValidatingPolicy: BOOL,
  isDeletingPolicy: BOOL,
  isImageValidatingPolicy: BOOL,
  isGeneratingPolicy: BOOL,
  isMutatingPolicy: BOOL,
  result: { kind: 'string', go: 'v1alpha1.Result' },
  kind: STRING,
  operation: STRING,
  patchedResources: STRING,
  generatedResource: STRING,
  cloneSourceResource: STRING,
  failOnMissingResources: BOOL,
  resources: STRINGS,
  resourceSpecs: slice(struct('v1alpha1.TestResourceSpec', { group: STRING, version: STRING, kind: STRING, namespace: STRING, subresource: STRING, name: STRING })),
  generatedResources: STRINGS,
});

/** apis/v1alpha1 Test (kyverno/kyverno main, 2026-08). */
const TEST = struct('v1alpha1.Test', {
  ...TYPE_META,
  metadata: OBJECT_META,
  name: STRING,
  policies: STRINGS,
  resources: STRINGS,
  jsonPayload: STRING,
  jsonPayloads: STRINGS,
  httpPayloads: STRINGS,
  envoyPayloads: STRINGS,
  targetResources: STRINGS,
  variables: STRING,
  paramResources: STRINGS,
  userinfo: STRING,
  results: slice(TEST_RESULT),
  values: struct('v1alpha1.ValuesSpec', VALUES_SPEC_FIELDS),
  exceptions: STRINGS,
  context: STRING,
  clusterResources: STRINGS,
  apiCallResponses: slice(
    struct('v1alpha1.APICallResponseEntry', { url: STRING, urlPath: STRING, method: STRING, response: struct('v1alpha1.APICallResponse', { statusCode: INT, body: RAW }) }),
  ),
  globalContextEntries: slice(
    struct('v1alpha1.GlobalContextEntryValue', {
      name: STRING,
      data: RAW,
      resources: slice(RAW),
      resourceFiles: STRINGS,
      fieldPath: STRING,
      projections: slice(struct('v1alpha1.GlobalContextProjection', { name: STRING, path: STRING })),
    }),
  ),
});

/** apis/v1alpha1 Values: the file a test's `variables` names (values/load.go: UnmarshalStrict too). */
const VALUES = struct('v1alpha1.Values', { ...TYPE_META, metadata: OBJECT_META, ...VALUES_SPEC_FIELDS });

/** apis/v1alpha1 UserInfo: the file a test's `userinfo` names (userinfo/userinfo.go Load: UnmarshalStrict). */
const USER_INFO = struct('v1alpha1.UserInfo', {
  ...TYPE_META,
  metadata: OBJECT_META,
  roles: STRINGS,
  clusterRoles: STRINGS,
  userInfo: struct('v1.UserInfo', { username: STRING, uid: STRING, groups: STRINGS, extra: { kind: 'map', go: 'map[string]v1.ExtraValue', of: STRINGS } }),
  synchronize: BOOL,
});

/** apis/v1alpha1 Context: the file a test's `context` names (context/load.go: UnmarshalStrict). */
const CONTEXT = struct('v1alpha1.Context', {
  ...TYPE_META,
  metadata: OBJECT_META,
  spec: struct('v1alpha1.ContextSpec', {
    resources: slice({ kind: 'any', go: 'unstructured.Unstructured' }),
    images: slice(
      struct('v1alpha1.ImageData', { image: STRING, resolvedImage: STRING, registry: STRING, repository: STRING, tag: STRING, digest: STRING, imageIndex: ANY, manifest: ANY, config: ANY }),
    ),
  }),
});

/** The documents a test reads, by the Go type kyverno test decodes them into. */
const DOCUMENT_TYPES = { test: TEST, values: VALUES, userInfo: USER_INFO, context: CONTEXT } as const;

/** What went wrong, as encoding/json words it, and where (the key or the value). */
export interface DecodeError {
  readonly message: string;
  readonly path: YamlPath;
  /** The error is about the key at `path` (an unknown field), not its value. */
  readonly atKey: boolean;
}

/** The document with every key as the field it decodes into, or the first decode error. */
export type StrictDecoded = { ok: true; value: JsonObject } | { ok: false; error: DecodeError };

/** UnmarshalStrict of `doc` into a Test, or the Values, UserInfo or Context a test names (see the header). */
export function decodeStrictly(doc: JsonObject, as: keyof typeof DOCUMENT_TYPES): StrictDecoded {
  const d = new Decoder();
  const value = d.decode(doc, DOCUMENT_TYPES[as], [], []) as JsonObject;
  return d.error === undefined ? { ok: true, value } : { ok: false, error: d.error };
}

/** encoding/json's fold: ASCII case, and the two non-ASCII letters that fold to ASCII ones (ſ to s, K to k). */
function fold(s: string): string {
  return s.toLowerCase().replace(/\u017f/g, 's').replace(/\u212a/g, 'k');
}

/** The JSON type name encoding/json gives a value it cannot decode (UnmarshalTypeError.Value). */
function jsonKind(v: JsonValue): string {
  if (Array.isArray(v)) return 'array';
  if (typeof v === 'object') return 'object';
  return typeof v === 'number' ? 'number' : typeof v === 'boolean' ? 'bool' : 'string';
}

class Decoder {
  error: DecodeError | undefined;

  private fail(message: string, path: YamlPath, atKey: boolean): void {
    this.error ??= { message, path, atKey };
  }

  /** `v` decoded into `type` at `path`; `fields` is the struct-field path (UnmarshalTypeError.Field). */
  decode(v: JsonValue, type: GoType, path: YamlPath, fields: readonly string[], struct?: string): JsonValue {
    if (v === null || type.kind === 'any') return v;
    const mismatch = (): JsonValue => {
      const where = struct === undefined ? `Go value of type ${type.go}` : `Go struct field ${struct}.${fields.join('.')} of type ${type.go}`;
      this.fail(`json: cannot unmarshal ${jsonKind(v)}${type.kind === 'int' && typeof v === 'number' ? ` ${v}` : ''} into ${where}`, path, false);
      return v;
    };
    switch (type.kind) {
      case 'string':
        return typeof v === 'string' ? v : mismatch();
      case 'bool':
        return typeof v === 'boolean' ? v : mismatch();
      case 'int':
        return typeof v === 'number' && Number.isInteger(v) ? v : mismatch();
      case 'slice': {
        if (!Array.isArray(v)) return mismatch();
        return v.map((item, i) => this.decode(item, type.of, [...path, i], fields, struct));
      }
      case 'map': {
        if (!isJsonObject(v)) return mismatch();
        const out: JsonObject = {};
        for (const key of Object.keys(v).sort()) Object.defineProperty(out, key, { value: this.decode(v[key]!, type.of, [...path, key], fields, struct), enumerable: true, writable: true, configurable: true });
        return out;
      }
      case 'struct':
        return isJsonObject(v) ? this.decodeStruct(v, type, path, fields) : mismatch();
    }
  }

  private decodeStruct(v: JsonObject, type: Extract<GoType, { kind: 'struct' }>, path: YamlPath, fields: readonly string[]): JsonObject {
    const out: JsonObject = {};
    // sigs.k8s.io/yaml hands encoding/json the keys sorted (its YAML map goes through json.Marshal).
    for (const key of Object.keys(v).sort()) {
      const name = hasOwn(type.fields, key) ? key : Object.keys(type.fields).find((f) => fold(f) === fold(key));
      if (name === undefined) {
        this.fail(`json: unknown field ${JSON.stringify(key)}`, [...path, key], true);
        continue;
      }
      // UnmarshalTypeError names the struct being decoded (an embedded struct's fields are its own) and the
      // field path from the root.
      out[name] = this.decode(v[key]!, type.fields[name]!, [...path, key], [...fields, name], type.go.slice(type.go.lastIndexOf('.') + 1));
    }
    return out;
  }
}
