/**
 * The dry-run variable substitution Kyverno's webhook performs on every rule
 * (validate.go hasInvalidVariables → variables.SubstituteAllInRule with an enginecontext.MockContext):
 * first every `$(...)` reference is resolved against the rule itself (substituteReferencesIfAny), then every
 * `{{...}}` variable is "queried": it must parse as JMESPath, and, once its double quotes are dropped, either
 * match the allowed-variables regex or one of the wildcard patterns the rule's context entries declare
 * (MockContext.Query). The first failure is the error; its text is the one upstream builds.
 */
import { isJsonObject, type JsonObject, type JsonValue } from '../../../ir/json.js';
import type { YamlPath } from '../../../io/source.js';
import { parseJmes } from '../../../jmespath/parse.js';
import { wildcardMatch } from '../../../jmespath/index.js';
import { goStringSlice } from './go-format.js';
import { atKey, atString, type Where } from './issue.js';
import { arr, get, obj, str } from './model.js';
import { findReferences, findVariables, variableBody } from './regex.js';

/** enginecontext.ReservedKeys: the variables allowed outside background mode. */
export const ALLOWED_VARIABLES = String.raw`request|serviceAccountName|serviceAccountNamespace|element|elementIndex|@|images|image|([a-z_0-9]+\()[^{}]`;
/** validate.go allowedVariablesBackground. */
export const ALLOWED_VARIABLES_BACKGROUND = String.raw`request\.|element|elementIndex|@|images|images\.|image\.|([a-z_0-9]+\()[^{}]`;
/** validate.go allowedVariablesInTarget. */
export const ALLOWED_VARIABLES_IN_TARGET = String.raw`request\.|serviceAccountName|serviceAccountNamespace|element|elementIndex|@|images|images\.|image\.|target\.|([a-z_0-9]+\()[^{}]`;
/** validate.go allowedVariablesBackgroundInTarget. */
export const ALLOWED_VARIABLES_BACKGROUND_IN_TARGET = String.raw`request\.|element|elementIndex|@|images|images\.|image\.|target\.|([a-z_0-9]+\()[^{}]`;

/** validate.go getAllowedVariables. */
export function allowedVariables(background: boolean, target: boolean): string {
  if (target) return background ? ALLOWED_VARIABLES_BACKGROUND_IN_TARGET : ALLOWED_VARIABLES_IN_TARGET;
  return background ? ALLOWED_VARIABLES_BACKGROUND : ALLOWED_VARIABLES;
}

export interface MockContext {
  source: string;
  re: RegExp;
  patterns: string[];
}

/** validate.go addContextVariables: the wildcard patterns one list of context entries declares. */
export function addContextVariables(entries: JsonValue | undefined, into: string[]): void {
  for (const e of arr(entries) ?? []) {
    const entry = obj(e);
    if (entry === undefined) continue;
    const name = str(get(entry, 'name'));
    const has = (k: string): boolean => get(entry, k) !== undefined && get(entry, k) !== null;
    if (has('apiCall') || has('globalReference') || has('imageRegistry') || has('variable')) into.push(name + '*');
    if (has('configMap')) into.push(name + '.data', name + '.metadata', name + '.data.*', name + '.metadata.*');
  }
}

/** validate.go buildContext for a rule (the JSON the check substitutes). */
export function buildContext(rule: JsonObject, background: boolean, target: boolean): MockContext {
  const source = allowedVariables(background, target);
  const patterns: string[] = [];
  addContextVariables(get(rule, 'context'), patterns);
  // addImageVerifyVariables: attestation names of verifyImages rules with a validate block.
  for (const vi of arr(get(rule, 'verifyImages')) ?? []) {
    if (obj(get(obj(vi), 'validate')) === undefined) continue;
    for (const att of arr(get(obj(vi), 'attestations')) ?? []) patterns.push(str(get(obj(att), 'name')) + '*');
  }
  for (const fe of arr(get(obj(get(rule, 'validate')), 'foreach')) ?? []) addContextVariables(get(obj(fe), 'context'), patterns);
  const mutate = obj(get(rule, 'mutate'));
  // Only the top-level foreach entries and the targets add their context: nested foreach contexts do not.
  for (const fe of arr(get(mutate, 'foreach')) ?? []) addContextVariables(get(obj(fe), 'context'), patterns);
  for (const t of arr(get(mutate, 'targets')) ?? []) addContextVariables(get(obj(t), 'context'), patterns);
  for (const fe of arr(get(obj(get(rule, 'generate')), 'foreach')) ?? []) addContextVariables(get(obj(fe), 'context'), patterns);
  return { source, re: new RegExp(source), patterns };
}

