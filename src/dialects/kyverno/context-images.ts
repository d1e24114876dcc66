/**
 * Kyverno's `images` context entry (pkg/engine/context AddImageInfos → ImageInfoLoader, pkg/utils/api/image.go
 * ExtractImagesFromResource), reproduced:
 * - only the kinds Kyverno registers an extractor for have images (Pod; DaemonSet, Deployment, ReplicaSet,
 *   ReplicationController, StatefulSet and Job through `spec.template.spec`; CronJob through its job
 *   template): any other kind, a custom workload included, has no `images` entry at all;
 * - per list (`initContainers`, `containers`, `ephemeralContainers`), each container's parsed image keyed by its
 *   name, with `jsonPointer`, the place of the image in the object (`/spec/containers/0/image`); a list without
 *   any entry is left out, and so is `images` itself when no list has one;
 * - a container that is not a map, or whose name is not a string, or an image that does not parse fails the
 *   whole extraction: Kyverno's loader returns the error, so every query reading `images` fails with it. A
 *   container without an image, or with a blank one, has no entry.
 *
 * The object is the one Kyverno's policy context was made from, not the object as earlier rules left it: the
 * loader keeps a pointer to the resource it was registered with and nothing registers it again (see
 * ExprScope.imagesSource).
 */
import { defineOwn, hasOwn, isJsonObject, type JsonObject, type JsonValue } from '../../ir/json.js';
import { getImageInfo, type ImageInfo } from '../../jmespath/functions/images.js';

const IMAGE_ENV = { ctx: {} };

const WORKLOAD = ['spec', 'template', 'spec'];

/** pkg/utils/api/image.go registeredExtractors: where each kind's pod spec is. */
export const POD_SPEC_FIELDS: ReadonlyMap<string, readonly string[]> = new Map<string, readonly string[]>([
  ['Pod', ['spec']],
  ['DaemonSet', WORKLOAD],
  ['Deployment', WORKLOAD],
  ['ReplicaSet', WORKLOAD],
  ['ReplicationController', WORKLOAD],
  ['StatefulSet', WORKLOAD],
  ['Job', WORKLOAD],
  ['CronJob', ['spec', 'jobTemplate', 'spec', 'template', 'spec']],
]);

/** The container lists of a pod spec `images` has, in the order Kyverno extracts them. */
export const IMAGE_LISTS = ['initContainers', 'containers', 'ephemeralContainers'] as const;

/** Why the extraction failed: the message Kyverno's loader returns. */
export class ImagesFailure {
  constructor(readonly message: string) {}
}

/** The pod-spec fields of `object`'s kind, or undefined when Kyverno extracts no images from that kind. */
export function podSpecFieldsOf(object: JsonValue | null | undefined): readonly string[] | undefined {
  if (!isJsonObject(object)) return undefined;
  const kind = hasOwn(object, 'kind') ? object.kind : undefined;
  return typeof kind === 'string' ? POD_SPEC_FIELDS.get(kind) : undefined;
}

/**
 * The `images` entry of `object`: undefined where Kyverno adds none (a kind without an extractor, no image
 * anywhere), an ImagesFailure where its extraction fails.
 */
export function contextImages(object: JsonValue | null | undefined): JsonObject | ImagesFailure | undefined {
  const fields = podSpecFieldsOf(object);
  if (fields === undefined) return undefined;
  const out: JsonObject = {};
  let any = false;
  for (const list of IMAGE_LISTS) {
    const entries: JsonObject = {};
    const failure = extract(object!, [...fields, list, '*'], 0, [], entries);
    if (failure !== undefined) return failure;
    if (Object.keys(entries).length > 0) {
      out[list] = entries;
      any = true;
    }
  }
  return any ? out : undefined;
}

/** A copy of an `images` entry (lists of entries by container name, each a map of strings): nothing shared. */
export function copyImages(images: JsonObject): JsonObject {
  const out: JsonObject = {};
  for (const list of Object.keys(images)) {
    const entries = images[list] as JsonObject;
    const copied: JsonObject = {};
    for (const name of Object.keys(entries)) defineOwn(copied, name, { ...(entries[name] as JsonObject) });
    defineOwn(out, list, copied);
  }
  return out;
}

/**
 * image.go `extract` with the standard extractor's fields (`<pod spec>/<list>/*`, key `name`, value `image`):
 * a missing (nil) value ends the walk quietly, a value of the wrong shape fails it. `path` is the walk's
 * place, the container's `jsonPointer` once it reaches one.
 */
function extract(value: JsonValue | undefined, fields: readonly string[], at: number, path: readonly string[], into: JsonObject): ImagesFailure | undefined {
  if (value === undefined || value === null) return undefined;
  if (fields[at] === '*') {
    if (Array.isArray(value)) {
      for (let i = 0; i < value.length; i++) {
        const failure = extract(value[i], fields, at + 1, [...path, String(i)], into);
        if (failure !== undefined) return failure;
      }
      return undefined;
    }
    if (!isJsonObject(value)) return new ImagesFailure('invalid type');
    for (const key of Object.keys(value)) {
      const failure = extract(value[key], fields, at + 1, [...path, key], into);
      if (failure !== undefined) return failure;
    }
    return undefined;
  }
  if (!isJsonObject(value)) return new ImagesFailure('invalid image config');
  if (at === fields.length) return entry(value, path, into);
  const field = fields[at]!;
  return extract(hasOwn(value, field) ? value[field] : undefined, fields, at + 1, [...path, field], into);
}

/** One container: its entry under its name, unless it has no image. */
function entry(container: JsonObject, path: readonly string[], into: JsonObject): ImagesFailure | undefined {
  const name = hasOwn(container, 'name') ? container.name : undefined;
  if (typeof name !== 'string') return new ImagesFailure('invalid key');
  const image = hasOwn(container, 'image') ? container.image : undefined;
  if (typeof image !== 'string' || image.trim() === '') return undefined;
  const info = getImageInfo(image, IMAGE_ENV);
  if (typeof info === 'string') return new ImagesFailure(`invalid image '${image}' (${info})`);
  const e = imageInfoJson(info);
  e.jsonPointer = `/${path.join('/')}/image`;
  defineOwn(into, name, e);
  return undefined;
}

/** pkg/utils/image ImageInfo as the context stores it (json.Marshal: the omitempty fields dropped when empty). */
function imageInfoJson(i: ImageInfo): JsonObject {
  const referenceWithTag = i.registry !== '' ? `${i.registry}/${i.path}:${i.tag}` : `${i.path}:${i.tag}`;
  const image = i.registry !== '' ? `${i.registry}/${i.path}` : i.path;
  const reference = i.digest !== '' ? `${image}@${i.digest}` : `${image}:${i.tag}`;
  const out: JsonObject = {};
  if (i.registry !== '') out.registry = i.registry;
  out.name = i.name;
  out.path = i.path;
  if (i.tag !== '') out.tag = i.tag;
  if (i.digest !== '') out.digest = i.digest;
  out.reference = reference;
  out.referenceWithTag = referenceWithTag;
  return out;
}
