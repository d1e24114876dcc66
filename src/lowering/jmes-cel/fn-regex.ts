/**
 * Kyverno's regex and matching functions. Kyverno and CEL both use Go's RE2 (regexp), so a pattern means
 * the same on both sides; what differs is around it:
 * - a number given as the subject is printed by Kyverno as float32 (functions.go ifaceToString:
 *   strconv.FormatFloat(f, 'f', -1, 32)); integers up to 2^24 print the same in CEL, other numbers fail;
 * - regex_replace_all expands Go templates (`$1`, `${name}`, `$$`) where cel-go's regex.replace (ext.Regex,
 *   Kyverno's MutatingPolicy environment only) takes `\1`..`\9` and `\\`, so a literal template is translated
 *   against the groups of a literal pattern.
 */
import type { Cx } from './context.js';
import { celString, cond, fail, frag, isNumeric, litString, op, type Frag } from './frag.js';
import { Refused } from './refuse.js';
import { assume, both, cannot, exact, type FnDef } from './table.js';
import { wildcardMatch } from './wildcard.js';

const FLOAT32_EXACT = 16777216;

/** functions.go ifaceToString for a string|number argument (signature-checked). */
export function subjectText(v: Frag, cx: Cx, fn: string): Frag {
  if (v.t === 'string') return v;
  cx.notes.add(`${fn}(): a non-integral number (or one beyond 2^24) as the subject is printed as float32 by Kyverno; the CEL fails on it`);
  const x = v.cel;
  const asInt = `${x} >= -${FLOAT32_EXACT} && ${x} <= ${FLOAT32_EXACT} && (type(${x}) == int || ${x} == double(int(${x})))`;
  const num = cond(asInt, frag(`string(int(${x}))`, 'string', { atom: true }), fail(`${fn}(): a number that is not an integer up to 2^24 is formatted as float32 by Kyverno`));
  if (isNumeric(v.t)) return num;
  return cond(`type(${x}) == string`, v, num);
}