/** A failure and where it is. */
export interface SubstitutionError {
  message: string;
  at: Where;
}

/** MockContext.Query: undefined when the variable is allowed, else the error text. */
function query(ctx: MockContext, variable: string, pointer: string): string | undefined {
  const q = variable.trim();
  if (q === '') return `failed to resolve ${variable} at path ${pointer}: invalid query (nil)`;
  const parsed = parseJmes(q);
  if (!parsed.ok) return `failed to resolve ${variable} at path ${pointer}: invalid JMESPath query ${q}: SyntaxError: ${parsed.message}`;
  const stripped = q.replaceAll('"', '');
  if (ctx.re.test(stripped)) return undefined;
  if (ctx.patterns.some((p) => wildcardMatch(p, stripped))) return undefined;
  return `variable ${stripped} must match regex "${ctx.source}" or patterns ${goStringSlice(ctx.patterns)}`;
}

/** substituteVariablesIfAny on one string, against the mock context (a resolved variable is nil). */
function substituteString(ctx: MockContext, input: string, pointer: string): { message: string; start: number; end: number } | undefined {
  let value = input;
  let vars = findVariables(value);
  let first = true;
  for (let pass = 0; vars.length > 0 && pass < 1000; pass++) {
    const original = value;
    let shallow = false;
    for (const m of vars) {
      const body = variableBody(m.text);
      shallow = body.shallow;
      // `{{@}}` becomes a request.object (or target) path, which every allowed-variables regex accepts.
      if (body.variable !== '@') {
        const err = query(ctx, body.variable, pointer);
        if (err !== undefined) {
          // Offsets are exact on the first pass; a nested variable found later is reported on the whole string.
          return first ? { message: err, start: m.start, end: m.end } : { message: err, start: 0, end: input.length };
        }
      }
      if (original === m.text) return undefined;
      value = value.replace(m.prefix + m.text, m.prefix + 'null');
    }
    first = false;
    vars = shallow ? [] : findVariables(value);
  }
  return undefined;
}

interface Visit {
  text: string;
  isKey: boolean;
  /** The JSON pointer upstream reports (a key reports its map's pointer). */
  pointer: string;
  yaml: YamlPath;
}

/** jsonutils.Traversal with OnlyForLeafsAndKeys: every map key (with its map's path) and string leaf. */
function* visit(v: JsonValue | undefined, pointer: string, yaml: YamlPath): Generator<Visit> {
  if (typeof v === 'string') yield { text: v, isKey: false, pointer, yaml };
  else if (Array.isArray(v)) {
    for (let i = 0; i < v.length; i++) yield* visit(v[i], `${pointer}/${i}`, [...yaml, i]);
  } else if (isJsonObject(v)) {
    for (const k of Object.keys(v)) {
      yield { text: k, isKey: true, pointer, yaml: [...yaml, k] };
      yield* visit(v[k], `${pointer}/${k.replaceAll('/', '\\/')}`, [...yaml, k]);
    }
  }
}

/** anchor.Parse: `(key)`, `+(key)`, `<(key)`, `=(key)`, `X(key)`, `^(key)`. */
const ANCHOR = /^([+<=X^])?\((.+)\)$/;

/** anchor.RemoveAnchorsFromPath. */
function removeAnchorsFromPath(p: string): string {
  let parts = p.split('/');
  if (parts[0] === '') parts = parts.slice(1);
  const keys = parts.map((part) => ANCHOR.exec(part)?.[2] ?? part);
  const joined = goPathJoin(...keys);
  return p.startsWith('/') ? '/' + joined : joined;
}

/** Go path.Join: join the non-empty elements with '/', then path.Clean. */
function goPathJoin(...elems: string[]): string {
  const nonEmpty = elems.filter((e) => e !== '');
  if (nonEmpty.length === 0) return '';
  return goPathClean(nonEmpty.join('/'));
}

function goPathClean(p: string): string {
  if (p === '') return '.';
  const rooted = p.startsWith('/');
  const out: string[] = [];
  for (const seg of p.split('/')) {
    if (seg === '' || seg === '.') continue;
    if (seg === '..') {
      if (out.length > 0 && out[out.length - 1] !== '..') out.pop();
      else if (!rooted) out.push('..');
    } else out.push(seg);
  }
  const body = out.join('/');
  if (rooted) return '/' + body;
  return body === '' ? '.' : body;
}

