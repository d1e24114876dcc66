/**
 * Gatekeeper AssignImage as CEL string work on the current reference. The split is src/k8s/image-ref.ts's
 * (assignimage/imageparser.go): the part before the first `/` is the domain when it holds `.` or `:` or is
 * `localhost`; the tag starts at the first `:` or `@` after it. `find()` returns "" when nothing matches.
 */
import type { ImageOp } from '../../ir/nodes.js';
import { joinImage } from '../../k8s/image-ref.js';
import { celString } from './emit-cel.js';

/** `domain/` of a reference, or "". */
const DOMAIN_RE = '^([^/]*[.:][^/]*|localhost)/';
/** `domain/path` of a reference: everything before the tag. */
const NAME_RE = '^(([^/]*[.:][^/]*|localhost)/)?[^:@]*';

/** The new reference given the CEL of the current one (undefined: the field is missing, Gatekeeper starts from ""). */
export function imageValue(op: ImageOp, current: string | undefined): string {
  if (current === undefined) return celString(joinImage({ domain: op.domain ?? '', path: op.repo ?? '', tag: op.tag ?? '' }));
  const domainWithSlash = `${current}.find(${celString(DOMAIN_RE)})`;
  const name = `${current}.find(${celString(NAME_RE)})`;
  const parts: string[] = [];
  if (op.domain === undefined) parts.push(domainWithSlash);
  else if (op.domain !== '') parts.push(celString(`${op.domain}/`));
  if (op.repo === undefined) parts.push(op.domain === undefined ? '' : `${name}.substring(size(${domainWithSlash}))`);
  else parts.push(celString(op.repo));
  if (op.tag === undefined) parts.push(`${current}.substring(size(${name}))`);
  else parts.push(celString(op.tag));
  // Keeping domain and path together reads as one `find`.
  if (op.domain === undefined && op.repo === undefined) parts.splice(0, 2, name);
  return parts.filter((p) => p !== '').join(' + ');
}
