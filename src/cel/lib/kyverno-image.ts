/**
 * Kyverno's image library (pkg/cel/libs/image): `image(ref)` parses an image reference the way
 * go-containerregistry's name.ParseReference does with its defaults (registry `index.docker.io`, official
 * images under `library/`, tag `latest`), and the members read its parts. `image.GetMetadata` (imagedata)
 * reads the run's image data (image-data.ts) and, for an image it does not hold, fails offline with a message
 * naming the library and the image.
 */
import { global, member, type FunctionDef } from '../registry.js';
import { CelOpaque, err, noOverload } from '../values.js';
import { OUTSIDE_DATA, unavailable } from './kyverno-context.js';
import type { RuntimeServices } from '../compile.js';
import { imageMetadata } from './image-data.js';

const DEFAULT_REGISTRY = 'index.docker.io';
// go-containerregistry name/repository.go, name/tag.go, name/digest.go.
const REPO_COMPONENT = /^[a-z0-9]+(?:(?:[._]|__|[-]*)[a-z0-9]+)*$/;
const TAG = /^[\w][\w.-]{0,127}$/;
const DIGEST = /^sha256:[0-9a-f]{64}$/;

export class KyvernoImage extends CelOpaque {
  readonly typeName = 'kyverno.image';
  constructor(
    readonly image: string,
    readonly registry: string,
    readonly repository: string,
    readonly tag: string,
    readonly digest: string,
  ) {
    super();
  }
  get identifier(): string {
    return this.digest || this.tag;
  }
  equals(o: unknown): boolean {
    return o instanceof KyvernoImage && o.image === this.image && o.registry === this.registry && o.repository === this.repository && o.tag === this.tag && o.digest === this.digest;
  }
}

/** The parsed reference, or the error name.ParseReference gives. */
export function parseImageReference(ref: string): KyvernoImage | string {
  let rest = ref;
  let digest = '';
  let tag = '';
  const at = rest.indexOf('@');
  if (at >= 0) {
    digest = rest.slice(at + 1);
    rest = rest.slice(0, at);
    if (!DIGEST.test(digest)) return `could not parse reference: ${ref}`;
    // name.NewDigest: a tag before the digest (`repo:tag@sha256:...`) is parsed and dropped.
    const colon = rest.lastIndexOf(':');
    if (colon > rest.lastIndexOf('/')) {
      if (!TAG.test(rest.slice(colon + 1))) return `could not parse reference: ${ref}`;
      rest = rest.slice(0, colon);
    }
  } else {
    const colon = rest.lastIndexOf(':');
    if (colon > rest.lastIndexOf('/')) {
      tag = rest.slice(colon + 1);
      rest = rest.slice(0, colon);
      if (!TAG.test(tag)) return `could not parse reference: ${ref}`;
    }
  }
  let registry = DEFAULT_REGISTRY;
  let repository = rest;
  const slash = rest.indexOf('/');
  if (slash >= 0) {
    const head = rest.slice(0, slash);
    if (head.includes('.') || head.includes(':') || head === 'localhost') {
      registry = head === 'docker.io' ? DEFAULT_REGISTRY : head;
      repository = rest.slice(slash + 1);
    }
  }
  if (repository === '' || !repository.split('/').every((c) => REPO_COMPONENT.test(c))) return `could not parse reference: ${ref}`;
  if (registry === DEFAULT_REGISTRY && !repository.includes('/')) repository = `library/${repository}`;
  if (!digest && !tag) tag = 'latest';
  const image = `${registry}/${repository}${digest ? `@${digest}` : `:${tag}`}`;
  return new KyvernoImage(image, registry, repository, tag, digest);
}

function parse(fn: string, s: unknown): KyvernoImage {
  if (typeof s !== 'string') return noOverload(fn, s);
  const r = parseImageReference(s);
  return typeof r === 'string' ? err(r) : r;
}

/** The image's metadata from the run's image data (`--image-data`); without it, the call is unsupported offline. */
function metadataOf(services: RuntimeServices, fn: string, ref: unknown): unknown {
  if (typeof ref !== 'string') return noOverload(fn, ref);
  const found = imageMetadata(services.imageData, ref);
  if (found === undefined) return unavailable(`imagedata (${fn})`, `the metadata of image "${ref}" ${OUTSIDE_DATA.registry} (--image-data)`);
  return found;
}

function part(name: string, read: (i: KyvernoImage) => unknown): FunctionDef {
  return member('kyverno', name, 0, (i: unknown) => (i instanceof KyvernoImage ? read(i) : noOverload(name, i)), { recv: ['opaque'] });
}

export const kyvernoImageFunctions: FunctionDef[] = [
  global('kyverno', 'image', 1, (s: unknown) => parse('image', s)),
  global('kyverno', 'parseImageReference', 1, (s: unknown) => parse('parseImageReference', s)),
  global('kyverno', 'isImage', 1, (s: unknown) => (typeof s === 'string' ? typeof parseImageReference(s) !== 'string' : noOverload('isImage', s))),
  part('registry', (i) => i.registry),
  part('repository', (i) => i.repository),
  part('identifier', (i) => i.identifier),
  part('tag', (i) => i.tag),
  part('digest', (i) => i.digest),
  part('containsDigest', (i) => i.digest !== ''),
  ...['image.GetMetadata', 'imagedata.Get'].map((n) => global('kyverno', n, 1, (s: RuntimeServices, ref: unknown) => metadataOf(s, n, ref), { pure: false, services: true })),
];
