import { isJsonObject } from '../../ir/json.js';
import type { SourceDoc } from '../../io/source.js';
import { EXCEPTION_KIND, GROUP, POLICY_KINDS, VERSIONS } from './model.js';

function inGroup(doc: SourceDoc): boolean {
  const v = doc.value;
  if (!isJsonObject(v) || typeof v.apiVersion !== 'string') return false;
  const slash = v.apiVersion.indexOf('/');
  return slash > 0 && v.apiVersion.slice(0, slash) === GROUP && VERSIONS.has(v.apiVersion.slice(slash + 1));
}

function kind(doc: SourceDoc): string {
  return isJsonObject(doc.value) && typeof doc.value.kind === 'string' ? doc.value.kind : '';
}

export function isMpolDoc(doc: SourceDoc): boolean {
  return inGroup(doc) && POLICY_KINDS.has(kind(doc));
}

export function isExceptionDoc(doc: SourceDoc): boolean {
  return inGroup(doc) && kind(doc) === EXCEPTION_KIND;
}

/** MutatingPolicy, NamespacedMutatingPolicy and the CEL PolicyExceptions that refer to them. */
export function recognizes(doc: SourceDoc): boolean {
  return isMpolDoc(doc) || isExceptionDoc(doc);
}

/** A MutatingPolicy whose `spec.evaluation.mutateExisting.enabled` is true (it mutates stored objects). */
export function mutatesExisting(doc: SourceDoc): boolean {
  if (!isMpolDoc(doc) || !isJsonObject(doc.value)) return false;
  const spec = doc.value.spec;
  const ev = isJsonObject(spec) && isJsonObject(spec.evaluation) ? spec.evaluation : undefined;
  const me = ev && isJsonObject(ev.mutateExisting) ? ev.mutateExisting : undefined;
  return me?.enabled === true;
}
