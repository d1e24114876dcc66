/**
 * Go's encoding/json text of a value, in CEL (to_string of a non-string, and the non-string values spliced
 * into a `{{ }}` template). CEL has no JSON encoder, so it is built from parts:
 * - numbers: re-spelled from CEL's %g text into encoding/json's form (numbers.ts);
 * - strings inside a list or map: quoted with Go's escapes for `\` `"` \n \r \t and the HTML-safe
 *   \u003c \u003e \u0026; other control characters and U+2028/U+2029 (rare, long to spell) fail;
 * - containers as far as their static type says what they hold (request.userInfo's groups, a multiselect
 *   hash of typed values), up to TYPED_DEPTH levels;
 * - otherwise a list or a map of scalars (map keys sorted byte-wise, which needs ext.Lists sort(), Kubernetes
 *   1.34); anything nested deeper fails at runtime. Both limits come with a note.
 */
import type { Cx } from './context.js';
import { bind, celString, fail, frag, isNumeric, tfrag, tyOf, withTy, type Frag } from './frag.js';
import { T, type Ty } from './types.js';
import { numberText } from './numbers.js';

const ESCAPES: [string, string][] = [
  ['\\', '\\\\'],
  ['"', '\\"'],
  ['\n', '\\n'],
  ['\r', '\\r'],
  ['\t', '\\t'],
  ['<', '\\u003c'],
  ['>', '\\u003e'],
  ['&', '\\u0026'],
];

const UNSPELLED = celString('[\\x00-\\x08\\x0b\\x0c\\x0e-\\x1f\\x{2028}\\x{2029}]');

const NOTE =
  'a list or map is JSON-encoded in CEL as deep as its type is known (three levels at most), one level deep where it is not (lists and maps of scalars; maps need Kubernetes 1.34+), and strings in it without control characters other than \\n \\r \\t; otherwise the CEL fails where Kyverno writes the JSON';

/** How many levels of containers typedJson writes out (each is one comprehension); deeper types fall back. */
const TYPED_DEPTH = 3;

/** A CEL string holding the JSON string literal of `s` (a simple string fragment). */
function quoted(s: Frag): string {
  const chain = ESCAPES.reduce((acc, [from, to]) => `${acc}.replace(${celString(from)}, ${celString(to)})`, s.cel);
  return `${s.cel}.matches(${UNSPELLED}) ? ${fail('JSON-encoding a string with control characters is not supported').cel} : "\\"" + ${chain} + "\\""`;
}

/** JSON text of a scalar (string quoted); anything else fails. */
function scalarJson(v: Frag, cx: Cx): string {
  return (
    `type(${v.cel}) == string ? (${quoted(v)}) : ` +
    `type(${v.cel}) == bool ? string(${v.cel}) : ` +
    `type(${v.cel}) == null_type ? "null" : ` +
    `type(${v.cel}) == int || type(${v.cel}) == double ? (${numberText(v, cx)}) : ` +
    fail('JSON-encoding a value nested in a list or map is not supported').cel
  );
}

/**
 * JSON text of a non-string value: a scalar, or a list or map of scalars. Every member goes through one
 * scalar encoder (written once): a scalar is its own single member, a list's members have no prefix, a map's
 * are prefixed with their quoted key (keys sorted byte-wise, as encoding/json sorts them).
 */
function valueJson(v: Frag, cx: Cx): string {
  const p = cx.names.fresh('m');
  const e = cx.names.fresh('e');
  const k = cx.names.fresh('k');
  const texts = cx.names.fresh('t');
  const pf = frag(`${p}[1]`, 'dyn', { atom: true });
  const kf = frag(k, 'string', { simple: true, atom: true });
  const mapMembers = cx.caps.listsExt
    ? `${v.cel}.map(${k}, ${k}).sort().map(${k}, [dyn(${quoted(kf)} + ":"), dyn(${v.cel}[${k}])])`
    : `${fail('JSON-encoding a map needs sorted keys (ext.Lists sort(), Kubernetes 1.34+)').cel}`;
  const members = `(type(${v.cel}) == list ? ${v.cel}.map(${e}, [dyn(""), dyn(${e})]) : type(${v.cel}) == map ? ${mapMembers} : [[dyn(""), dyn(${v.cel})]])`;
  const encoded = bind(pf, cx.names, (x) => frag(scalarJson(x, cx), 'string')).cel;
  return (
    `[${members}.map(${p}, ${p}[0] + (${encoded}))].map(${texts}, ` +
    `type(${v.cel}) == list ? "[" + ${texts}.join(",") + "]" : type(${v.cel}) == map ? "{" + ${texts}.join(",") + "}" : ${texts}[0])[0]`
  );
}

