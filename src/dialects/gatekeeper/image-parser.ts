/**
 * AssignImage's parameter validation (pkg/mutation/mutators/assignimage/imageparser.go validateImageParts):
 * the parts a mutator may assign must split back into the same components (src/k8s/image-ref.ts, the one
 * splitter the interpreter uses too), otherwise the fix-point would not converge.
 */
import { splitImage } from '../../k8s/image-ref.js';
import { goQuote } from './go-format.js';

// Go's RE2 `\w` is ASCII, as JavaScript's is without the `u` flag; `$` is the end of the text in both.
const DOMAIN_SOURCE = String.raw`(^\w[\w\-_]*\.[\w\-_\.]*[\w](:\d+)?$)|(^localhost(:\d+)?$)`;
const PATH_SOURCE = String.raw`^[a-z0-9]+(?:(?:(?:[._/]|__|[-]*)[a-z0-9]+)+)?`;
const TAG_SOURCE = String.raw`(^:[\w][\w.-]{0,127}$)|(^@[A-Za-z][A-Za-z0-9]*([-_+.][A-Za-z][A-Za-z0-9]*)*[:][0-9A-Fa-f]{32,}$)`;
const DOMAIN_RE = new RegExp(DOMAIN_SOURCE);
const PATH_RE = new RegExp(PATH_SOURCE);
const TAG_RE = new RegExp(TAG_SOURCE);

export type ImageErrorKind = 'missingComponents' | 'invalidDomain' | 'invalidPath' | 'invalidTag' | 'domainLikePath';

export interface ImageValidationError {
  kind: ImageErrorKind;
  /** Upstream's message (assignimage/errors.go). */
  message: string;
  /** Which parameter is at fault, for pointing at it; absent when none is set. */
  field?: 'assignDomain' | 'assignPath' | 'assignTag';
}

function validateDomain(domain: string): ImageValidationError | null {
  if (domain === '') return null;
  if (!DOMAIN_RE.test(domain)) {
    return { kind: 'invalidDomain', field: 'assignDomain', message: `assignDomain ${goQuote(domain)} must be a fully-qualified domain name or localhost` };
  }
  // Unreachable given the pattern; upstream keeps it so the pattern and the splitter cannot drift apart.
  const parts = splitImage(`${domain}/`);
  if (parts.domain !== domain || parts.path !== '' || parts.tag !== '') {
    return { kind: 'invalidDomain', field: 'assignDomain', message: `domain ${goQuote(domain)} could not be recognized as a valid domain` };
  }
  return null;
}

function validateTag(tag: string): ImageValidationError | null {
  if (tag === '') return null;
  if (!TAG_RE.test(tag)) {
    return { kind: 'invalidTag', field: 'assignTag', message: `assignTag ${goQuote(tag)} must be a valid docker image tag or digest starting with ':' or '@'` };
  }
  // A valid tag holds no `/`, so no domain is split off and this is upstream's splitTag.
  const parts = splitImage(tag);
  if (parts.tag !== tag || parts.path !== '') {
    return { kind: 'invalidTag', field: 'assignTag', message: `tag ${goQuote(tag)} could not be recognized as a valid tag or digest` };
  }
  return null;
}

/** validateImageParts, in upstream order; null when the parts are acceptable. */
export function validateImageParts(domain: string, path: string, tag: string): ImageValidationError | null {
  if (domain === '' && path === '' && tag === '') {
    return { kind: 'missingComponents', message: 'at least one of [assignDomain, assignPath, assignTag] must be set' };
  }
  const domainError = validateDomain(domain);
  if (domainError) return domainError;
  // Upstream compares the leftmost-first match with the whole string instead of anchoring with `$`.
  if (path !== '' && PATH_RE.exec(path)?.[0] !== path) {
    return { kind: 'invalidPath', field: 'assignPath', message: `assignPath ${goQuote(path)} must be a valid docker image path` };
  }
  const tagError = validateTag(tag);
  if (tagError) return tagError;
  // A path that starts like a domain would leak into the domain on the next pass and never converge.
  if (domain === '' && splitImage(path).domain !== '') {
    return {
      kind: 'domainLikePath',
      field: 'assignPath',
      message: `assignDomain must be set if the first part of assignPath ${goQuote(path)} can be interpretted as part of a domain`,
    };
  }
  return null;
}
