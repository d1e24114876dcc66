/** Go's text forms of strings, as upstream error messages print them. */

const SHORT_ESCAPES: Record<string, string> = { '\x07': '\\a', '\b': '\\b', '\f': '\\f', '\n': '\\n', '\r': '\\r', '\t': '\\t', '\v': '\\v', '"': '\\"', '\\': '\\\\' };

/** What unicode.IsPrint refuses: other (control, format, unassigned, private, surrogate) and separators but the space. */
const NOT_PRINTABLE = /[\p{C}\p{Z}]/u;

/** fmt `%q` of a Go string (strconv.Quote): printable runes kept, the rest escaped as Go escapes them. */
export function goQuote(s: string): string {
  let out = '"';
  for (const ch of s) {
    const short = SHORT_ESCAPES[ch];
    if (short !== undefined) {
      out += short;
      continue;
    }
    const c = ch.codePointAt(0)!;
    if (ch === ' ' || !NOT_PRINTABLE.test(ch)) out += ch;
    else if (c < 0x80) out += '\\x' + c.toString(16).padStart(2, '0');
    else if (c < 0x10000) out += '\\u' + c.toString(16).padStart(4, '0');
    else out += '\\U' + c.toString(16).padStart(8, '0');
  }
  return out + '"';
}
