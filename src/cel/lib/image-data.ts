/**
 * Image metadata offline (`--image-data`): what Kyverno's registry client returns for an image reference
 * (pkg/imagedataloader ImageData: image, resolvedImage, registry, repository, tag, digest, imageIndex,
 * manifest, config), supplied as data, as the Kyverno CLI's Context file supplies it (`spec.images`,
 * cmd/cli/kubectl-kyverno/processor/utils.go: FakeContextProvider.AddImageData keyed by `image`).
 */
import { isJsonObject, type JsonObject, type JsonValue } from '../../ir/json.js';
import { parseImageReference } from './kyverno-image.js';

/** Image metadata by reference, as given. */
export type ImageDataTable = ReadonlyMap<string, JsonObject>;

/**
 * The table a file holds: a mapping from image reference to its metadata, or a `cli.kyverno.io` Context
 * (`spec.images[]`, each keyed by its `image`). A message when it is neither.
 */
export function readImageData(value: JsonValue): ImageDataTable | string {
  const table = new Map<string, JsonObject>();
  if (isJsonObject(value) && value.kind === 'Context' && typeof value.apiVersion === 'string' && value.apiVersion.startsWith('cli.kyverno.io/')) {
    const images = isJsonObject(value.spec) ? value.spec.images : undefined;
    if (!Array.isArray(images)) return 'a cli.kyverno.io Context needs spec.images';
    for (const [i, entry] of images.entries()) {
      if (!isJsonObject(entry) || typeof entry.image !== 'string' || entry.image === '') return `spec.images[${i}]: expected a mapping with an image reference`;
      table.set(entry.image, entry);
    }
    return table;
  }
  if (!isJsonObject(value)) return 'expected a mapping from image reference to its metadata';
  for (const [reference, metadata] of Object.entries(value)) {
    if (!isJsonObject(metadata)) return `${reference}: expected the image's metadata as a mapping (digest, manifest, config, ...)`;
    table.set(reference, metadata);
  }
  return table;
}

/**
 * The metadata of `reference`: the entry given under that reference, else under one that names the same image
 * (`nginx:1.21` and `docker.io/library/nginx:1.21`). The reference's parts are filled in where the entry
 * leaves them out, as the registry client derives them from the reference.
 */
export function imageMetadata(table: ImageDataTable | undefined, reference: string): JsonObject | undefined {
  if (table === undefined) return undefined;
  const parsed = parseImageReference(reference);
  let entry = table.get(reference);
  if (entry === undefined && typeof parsed !== 'string') {
    for (const [key, value] of table) {
      const other = parseImageReference(key);
      if (typeof other !== 'string' && other.image === parsed.image) {
        entry = value;
        break;
      }
    }
  }
  if (entry === undefined || typeof parsed === 'string') return entry;
  const digest = typeof entry.digest === 'string' ? entry.digest : parsed.digest;
  const derived: JsonObject = {
    image: reference,
    resolvedImage: digest ? `${parsed.registry}/${parsed.repository}@${digest}` : parsed.image,
    registry: parsed.registry,
    repository: parsed.repository,
  };
  if (parsed.tag) derived.tag = parsed.tag;
  if (digest) derived.digest = digest;
  return { ...derived, ...entry };
}

/**
 * What a Kyverno `imageRegistry` context entry loads for `reference` (pkg/engine/context/loaders/imagedata.go
 * fetchImageDataMap over pkg/engine/adapters/rclient.go ForRef): `image` as written, `resolvedImage`,
 * `registry`, `repository`, `identifier` (the tag, the digest, or `tag@digest` when the reference has both),
 * and the raw `manifestList`, `manifest` and `configData` documents, null where the table leaves them out.
 * The CEL library's field names differ (`imageIndex`, `config`): the table holds those, as the CLI's Context
 * file does, and they are renamed here. Undefined when the table does not hold the image.
 */
export function registryClientData(table: ImageDataTable | undefined, reference: string): JsonObject | undefined {
  const metadata = imageMetadata(table, reference);
  if (metadata === undefined) return undefined;
  const parsed = parseImageReference(reference);
  const text = (key: string, fallback: string): string => (typeof metadata[key] === 'string' ? (metadata[key] as string) : fallback);
  let identifier = typeof parsed === 'string' ? '' : parsed.identifier;
  // rclient.go: a reference with a digest keeps the tag written before it in the identifier.
  const at = reference.indexOf('@');
  if (at >= 0 && identifier.startsWith('sha256:')) {
    const beforeDigest = reference.slice(0, at);
    const colon = beforeDigest.lastIndexOf(':');
    if (colon >= 0) identifier = `${beforeDigest.slice(colon + 1)}@${identifier}`;
  }
  const raw = (key: string): JsonValue => (metadata[key] === undefined ? null : metadata[key]!);
  return {
    image: reference,
    resolvedImage: text('resolvedImage', reference),
    registry: text('registry', ''),
    repository: text('repository', ''),
    identifier,
    manifestList: raw('imageIndex'),
    manifest: raw('manifest'),
    configData: raw('config'),
  };
}