/**
 * JSON text of `v` (a simple fragment) as its static type `ty` says it is, containers included, or undefined
 * where the type says nothing of a container's content (dyn) or nests deeper than TYPED_DEPTH: the generic
 * encoder runs then. A member of unknown type inside a typed map is a scalar or fails, as there.
 */
function typedJson(v: Frag, ty: Ty, cx: Cx, depth: number): string | undefined {
  switch (ty.k) {
    case 'string':
      return quoted(v);
    case 'bool':
      return `string(${v.cel})`;
    case 'null':
      return '"null"';
    case 'int':
    case 'double':
    case 'number':
      return numberText(withTy(v, ty), cx);
    case 'nullable': {
      const inner = typedJson(withTy(v, ty.of), ty.of, cx, depth);
      return inner === undefined ? undefined : `${v.cel} == null ? "null" : (${inner})`;
    }
    case 'list': {
      if (depth >= TYPED_DEPTH || ty.of.k === 'dyn') return undefined;
      const e = cx.names.fresh('e');
      const item = typedJson(tfrag(e, ty.of, { simple: true, atom: true }), ty.of, cx, depth + 1);
      return item === undefined ? undefined : `"[" + ${v.cel}.map(${e}, ${item}).join(",") + "]"`;
    }
    case 'map': {
      if (depth >= TYPED_DEPTH || !cx.caps.listsExt) return undefined;
      const k = cx.names.fresh('k');
      const kf = frag(k, 'string', { simple: true, atom: true });
      // The member's text by the type its key gives it (a known field's, else the map's other keys').
      const memberText = (t: Ty): string | undefined => {
        const member = bind(tfrag(`${v.cel}[${k}]`, t, { atom: true }), cx.names, (x) => {
          const text = t.k === 'dyn' ? scalarJson(x, cx) : typedJson(x, t, cx, depth + 1);
          return frag(text ?? '', 'string');
        });
        return member.cel === '' ? undefined : member.cel;
      };
      let dispatch = memberText(ty.rest);
      if (dispatch === undefined) return undefined;
      for (const name of Object.keys(ty.fields).reverse()) {
        const text = memberText(ty.fields[name]!);
        if (text === undefined) return undefined;
        dispatch = `${k} == ${celString(name)} ? (${text}) : (${dispatch})`;
      }
      return `"{" + ${v.cel}.map(${k}, ${k}).sort().map(${k}, ${quoted(kf)} + ":" + (${dispatch})).join(",") + "}"`;
    }
    case 'dyn':
      return undefined;
  }
}

/**
 * The text Kyverno splices for a value: strings as they are, everything else as json.Marshal writes it
 * (go-jmespath to_string, vars.go substitution). `v` may be any fragment.
 */
export function spliceText(v: Frag, cx: Cx): Frag {
  if (v.t === 'string') return v;
  if (v.t === 'null') return tfrag('"null"', T.plainString, { simple: true, atom: true });
  if (v.t === 'bool') return tfrag(`string(${v.cel})`, T.plainString, { atom: true, err: v.err });
  return bind(v, cx.names, (x) => {
    if (isNumeric(x.t)) return tfrag(numberText(x, cx), T.plainString, { err: x.err, atom: tyOf(x).k === 'int' && (tyOf(x) as { small?: boolean }).small === true });
    cx.notes.add(NOTE);
    const ty = tyOf(x);
    const typed = ty.k === 'list' || ty.k === 'map' || (ty.k === 'nullable' && (ty.of.k === 'list' || ty.of.k === 'map')) ? typedJson(x, ty, cx, 0) : undefined;
    if (typed !== undefined) return frag(typed, 'string', { err: true });
    const text = `type(${x.cel}) == string ? ${x.cel} : ${valueJson(x, cx)}`;
    return frag(text, 'string', { err: true });
  });
}
