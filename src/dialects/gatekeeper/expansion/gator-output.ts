/**
 * The resultants as `gator expand` prints them (cmd/gator/expand): each object goes through JSON and is
 * written by go-yaml v2, whose encoder sorts map keys its own way, or by encoding/json's MarshalIndent (4
 * spaces, keys byte-sorted, `<`, `>`, `&`, U+2028 and U+2029 escaped); documents are joined by `---` and the
 * whole stream ends with the extra newline of fmt.Println.
 *
 * One deliberate difference: gator writes `---` right after a JSON document's closing brace (`}---`); a line
 * break is written before it here, so that each document stays readable JSON.
 */
import { isJsonObject, type JsonObject, type JsonValue } from '../../../ir/json.js';
import { toYaml } from '../../../io/yaml-dump.js';
import { compareUtf8 } from '../../../util/bytes.js';

const isLetter = (c: string) => /\p{L}/u.test(c);
const isDigit = (c: string) => c >= '0' && c <= '9';

/**
 * go-yaml v2's keyList.Less for string keys (sorter.go): rune by rune, letters by code point, a non-letter
 * before a letter, and runs of digits compared as numbers (`a2` before `a10`).
 */
export function goYamlKeyLess(a: string, b: string): boolean {
  const ar = [...a];
  const br = [...b];
  for (let i = 0; i < ar.length && i < br.length; i++) {
    if (ar[i] === br[i]) continue;
    const al = isLetter(ar[i]!);
    const bl = isLetter(br[i]!);
    if (al && bl) return ar[i]!.codePointAt(0)! < br[i]!.codePointAt(0)!;
    if (al || bl) return bl;
    let an = 0;
    let bn = 0;
    if (ar[i] === '0' || br[i] === '0') {
      for (let j = i - 1; j >= 0 && isDigit(ar[j]!); j--) {
        if (ar[j] !== '0') {
          an = 1;
          bn = 1;
          break;
        }
      }
    }
    let ai = i;
    for (; ai < ar.length && isDigit(ar[ai]!); ai++) an = an * 10 + Number(ar[ai]);
    let bi = i;
    for (; bi < br.length && isDigit(br[bi]!); bi++) bn = bn * 10 + Number(br[bi]);
    if (an !== bn) return an < bn;
    if (ai !== bi) return ai < bi;
    return ar[i]!.codePointAt(0)! < br[i]!.codePointAt(0)!;
  }
  return ar.length < br.length;
}

/** A copy whose maps list their keys in go-yaml v2's order (the dumper keeps insertion order). */
function inGoYamlOrder(v: JsonValue): JsonValue {
  if (Array.isArray(v)) return v.map(inGoYamlOrder);
  if (!isJsonObject(v)) return v;
  const keys = Object.keys(v).sort((x, y) => (goYamlKeyLess(x, y) ? -1 : goYamlKeyLess(y, x) ? 1 : 0));
  const out: JsonObject = {};
  for (const k of keys) Object.defineProperty(out, k, { value: inGoYamlOrder(v[k]!), enumerable: true, writable: true, configurable: true });
  return out;
}

function byteOrder(a: string, b: string): number {
  return compareUtf8(a, b);
}

/** encoding/json's string escaping with HTML escaping on (the default of json.Marshal). */
function goJsonString(s: string): string {
  return JSON.stringify(s).replace(/[<>&\u2028\u2029]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
}

/** json.MarshalIndent(v, "", "    ") of unstructured content. */
export function goJsonIndent(v: JsonValue, indent = ''): string {
  const inner = indent + '    ';
  if (Array.isArray(v)) {
    if (v.length === 0) return '[]';
    return `[\n${v.map((x) => inner + goJsonIndent(x, inner)).join(',\n')}\n${indent}]`;
  }
  if (isJsonObject(v)) {
    const keys = Object.keys(v).sort(byteOrder);
    if (keys.length === 0) return '{}';
    return `{\n${keys.map((k) => `${inner}${goJsonString(k)}: ${goJsonIndent(v[k]!, inner)}`).join(',\n')}\n${indent}}`;
  }
  if (typeof v === 'string') return goJsonString(v);
  return JSON.stringify(v);
}

export type GatorFormat = 'yaml' | 'json';

/** The whole stream gator prints for these resultants (already sorted). */
export function formatResultants(objects: readonly JsonObject[], format: GatorFormat): string {
  const docs = objects.map((o) => (format === 'yaml' ? toYaml(inGoYamlOrder(o)) : goJsonIndent(o) + '\n'));
  return docs.join('---\n') + '\n';
}
