/**
 * ObjectMeta as kube-apiserver decodes and validates it for every kind (apimachinery
 * pkg/api/validation/objectmeta.go): its fields, the name as a DNS-1123 subdomain (custom resources and the
 * admissionregistration kinds), label keys and values.
 */
import type { YamlPath } from '../io/source.js';
import { isJsonObject, type JsonValue } from '../ir/json.js';
import { errorText, type FieldError } from './field-error.js';
import type { CompactSchemaTable, SchemaNode } from './schema-table.js';
import { DNS1123_SUBDOMAIN } from '../k8s/names.js';

const STRING: SchemaNode = { type: 'string' };
const STRING_MAP: SchemaNode = { type: 'object', additionalProperties: 0 };
const STRING_LIST: SchemaNode = { type: 'array', items: 0 };
const ANY_OBJECT_LIST: SchemaNode = { type: 'array', items: 4 };
const ANY_OBJECT: SchemaNode = { type: 'object', preserve: true };
const INTEGER: SchemaNode = { type: 'integer' };

/** ObjectMeta's fields (k8s.io/apimachinery/pkg/apis/meta/v1 ObjectMeta), as a schema table of its own. */
export const OBJECT_META_TABLE: CompactSchemaTable = {
  source: 'k8s.io/apimachinery/pkg/apis/meta/v1 ObjectMeta',
  nodes: [
    STRING, // 0
    STRING_MAP, // 1
    STRING_LIST, // 2
    ANY_OBJECT_LIST, // 3
    ANY_OBJECT, // 4
    INTEGER, // 5
    {
      type: 'object',
      properties: {
        name: 0, generateName: 0, namespace: 0, selfLink: 0, uid: 0, resourceVersion: 0, generation: 5,
        creationTimestamp: 0, deletionTimestamp: 0, deletionGracePeriodSeconds: 5, labels: 1, annotations: 1,
        ownerReferences: 3, finalizers: 2, managedFields: 3,
      },
    }, // 6
  ],
  kinds: {},
};
export const OBJECT_META_ROOT = 6;

const DNS1123_SUBDOMAIN_MSG =
  "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')";
const QUALIFIED_NAME = /^([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]$/;
const QUALIFIED_NAME_MSG =
  "name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')";
const LABEL_VALUE = /^(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?$/;
const LABEL_VALUE_MSG =
  "a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyValue',  or 'my_value',  or '12345', regex used for validation is '(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?')";

/** ValidateQualifiedName's messages for a label key or a qualified name. */
export function qualifiedNameErrors(value: string): string[] {
  const errs: string[] = [];
  const parts = value.split('/');
  let name: string;
  if (parts.length === 1) name = parts[0]!;
  else if (parts.length === 2) {
    const [prefix, n] = parts as [string, string];
    name = n;
    if (prefix.length === 0) errs.push('prefix part must be non-empty');
    else if (prefix.length > 253) errs.push('prefix part must be no more than 253 bytes');
    else if (!DNS1123_SUBDOMAIN.test(prefix)) errs.push(`prefix part ${DNS1123_SUBDOMAIN_MSG}`);
  } else {
    return [
      "a qualified name must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]') with an optional DNS subdomain prefix and '/' (e.g. 'example.com/MyName')",
    ];
  }
  if (name.length === 0) errs.push('name part must be non-empty');
  else if (name.length > 63) errs.push('name part must be no more than 63 bytes');
  if (name.length > 0 && !QUALIFIED_NAME.test(name)) errs.push(QUALIFIED_NAME_MSG);
  return errs;
}

/** The value checks of ObjectMeta (types were checked by decoding). */
export function validateObjectMeta(meta: JsonValue | undefined, namespaced: boolean): FieldError[] {
  const errors: FieldError[] = [];
  const at: YamlPath = ['metadata'];
  if (!isJsonObject(meta)) {
    errors.push({ path: [...at, 'name'], at: 'value', message: errorText.required([...at, 'name'], 'name or generateName is required') });
    return errors;
  }
  const name = typeof meta.name === 'string' ? meta.name : '';
  const generateName = typeof meta.generateName === 'string' ? meta.generateName : '';
  if (name === '' && generateName === '') {
    errors.push({ path: [...at, 'name'], at: 'value', message: errorText.required([...at, 'name'], 'name or generateName is required') });
  } else if (name !== '') {
    if (name.length > 253) errors.push({ path: [...at, 'name'], at: 'value', message: errorText.invalid([...at, 'name'], name, 'must be no more than 253 characters') });
    else if (!DNS1123_SUBDOMAIN.test(name)) errors.push({ path: [...at, 'name'], at: 'value', message: errorText.invalid([...at, 'name'], name, DNS1123_SUBDOMAIN_MSG) });
  }
  if (namespaced && typeof meta.namespace === 'string' && meta.namespace !== '') {
    const ns = meta.namespace;
    if (ns.length > 63 || !/^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/.test(ns)) {
      errors.push({
        path: [...at, 'namespace'],
        at: 'value',
        message: errorText.invalid(
          [...at, 'namespace'],
          ns,
          "a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character (e.g. 'my-name',  or '123-abc', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?')",
        ),
      });
    }
  }
  if (isJsonObject(meta.labels)) {
    for (const [k, v] of Object.entries(meta.labels)) {
      for (const e of qualifiedNameErrors(k)) errors.push({ path: [...at, 'labels', k], at: 'key', message: errorText.invalid([...at, 'labels'], k, e) });
      if (typeof v === 'string') {
        if (v.length > 63) errors.push({ path: [...at, 'labels', k], at: 'value', message: errorText.invalid([...at, 'labels'], v, 'must be no more than 63 characters') });
        else if (!LABEL_VALUE.test(v)) errors.push({ path: [...at, 'labels', k], at: 'value', message: errorText.invalid([...at, 'labels'], v, LABEL_VALUE_MSG) });
      }
    }
  }
  if (isJsonObject(meta.annotations)) {
    let total = 0;
    for (const [k, v] of Object.entries(meta.annotations)) {
      for (const e of qualifiedNameErrors(k.toLowerCase())) errors.push({ path: [...at, 'annotations', k], at: 'key', message: errorText.invalid([...at, 'annotations'], k, e) });
      total += k.length + (typeof v === 'string' ? v.length : 0);
    }
    // TotalAnnotationSizeLimitB: 256 KiB.
    if (total > 256 * 1024) errors.push({ path: [...at, 'annotations'], at: 'value', message: errorText.tooLong([...at, 'annotations'], 256 * 1024) });
  }
  return errors;
}