/** operator.GetOperatorFromStringPattern. */
function referenceOperator(p: string): string {
  if (p.length < 2) return '';
  for (const op of ['>=', '<=', '>', '<', '!']) if (p.startsWith(op)) return op;
  if (/^([-|+]?\d+(?:\.\d+)?[A-Za-z]*)!-([-|+]?\d+(?:\.\d+)?[A-Za-z]*)$/.test(p)) return '!-';
  if (/^([-|+]?\d+(?:\.\d+)?[A-Za-z]*)-([-|+]?\d+(?:\.\d+)?[A-Za-z]*)$/.test(p)) return '-';
  return '';
}

/** getValueFromReference: the last leaf or key whose anchor-free path is `target`. */
function valueAtReference(doc: JsonValue, target: string): JsonValue | undefined {
  let found: JsonValue | undefined;
  const walk = (v: JsonValue, pointer: string): void => {
    if (Array.isArray(v)) v.forEach((x, i) => walk(x, `${pointer}/${i}`));
    else if (isJsonObject(v)) {
      for (const k of Object.keys(v)) {
        if (removeAnchorsFromPath(pointer) === target) found = k;
        walk(v[k]!, `${pointer}/${k.replaceAll('/', '\\/')}`);
      }
    } else if (removeAnchorsFromPath(pointer) === target) found = v;
  };
  walk(doc, '');
  return found;
}

/** resolveReference + the checks substituteReferencesIfAny makes on its result. */
function checkReference(doc: JsonValue, reference: string, pointer: string): string | undefined {
  let p = reference.replace(/^[$()]+|[$()]+$/g, '');
  const op = referenceOperator(p);
  p = p.slice(op.length);
  if (p.length === 0) return `failed to resolve ${reference} at path ${pointer}: expected path, found empty reference`;
  const abs = p.startsWith('/') ? p : goPathJoin(pointer, p);
  const value = valueAtReference(doc, abs);
  if (value === undefined || value === null) return `got nil resolved variable ${reference} at path ${pointer}: <nil>`;
  if (typeof value === 'string') return undefined;
  if (op !== '' && typeof value === 'number') return undefined;
  if (op !== '') {
    const shown = Array.isArray(value) ? '[...]' : isJsonObject(value) ? 'map[...]' : String(value);
    return `failed to resolve ${reference} at path ${pointer}: incorrect expression: operator ${op} does not match with value ${shown}`;
  }
  return `NotResolvedReferenceErr,reference ${reference} not resolved at path ${pointer}`;
}

/**
 * variables.SubstituteAllInRule(ctx, rule) as the validation runs it: references over the whole document first,
 * then variables. `base` is the YAML path of `doc` (the rule) in the policy.
 */
export function substituteAllInRule(ctx: MockContext, doc: JsonObject, base: YamlPath): SubstitutionError | undefined {
  for (const v of visit(doc, '', base)) {
    for (const ref of findReferences(v.text)) {
      const err = checkReference(doc, ref.text, v.pointer);
      if (err !== undefined) return { message: err, at: v.isKey ? atKey(v.yaml) : atString(v.yaml, ref.start, ref.start + ref.text.length) };
    }
  }
  for (const v of visit(doc, '', base)) {
    const err = substituteString(ctx, v.text, v.pointer);
    if (err !== undefined) return { message: err.message, at: v.isKey ? atKey(v.yaml) : atString(v.yaml, err.start, err.end) };
  }
  return undefined;
}

/**
 * variables.ValidateElementInForEach on a rule: `element…` / `elementIndex` variables only under a foreach.
 */
export function elementOutsideForeach(rule: JsonObject, base: YamlPath): SubstitutionError | undefined {
  for (const v of visit(rule, '', base)) {
    for (const m of findVariables(v.text)) {
      const { variable } = variableBody(m.text);
      const isElementVar = variable.startsWith('element') || variable === 'elementIndex';
      if (isElementVar && !v.pointer.includes('/foreach/')) {
        return {
          message: `variable '${variable}' present outside of foreach at path ${v.pointer}`,
          at: v.isKey ? atKey(v.yaml) : atString(v.yaml, m.start, m.end),
        };
      }
    }
  }
  return undefined;
}
