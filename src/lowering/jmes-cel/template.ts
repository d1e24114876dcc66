/**
 * Kyverno `{{ }}` strings (pkg/engine/variables/vars.go substituteVariablesIfAny, as
 * src/dialects/kyverno/variables.ts reproduces it). Kyverno scans the string with RegexVariables, replaces
 * every hole found with its value (strings as they are, anything else JSON), and scans again until no hole
 * is left; a string that is exactly one hole becomes the hole's value, whatever its type.
 *
 * The scan is replayed here on the static text with each substituted value standing as one placeholder
 * character, so the holes found, their order and the adjacency quirk (the regex consumes the character
 * before a hole, so in `{{a}}{{b}}` the second hole is found on the next pass) are Kyverno's. What depends on
 * the runtime text of a value is guarded: a spliced value holding `{{` or `}}` would be scanned again (or
 * complete a hole around it), and one ending in `\` before a hole found later would escape it; the CEL fails
 * on those, with a note. A hole inside a hole (its text depends on a value) is compiled where the inner value
 * is a whole quoted identifier or raw string literal (nestedHole).
 */
import { expressionFrag, run, type Outcome } from './compile.js';
import type { Cx, JmesCelScope } from './context.js';
import { bind, bindAll, celString, cond, fail, isNumeric, litString, op, strFrag, tfrag, tyOf, type Frag } from './frag.js';
import { spliceText } from './json-text.js';
import { yet } from './refuse.js';
import type { CelTarget } from './target.js';
import { isPlainString, T, type Ty } from './types.js';

// vars.go RegexVariables / RegexEscpVariables.
const VARIABLES = /(^|[^\\])(\{\{(?:\{[^{}]*\}|[^{}])*\}\})/g;
const ESCAPED = /\\\{\{(?:\{[^{}]*\}|[^{}])*\}\}/g;

/** Placeholders: private-use characters, one per substituted value (no brace, no backslash). */
const BASE = 0xe000;
const PLACEHOLDER = /[\ue000-\uf8ff]/;

/** vars.go replaceBracesAndTrimSpaces. */
function holeBody(hole: string): string {
  return hole.replaceAll('{{', '').replaceAll('}}', '').trim();
}

interface Value {
  frag: Frag;
  shallow: boolean;
  /** Followed by a hole that a later pass substituted: a trailing `\` would have escaped it. */
  beforeLaterHole: boolean;
}

function holeValue(body: string, cx: Cx, values: readonly Value[]): { frag: Frag; shallow: boolean } {
  const shallow = body.startsWith('-');
  const expression = shallow ? body.slice(1).trim() : body;
  if (expression === '@') yet('`{{@}}` (the path of the current leaf) must be rewritten to an explicit path before compiling');
  if (PLACEHOLDER.test(expression)) return { frag: nestedHole(expression, cx, values), shallow };
  return { frag: expressionFrag(expression, cx), shallow };
}

/**
 * One pass of Kyverno's scan (vars.go substituteVariablesIfAny): every hole it finds becomes the placeholder of
 * its value, pushed to `values`; a value right before a hole found by this pass is marked (a trailing `\` of
 * its text would have escaped that hole).
 */
function substitutionPass(s: string, cx: Cx, values: Value[]): string {
  VARIABLES.lastIndex = 0;
  return s.replace(VARIABLES, (_m: string, prefix: string, hole: string) => {
    const v = holeValue(holeBody(hole), cx, values);
    const before = prefix.length === 1 && PLACEHOLDER.test(prefix) ? values[prefix.charCodeAt(0) - BASE] : undefined;
    if (before) before.beforeLaterHole = true;
    values.push({ ...v, beforeLaterHole: false });
    return prefix + String.fromCharCode(BASE + values.length - 1);
  });
}

/** Characters of a spliced text that would change how Kyverno reads the quoted identifier it lands in. */
const QUOTED_UNSAFE = ['"', '\\', '{', '}'];

/**
 * Characters of a spliced text that would change how Kyverno reads the raw string literal it lands in: a
 * quote ends it, a brace changes the hole around it; a backslash only escapes a quote, so it is unsafe only
 * at the end (before the closing quote).
 */
const RAW_UNSAFE = ["'", '{', '}'];

/**
 * Outside a hole (a context entry's query, substituted whole), a brace is plain text: a spliced text changes
 * the query only by its quote or escape, or by `{{` / `}}`, which the substitution would scan again.
 */
const QUERY_UNSAFE = { quoted: ['"', '\\', '{{', '}}'], raw: ["'", '{{', '}}'] };

