/**
 * The regular expressions Kyverno's policy validation uses to find `{{ }}` variables and `$( )` references
 * (pkg/engine/variables/regex/vars.go, pkg/validation/policy/validate.go), and ReplaceAllVars.
 * The patterns are RE2 sources that mean the same in JavaScript.
 */

/** regex.RegexVariables: `{{...}}` at the start of a string, or after any character but a backslash. */
const REGEX_VARIABLES = /(^|[^\\])(\{\{(?:\{[^{}]*\}|[^{}])*\}\})/g;
/** validate.go regexVariables, used on match/exclude: any `{{...}}` without braces inside. */
const REGEX_VARIABLES_PLAIN = /\{\{[^{}]*\}\}/;
/** regex.RegexReferences: `$(...)` not preceded by a backslash. */
const REGEX_REFERENCES = /^\$\(.[^ ]*\)|[^\\]\$\(.[^ ]*\)/g;

export interface VariableMatch {
  /** The character before the variable ('' at the start of the string). */
  prefix: string;
  /** The `{{...}}` text. */
  text: string;
  /** Offsets of `text` in the string. */
  start: number;
  end: number;
}

/** RegexVariables.FindAllString, split into the prefix character and the variable. */
export function findVariables(s: string): VariableMatch[] {
  if (!s.includes('{{')) return [];
  const out: VariableMatch[] = [];
  for (const m of s.matchAll(REGEX_VARIABLES)) {
    const prefix = m[1] ?? '';
    const text = m[2] ?? '';
    const start = m.index + prefix.length;
    out.push({ prefix, text, start, end: start + text.length });
  }
  return out;
}

export function hasPlainVariable(s: string): boolean {
  return s.includes('{{') && REGEX_VARIABLES_PLAIN.test(s);
}

/** variables.ReplaceAllVars: every variable replaced, its prefix character kept. */
export function replaceAllVars(src: string, repl: string): string {
  if (!src.includes('{{')) return src;
  return src.replace(REGEX_VARIABLES, (_all, prefix: string) => prefix + repl);
}

/** vars.go replaceBracesAndTrimSpaces: the variable's body, and whether it is a shallow `{{- }}` one. */
export function variableBody(text: string): { variable: string; shallow: boolean } {
  let variable = text.replaceAll('{{', '').replaceAll('}}', '').trim();
  if (variable.startsWith('-')) {
    variable = variable.slice(1).trim();
    return { variable, shallow: true };
  }
  return { variable, shallow: false };
}

export interface ReferenceMatch {
  /** The `$(...)` text, without the preceding character. */
  text: string;
  start: number;
}

/** RegexReferences.FindAllString with the leading character dropped (substituteReferencesIfAny). */
export function findReferences(s: string): ReferenceMatch[] {
  if (!s.includes('$(')) return [];
  const out: ReferenceMatch[] = [];
  for (const m of s.matchAll(REGEX_REFERENCES)) {
    const initial = m[0].startsWith('$(');
    out.push({ text: initial ? m[0] : m[0].slice(1), start: m.index + (initial ? 0 : 1) });
  }
  return out;
}