/** Capturing groups of an RE2 pattern: their count and names by number (undefined if unsure). */
export function groupsOf(pattern: string): { count: number; names: (string | undefined)[] } | undefined {
  const names: (string | undefined)[] = [undefined];
  let i = 0;
  let inClass = false;
  while (i < pattern.length) {
    const c = pattern[i]!;
    if (c === '\\') {
      if (pattern[i + 1] === 'Q') {
        const end = pattern.indexOf('\\E', i + 2);
        i = end < 0 ? pattern.length : end + 2;
        continue;
      }
      i += 2;
      continue;
    }
    if (inClass) {
      if (c === '[' && pattern[i + 1] === ':') {
        const end = pattern.indexOf(':]', i + 2);
        if (end < 0) return undefined;
        i = end + 2;
        continue;
      }
      if (c === ']') inClass = false;
      i++;
      continue;
    }
    if (c === '[') {
      inClass = true;
      i++;
      if (pattern[i] === '^') i++;
      if (pattern[i] === ']') i++; // a leading ] is literal
      continue;
    }
    if (c === '(') {
      if (pattern[i + 1] !== '?') names.push(undefined);
      else {
        const named = /^\(\?P?<([A-Za-z0-9_]+)>/.exec(pattern.slice(i));
        if (named) names.push(named[1]);
        else if (!/^\(\?[A-Za-z-]*[:)]/.test(pattern.slice(i))) return undefined;
      }
    }
    i++;
  }
  return inClass ? undefined : { count: names.length - 1, names };
}

/**
 * A Go replacement template (regexp.Expand) as a cel-go regex.replace replacement: `\` doubled, `$$` a
 * dollar, group references by number or name mapped to `\N`, references to missing groups dropped (Go
 * expands them to ""), malformed `$` kept literally.
 */
export function translateTemplate(template: string, groups: { count: number; names: (string | undefined)[] } | undefined): string {
  let out = '';
  let i = 0;
  while (i < template.length) {
    const c = template[i]!;
    if (c === '\\') {
      out += '\\\\';
      i++;
      continue;
    }
    if (c !== '$') {
      out += c;
      i++;
      continue;
    }
    if (template[i + 1] === '$') {
      out += '$';
      i += 2;
      continue;
    }
    const brace = template[i + 1] === '{';
    let j = i + 1 + (brace ? 1 : 0);
    const start = j;
    while (j < template.length && /[\p{L}\p{Nd}_]/u.test(template[j]!)) j++;
    const name = template.slice(start, j);
    if (name === '' || (brace && template[j] !== '}')) {
      out += '$';
      i++;
      continue;
    }
    i = brace ? j + 1 : j;
    if (groups === undefined) throw new Refused('yet', 'regex_replace_all with a `$` group reference needs a literal regular expression (to number its groups)');
    let num = /^[0-9]+$/.test(name) && !(name.length > 1 && name[0] === '0') && name.length < 9 ? Number(name) : -1;
    if (num < 0) num = groups.names.indexOf(name);
    if (num < 0 || num > groups.count) continue;
    if (num > 9) throw new Refused('cannot', `regex_replace_all references group ${num}; cel-go's regex.replace only has \\0..\\9`);
    out += `\\${num}`;
  }
  return out;
}

function regexReplace(literal: boolean): FnDef['emit'] {
  return ([re, src, repl], { cx }) => {
    const s = subjectText(src!, cx, literal ? 'regex_replace_all_literal' : 'regex_replace_all');
    let r: string;
    const templ = litString(repl!);
    if (literal) {
      r = templ !== undefined ? celString(templ.replaceAll('\\', '\\\\')) : `${op(subjectText(repl!, cx, 'regex_replace_all_literal'))}.replace("\\\\", "\\\\\\\\")`;
    } else {
      if (templ === undefined) throw new Refused('yet', 'regex_replace_all with a replacement computed at runtime (its Go `$` template cannot be translated to cel-go `\\N` groups statically)');
      const pattern = litString(re!);
      r = celString(translateTemplate(templ, pattern === undefined ? undefined : groupsOf(pattern)));
    }
    return frag(`regex.replace(${s.cel}, ${re!.cel}, ${r})`, 'string', { atom: true, err: true });
  };
}

const NO_REGEX_REPLACE = cannot('the Kubernetes CEL environment has no regex replacement (matches/find/findAll only; no ext.Regex)');

export const REGEX: FnDef[] = [
  {
    name: 'regex_replace_all',
    nullFails: true,
    map: NO_REGEX_REPLACE,
    mpol: assume(
      'ext.Regex regex.replace (RE2 on both sides) with the Go template translated to `\\N` groups',
      'the replacement is a literal (and the pattern too when the replacement references groups); a number subject is an integer up to 2^24',
    ),
    emit: regexReplace(false),
  },
  {
    name: 'regex_replace_all_literal',
    nullFails: true,
    map: NO_REGEX_REPLACE,
    mpol: assume('ext.Regex regex.replace with every `\\` of the replacement doubled', 'a number subject or replacement is an integer up to 2^24'),
    emit: regexReplace(true),
  },
  {
    name: 'regex_match',
    nullFails: true,
    ...both(assume('matches() (RE2, unanchored, as regexp.MatchString)', 'a number subject is an integer up to 2^24 (Kyverno prints others as float32)')),
    emit: ([re, src], { cx }) => {
      const s = subjectText(src!, cx, 'regex_match');
      return frag(`${op(s)}.matches(${re!.cel})`, 'bool', { atom: true, err: true });
    },
  },
  {
    name: 'pattern_match',
    ...both(assume('matches() of the wildcard translated to an anchored RE2 (at compile time for a literal pattern)', 'a number subject is an integer up to 2^24 (Kyverno prints others as float32)')),
    emit: ([p, src], { cx }) => wildcardMatch(p!, subjectText(src!, cx, 'pattern_match')),
  },
  {
    name: 'label_match',
    ...both(exact('all() over the first map: key present in the second with a deep-equal value')),
    emit: ([a, b], { cx }) => {
      const k = cx.names.fresh('k');
      return frag(`${op(a!)}.all(${k}, ${k} in ${op(b!)} && dyn(${op(b!)}[${k}]) == dyn(${op(a!)}[${k}]))`, 'bool', { atom: true });
    },
  },
];