/**
 * A hole whose text holds the value of an inner hole: Kyverno substitutes the inner one first and evaluates
 * the text it makes. Compiled where each inner value is a whole quoted identifier (`images.containers."{{
 * element.name }}".tag`: a field named by the value's text) or a whole raw string literal (`to_upper('{{@}}')`:
 * a string holding the value's text). A text that Kyverno would read as another expression (or none) makes
 * the CEL fail.
 */
function nestedHole(expression: string, cx: Cx, values: readonly Value[], unsafeChars = { quoted: QUOTED_UNSAFE, raw: RAW_UNSAFE }): Frag {
  const keys = new Map<string, Frag>();
  const strings = new Map<string, Frag>();
  const unsafe = new Map<string, { chars: string[]; trailingBackslash: boolean }>();
  const splice = (ch: string, into: Map<string, Frag>, chars: string[], trailingBackslash: boolean): string => {
    const v = values[ch.charCodeAt(0) - BASE]!;
    if (v.shallow) yet('a shallow `{{- }}` hole inside another hole');
    into.set(ch, spliceText(v.frag, cx));
    unsafe.set(ch, { chars, trailingBackslash });
    return '';
  };
  const rest = expression
    .replace(/"([\ue000-\uf8ff])"/g, (_m, ch: string) => splice(ch, keys, unsafeChars.quoted, false))
    .replace(/'([\ue000-\uf8ff])'/g, (_m, ch: string) => splice(ch, strings, unsafeChars.raw, true));
  if (PLACEHOLDER.test(rest)) yet('a `{{ }}` hole nested in another hole other than as a whole quoted identifier (`"{{ … }}"`) or raw string (`\'{{ … }}\'`)');
  const spliced = [...keys, ...strings];
  return bindAll(
    spliced.map(([, f]) => f),
    cx.names,
    (texts) => {
      const bound = new Map(spliced.map(([ch], i) => [ch, texts[i]!]));
      const inner: Cx = {
        ...cx,
        dynamicKeys: new Map([...(cx.dynamicKeys ?? []), ...[...keys.keys()].map((ch) => [ch, bound.get(ch)!] as const)]),
        dynamicStrings: new Map([...(cx.dynamicStrings ?? []), ...[...strings.keys()].map((ch) => [ch, bound.get(ch)!] as const)]),
      };
      const outer = expressionFrag(expression, inner);
      const bad: string[] = [];
      for (const [ch, t] of bound) {
        const { chars, trailingBackslash } = unsafe.get(ch)!;
        const known = litString(t);
        if (known !== undefined) {
          if (chars.some((c) => known.includes(c)) || (trailingBackslash && known.endsWith('\\'))) yet('an inner `{{ }}` value whose text Kyverno would not read as one quoted identifier or string');
          continue;
        }
        bad.push(...chars.map((c) => `${op(t)}.contains(${celString(c)})`));
        if (trailingBackslash) bad.push(`${op(t)}.endsWith("\\\\")`);
      }
      if (bad.length === 0) return outer;
      return cond(bad.join(' || '), fail("an inner hole's text holds a character that changes the expression it lands in"), outer, true);
    },
  );
}

/**
 * A JMESPath query whose text holds `{{ }}` holes, as Kyverno runs a context entry's `jmesPath`
 * (loaders/variable.go, apicall/apiCall.go: the text substituted with SubstituteAll, then queried): each hole
 * is a value of `cx`'s scope spliced as text, and the query the text makes runs in `queryScope` (the context
 * itself, or an apiCall's response). Compiled where each hole is a whole quoted identifier or raw string
 * literal of the query (nestedHole); the CEL fails where a value's text would make another query.
 */
export function substitutedQueryFrag(text: string, cx: Cx, queryScope: JmesCelScope): Frag {
  if (PLACEHOLDER.test(text)) yet('a query holding Unicode private-use characters');
  let s = text;
  const values: Value[] = [];
  for (let pass = 0; pass < 1000; pass++) {
    VARIABLES.lastIndex = 0;
    if (!VARIABLES.test(s)) break;
    s = substitutionPass(s, cx, values);
  }
  ESCAPED.lastIndex = 0;
  if (ESCAPED.test(s)) yet('an escaped `\\{{ }}` in a query');
  return nestedHole(s, { ...cx, scope: queryScope }, values, QUERY_UNSAFE);
}

const SPLICE_NOTE =
  'a value spliced into a `{{ }}` string must not hold "{{" or "}}" (Kyverno would scan it for holes again), nor end in "\\" right before another hole; the CEL fails on such values';

/**
 * How a template's result is used when it is text spliced into a larger text that is read again (a JSON
 * patch's quoted YAML scalar): `text` makes a string that is one hole its spliced text, not its value;
 * `forbid` names the characters (an RE2 class and the same class in JavaScript) a spliced value must not
 * hold, as the reader would take them for syntax: the CEL fails on them.
 */
