import { isJsonObject } from '../../ir/json.js';
import type { SourceDoc } from '../../io/source.js';
import { BINDING_KIND, GROUP, POLICY_KIND, VERSIONS } from './model.js';

/** `admissionregistration.k8s.io/<version>` of a MAP API version, or undefined. */
function mapVersion(doc: SourceDoc): string | undefined {
  const v = doc.value;
  if (!isJsonObject(v) || typeof v.apiVersion !== 'string') return undefined;
  const slash = v.apiVersion.indexOf('/');
  if (slash < 0 || v.apiVersion.slice(0, slash) !== GROUP) return undefined;
  const version = v.apiVersion.slice(slash + 1);
  return VERSIONS.has(version) ? version : undefined;
}

export function isPolicyDoc(doc: SourceDoc): boolean {
  return mapVersion(doc) !== undefined && isJsonObject(doc.value) && doc.value.kind === POLICY_KIND;
}

export function isBindingDoc(doc: SourceDoc): boolean {
  return mapVersion(doc) !== undefined && isJsonObject(doc.value) && doc.value.kind === BINDING_KIND;
}

/** The dialect reads policies and their bindings (bindings are parsed together with their policy). */
export function recognizes(doc: SourceDoc): boolean {
  return isPolicyDoc(doc) || isBindingDoc(doc);
}
