/**
 * `isIP` of node:net without Node: 4 for a dotted-decimal IPv4 address, 6 for an IPv6 address (with an
 * optional `%zone`), 0 otherwise.
 */
const V4_OCTET = '(?:25[0-5]|2[0-4][0-9]|1[0-9][0-9]|[1-9][0-9]|[0-9])';
const V4 = new RegExp(`^${V4_OCTET}(?:\\.${V4_OCTET}){3}$`);
const HEXTET = /^[0-9a-fA-F]{1,4}$/;
const ZONE = /^[0-9a-zA-Z\-.:_~]+$/;

function isIPv6(s: string): boolean {
  const pct = s.indexOf('%');
  if (pct >= 0 && !ZONE.test(s.slice(pct + 1))) return false;
  const addr = pct >= 0 ? s.slice(0, pct) : s;
  const halves = addr.split('::');
  if (halves.length > 2) return false;
  const groups = (half: string): string[] | undefined => (half === '' ? [] : half.split(':'));
  const head = groups(halves[0]!);
  const tail = halves.length === 2 ? groups(halves[1]!) : [];
  if (!head || !tail) return false;
  const all = [...head, ...tail];
  let units = 0;
  for (let i = 0; i < all.length; i++) {
    const g = all[i]!;
    // An embedded IPv4 address may end the address and counts as two groups.
    if (i === all.length - 1 && V4.test(g)) units += 2;
    else if (HEXTET.test(g)) units += 1;
    else return false;
  }
  return halves.length === 2 ? units < 8 : units === 8;
}

export function isIP(s: string): 0 | 4 | 6 {
  if (V4.test(s)) return 4;
  return isIPv6(s) ? 6 : 0;
}
