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
 * on those, with a note. A hole inside a hole (its text depends on a value) is not compiled yet.
 */
import { expressionFrag, run, type Outcome } from './compile.js';
import type { Cx, JmesCelScope } from './context.js';
import { bind, cond, fail, frag, litString, strFrag, type Frag } from './frag.js';
import { spliceText } from './json-text.js';
import { yet } from './refuse.js';
import type { CelTarget } from './target.js';

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

function holeValue(body: string, cx: Cx): { frag: Frag; shallow: boolean } {
  if (PLACEHOLDER.test(body)) yet('a `{{ }}` hole nested in another hole (the outer expression is built from a runtime value)');
  const shallow = body.startsWith('-');
  const expression = shallow ? body.slice(1).trim() : body;
  if (expression === '@') yet('`{{@}}` (the path of the current leaf) must be rewritten to an explicit path before compiling');
  return { frag: expressionFrag(expression, cx), shallow };
}

const SPLICE_NOTE =
  'a value spliced into a `{{ }}` string must not hold "{{" or "}}" (Kyverno would scan it for holes again), nor end in "\\" right before another hole; the CEL fails on such values';

/** The CEL for a Kyverno string that may hold holes. */
export function templateFrag(text: string, cx: Cx): Frag {
  if (text.includes(String.fromCharCode(BASE)) || PLACEHOLDER.test(text)) yet('a template holding Unicode private-use characters');
  let s = text;
  const values: Value[] = [];
  for (let pass = 0; pass < 1000; pass++) {
    VARIABLES.lastIndex = 0;
    const first = VARIABLES.exec(s);
    if (!first) break;
    // The whole string is one hole: its value, with its type.
    if (first.index === 0 && first[1] === '' && first[2]!.length === s.length) return holeValue(holeBody(s), cx).frag;
    VARIABLES.lastIndex = 0;
    s = s.replace(VARIABLES, (_m: string, prefix: string, hole: string) => {
      const v = holeValue(holeBody(hole), cx);
      const before = prefix.length === 1 && PLACEHOLDER.test(prefix) ? values[prefix.charCodeAt(0) - BASE] : undefined;
      if (before) before.beforeLaterHole = true;
      values.push({ ...v, beforeLaterHole: false });
      return prefix + String.fromCharCode(BASE + values.length - 1);
    });
  }
  // Escaped holes lose their backslash at the end (`\{{x}}` → `{{x}}`); one spanning a value is not handled.
  s = s.replace(ESCAPED, (m) => {
    if (PLACEHOLDER.test(m)) yet('an escaped `\\{{ }}` around a substituted value');
    return m.slice(1);
  });
  const parts: Frag[] = [];
  let literal = '';
  for (const ch of s) {
    if (!PLACEHOLDER.test(ch)) {
      literal += ch;
      continue;
    }
    if (literal !== '') parts.push(strFrag(literal));
    literal = '';
    parts.push(spliced(values[ch.charCodeAt(0) - BASE]!, cx));
  }
  if (literal !== '' || parts.length === 0) parts.push(strFrag(literal));
  if (parts.length === 1) return parts[0]!;
  return frag(parts.map((p) => (p.atom ? p.cel : `(${p.cel})`)).join(' + '), 'string', { err: parts.some((p) => p.err) });
}

/** A value as Kyverno splices it, guarded where the runtime text would change Kyverno's scan. */
function spliced(v: Value, cx: Cx): Frag {
  const text = spliceText(v.frag, cx);
  const known = litString(text);
  if (known !== undefined) {
    if (known.includes('{{') || known.includes('}}') || (v.beforeLaterHole && known.endsWith('\\'))) {
      yet('a literal spliced into a `{{ }}` string that Kyverno would scan for holes again');
    }
    return text;
  }
  // Numbers, booleans and null print without braces or backslashes: no guard needed.
  if (v.frag.t === 'int' || v.frag.t === 'double' || v.frag.t === 'bool' || v.frag.t === 'null') return text;
  cx.notes.add(SPLICE_NOTE);
  return bind(text, cx.names, (t) => {
    const bad = [`${t.cel}.contains("{{")`, `${t.cel}.contains("}}")`];
    if (v.beforeLaterHole) bad.push(`${t.cel}.endsWith("\\\\")`);
    return cond(bad.join(' || '), fail('a spliced value holds "{{", "}}" or a trailing backslash'), t, true);
  });
}

export function compileTemplate(text: string, scope: JmesCelScope, target: CelTarget): Outcome {
  return run(scope, target, (cx) => templateFrag(text, cx));
}