export interface TemplateOptions {
  text?: boolean;
  /** The text lands in a plain YAML scalar that is read again: it must read back as the same string. */
  plainYaml?: boolean;
  forbid?: { re2: string; js: RegExp; why: string };
}

/** The CEL for a Kyverno string that may hold holes. */
export function templateFrag(text: string, cx: Cx, opts: TemplateOptions = {}): Frag {
  if (text.includes(String.fromCharCode(BASE)) || PLACEHOLDER.test(text)) yet('a template holding Unicode private-use characters');
  let s = text;
  const values: Value[] = [];
  for (let pass = 0; pass < 1000; pass++) {
    VARIABLES.lastIndex = 0;
    const first = VARIABLES.exec(s);
    if (!first) break;
    // The whole string is one hole: its value, with its type.
    if (!opts.text && first.index === 0 && first[1] === '' && first[2]!.length === s.length) return holeValue(holeBody(s), cx, values).frag;
    s = substitutionPass(s, cx, values);
  }
  // Escaped holes lose their backslash at the end (`\{{x}}` → `{{x}}`); one spanning a value is not handled.
  s = s.replace(ESCAPED, (m) => {
    if (PLACEHOLDER.test(m)) yet('an escaped `\\{{ }}` around a substituted value');
    return m.slice(1);
  });
  type Piece = { text: string } | { value: Value };
  const pieces: Piece[] = [];
  let literal = '';
  for (const ch of s) {
    if (!PLACEHOLDER.test(ch)) {
      literal += ch;
      continue;
    }
    if (literal !== '') pieces.push({ text: literal });
    literal = '';
    pieces.push({ value: values[ch.charCodeAt(0) - BASE]! });
  }
  if (literal !== '' || pieces.length === 0) pieces.push({ text: literal });
  if (pieces.length === 1 && 'text' in pieces[0]!) return strFrag(pieces[0].text);
  // Without a `{` in the text around the values and with no two values side by side, a new hole can only
  // come from a `{{` inside one value: that is all a value then needs checking for.
  const around = pieces.map((p) => ('text' in p ? p.text : '')).join('');
  const adjacent = pieces.some((p, i) => 'value' in p && i > 0 && 'value' in pieces[i - 1]!);
  const onlyOpening = !around.includes('{') && !adjacent;
  // Every path of the CEL below either evaluates every value (the concatenation) or fails: a pure value (a
  // field path) can be read in place, its error surfacing either way.
  const texts = pieces.map((p) => ('text' in p ? strFrag(p.text) : splicedText(p.value, cx))).map((f) => (f.pure ? { ...f, simple: true } : f));
  const forbid = opts.forbid;
  if (forbid) {
    pieces.forEach((p, i) => {
      const known = 'value' in p ? litString(texts[i]!) : undefined;
      if (known !== undefined && forbid.js.test(known)) yet(`a literal value spliced into a text that ${forbid.why}`);
    });
  }
  return bindAll(texts, cx.names, (bound) => {
    const bad: string[] = [];
    const unreadable: string[] = [];
    pieces.forEach((p, i) => {
      if ('value' in p && needsGuard(p.value, bound[i]!)) bad.push(...badText(bound[i]!, p.value.beforeLaterHole, onlyOpening));
      if ('value' in p && forbid && litString(bound[i]!) === undefined && !isNumeric(p.value.frag.t) && p.value.frag.t !== 'bool' && p.value.frag.t !== 'null') {
        unreadable.push(`${op(bound[i]!)}.matches(${celString(forbid.re2)})`);
      }
    });
    const concat = tfrag(bound.map((p) => (p.atom ? p.cel : `(${p.cel})`)).join(' + '), joinedType(bound), { err: bound.some((p) => p.err) });
    const read = unreadable.length === 0 ? concat : cond(unreadable.join(' || '), fail(`a spliced value holds characters that ${forbid!.why}`), concat, true);
    const spliced = opts.plainYaml ? readBackAsPlainScalar(read, pieces, cx) : read;
    if (bad.length === 0) return spliced;
    cx.notes.add(SPLICE_NOTE);
    return cond(bad.join(' || '), fail('a spliced value holds "{{", "}}" or a trailing backslash'), spliced, true);
  });
}

/**
 * Text go-yaml v2 (sigs.k8s.io/yaml YAMLToJSON, YAML 1.1) reads back from a plain scalar as the same string,
 * in block and flow context alike: a letter first (numbers, timestamps, `.inf` and indicators start
 * otherwise), then letters, digits and `._/@+=-` (no `:`, `#`, space, quote, comma or bracket), except the
 * words YAML 1.1 resolves to a boolean or null (resolve.go), which become that value.
 */
