/**
 * `apply -o patch`: one resource's RFC 6902 patch as it is (ready for `kubectl patch --type json`); several
 * resources as one JSON array naming each resource beside its patch, so the output is always one valid JSON
 * document (as `-o json` prints one object, or a List of several).
 */
import { isJsonObject, type JsonValue } from '../ir/json.js';
import type { Patch6902 } from '../interpreter/api.js';
import { toJson } from '../io/yaml-dump.js';

export interface ResourcePatch {
  /** The resource as given (its identity: apiVersion, kind, namespace, name). */
  object: JsonValue;
  patch: Patch6902[];
}

export interface ResourceRef {
  apiVersion?: string;
  kind?: string;
  namespace?: string;
  name?: string;
}

export function resourceRef(obj: JsonValue): ResourceRef {
  if (!isJsonObject(obj)) return {};
  const meta = isJsonObject(obj.metadata) ? obj.metadata : {};
  const ref: ResourceRef = {};
  if (typeof obj.apiVersion === 'string') ref.apiVersion = obj.apiVersion;
  if (typeof obj.kind === 'string') ref.kind = obj.kind;
  if (typeof meta.namespace === 'string') ref.namespace = meta.namespace;
  if (typeof meta.name === 'string') ref.name = meta.name;
  return ref;
}

export function patchOutput(patches: readonly ResourcePatch[]): string {
  if (patches.length === 1) return `${toJson(patches[0]!.patch)}\n`;
  return `${toJson(patches.map((p) => ({ resource: resourceRef(p.object), patch: p.patch })))}\n`;
}
