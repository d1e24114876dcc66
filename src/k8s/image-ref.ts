/**
 * Image references split the way Gatekeeper's AssignImage splits them (assignimage/imageparser.go): no
 * normalisation, deterministic even for malformed references; the tag keeps its leading `:` or `@`, and
 * everything from the first `:` or `@` after the domain is the tag.
 */
export interface ImageRef {
  domain: string;
  path: string;
  tag: string;
}

/** Whether the part of a reference before its first `/` is read as a domain. */
export function isDomain(head: string): boolean {
  return head.includes('.') || head.includes(':') || head === 'localhost';
}

export function splitImage(ref: string): ImageRef {
  let domain = '';
  let rest = ref;
  const slash = ref.indexOf('/');
  if (slash >= 0) {
    const head = ref.slice(0, slash);
    if (isDomain(head)) {
      domain = head;
      rest = ref.slice(slash + 1);
    }
  }
  const colon = rest.indexOf(':');
  const at = rest.indexOf('@');
  const j = colon < 0 ? at : at < 0 ? colon : Math.min(colon, at);
  if (j < 0) return { domain, path: rest, tag: '' };
  return { domain, path: rest.slice(0, j), tag: rest.slice(j) };
}

export function joinImage(ref: ImageRef): string {
  return (ref.domain ? ref.domain + '/' : '') + ref.path + ref.tag;
}