const PLAIN_TEXT = '^[A-Za-z][A-Za-z0-9._/@+=-]*$';
const PLAIN_CHARS = /^[A-Za-z0-9._/@+=-]*$/;
const YAML11_WORDS: ReadonlyArray<[string, string[]]> = [
  ['true', ['y', 'Y', 'yes', 'Yes', 'YES', 'on', 'On', 'ON', 'true', 'True', 'TRUE']],
  ['false', ['n', 'N', 'no', 'No', 'NO', 'off', 'Off', 'OFF', 'false', 'False', 'FALSE']],
  ['null', ['null', 'Null', 'NULL']],
];

export const PLAIN_NOTE =
  'a text substituted into a plain YAML scalar of a JSON patch is read again by YAML: the CEL keeps it where it begins with a letter and holds only letters, digits and ._/@+=- (a YAML 1.1 boolean or null word becomes that value), and fails on other texts';

/** The failure of a text YAML may read back as another value (readBackAsPlainScalar). */
const NOT_PLAIN = 'a text substituted into a plain YAML scalar that YAML may read back as another value';

/**
 * What YAML reads back from the string `s` (a variable) substituted alone into a plain scalar: the YAML 1.1
 * boolean or null it spells, the string itself where PLAIN_TEXT holds, else the CEL fails (as in
 * readBackAsPlainScalar).
 */
export function plainScalarReadBack(s: string): string {
  let out = `${s}.matches(${celString(PLAIN_TEXT)}) ? ${s} : ${fail(NOT_PLAIN).cel}`;
  for (const [value, spellings] of [...YAML11_WORDS].reverse()) out = `${s} in [${spellings.map((w) => celString(w)).join(', ')}] ? ${value} : (${out})`;
  return out;
}

/** The spliced text as YAML reads it back; the CEL fails where that reading is not modelled. */
function readBackAsPlainScalar(text: Frag, pieces: readonly ({ text: string } | { value: Value })[], cx: Cx): Frag {
  const statics = pieces.filter((p): p is { text: string } => 'text' in p).map((p) => p.text);
  const first = pieces[0]!;
  if (statics.some((t) => !PLAIN_CHARS.test(t)) || ('text' in first && !/^[A-Za-z]/.test(first.text))) {
    yet('a variable in a plain YAML scalar of a JSON patch whose text YAML may read as something other than that string (quote the scalar)');
  }
  cx.notes.add(PLAIN_NOTE);
  // A static piece holding a character other than a letter rules the words out.
  const words = statics.some((t) => /[^A-Za-z]/.test(t)) ? [] : YAML11_WORDS;
  return bind(text, cx.names, (t) => {
    let out = cond(`${op(t)}.matches(${celString(PLAIN_TEXT)})`, tfrag(t.cel, T.plainString, { err: t.err, atom: t.atom }), fail(NOT_PLAIN), true);
    for (const [value, spellings] of [...words].reverse()) {
      out = cond(`${t.cel} in [${spellings.map((w) => celString(w)).join(', ')}]`, tfrag(value, value === 'null' ? T.null : T.bool, { atom: true }), out, true);
    }
    return out;
  });
}

/** The text Kyverno splices for a value; a literal one that Kyverno would scan again is not compiled. */
function splicedText(v: Value, cx: Cx): Frag {
  const text = spliceText(v.frag, cx);
  const known = litString(text);
  if (known !== undefined && (known.includes('{{') || known.includes('}}') || (v.beforeLaterHole && known.endsWith('\\')))) {
    yet('a literal spliced into a `{{ }}` string that Kyverno would scan for holes again');
  }
  return text;
}

/** Whether the runtime text of a value could change Kyverno's scan: numbers, booleans, null and plain strings cannot. */
function needsGuard(v: Value, text: Frag): boolean {
  if (litString(text) !== undefined) return false;
  const t = tyOf(v.frag);
  return !(isNumeric(v.frag.t) || v.frag.t === 'bool' || v.frag.t === 'null' || isPlainString(t));
}

/** The conditions under which a spliced value would be scanned again (or escape a later hole). */
function badText(t: Frag, beforeLaterHole: boolean, onlyOpening: boolean): string[] {
  const bad = onlyOpening ? [`${op(t)}.contains("{{")`] : [`${op(t)}.contains("{{")`, `${op(t)}.contains("}}")`];
  if (beforeLaterHole) bad.push(`${op(t)}.endsWith("\\\\")`);
  return bad;
}

/** A concatenation of strings: plain when every part is. */
function joinedType(parts: Frag[]): Ty {
  return parts.every((p) => isPlainString(tyOf(p))) ? T.plainString : T.string;
}

export function compileTemplate(text: string, scope: JmesCelScope, target: CelTarget, opts: TemplateOptions = {}): Outcome {
  return run(scope, target, (cx) => templateFrag(text, cx, opts));
}
