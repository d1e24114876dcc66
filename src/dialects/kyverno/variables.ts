/**
 * Kyverno's `{{ }}` variable substitution (pkg/engine/variables/vars.go `substituteVariablesIfAny`, run by
 * `SubstituteAll` over a JSON document, leaves and map keys alike):
 * - a string is scanned with `RegexVariables`; each hole's body (with every `{{`/`}}` removed, trimmed) is
 *   queried as JMESPath against the context; the string is scanned again until no hole is left, so nested
 *   holes resolve inside-out and a substituted value that contains `{{ }}` is evaluated too;
 * - a string that is exactly one hole becomes the hole's JSON value (type kept); otherwise the value is
 *   spliced in, strings as they are and anything else as Go's json.Marshal writes it;
 * - on DELETE every `request.object` in a hole reads `request.oldObject`;
 * - `\{{...}}` is left alone and loses its backslash at the end; `{{- expr }}` substitutes once and escapes
 *   `{{` in its result so it is not evaluated again;
 * - a query error fails the substitution (a missing map key is `Unknown key "x" in path`: a rule error).
 * `{{@}}` is rewritten to an explicit path when the policy is parsed (see `rewriteAtHoles`).
 */
import { copyObject, defineOwn, hasOwn, isJsonObject, type JsonObject, type JsonValue } from '../../ir/json.js';
import { goJsonMarshal } from '../../jmespath/index.js';

/** The outcome of one query against Kyverno's JSON context. */
export type QueryOutcome = { ok: true; value: unknown } | { ok: false; message: string; notFound: boolean };

export interface SubstitutionEnv {
  query(expression: string): QueryOutcome;
  /** The request is a DELETE: holes read `request.oldObject` for `request.object`. */
  isDelete: boolean;
  /**
   * Runs a query prepared at compile time by the engine that built this environment (QueryPreparer); gives
   * what `query(prepared.expression)` gives. An environment without it is asked by expression text.
   */
  run?(prepared: PreparedQuery): QueryOutcome;
}

/** A hole's query compiled once, for SubstitutionEnv.run (engine-specific: engines/jmes.ts). */
export interface PreparedQuery {
  readonly expression: string;
}

/** Compiles a hole's query once (undefined: leave it to SubstitutionEnv.query, e.g. a syntax error). */
export type QueryPreparer = (expression: string) => PreparedQuery | undefined;

export type Substituted<T = unknown> = { ok: true; value: T } | { ok: false; message: string };

// vars.go RegexVariables / regexVariableInit / RegexEscpVariables.
const VARIABLES = /(^|[^\\])(\{\{(?:\{[^{}]*\}|[^{}])*\}\})/g;
const VARIABLE_AT_START = /^\{\{(?:\{[^{}]*\}|[^{}])*\}\}/;
const ESCAPED = /\\\{\{(?:\{[^{}]*\}|[^{}])*\}\}/g;
/** Guards against a value that substitutes to itself forever (upstream would loop). */
const MAX_PASSES = 1000;

/** True when upstream would find a variable in the string (vars.go IsVariable). */
export function hasVariables(s: string): boolean {
  if (!s.includes('{{')) return false;
  VARIABLES.lastIndex = 0;
  return VARIABLES.test(s);
}

/** vars.go replaceBracesAndTrimSpaces. */
function holeBody(hole: string): string {
  return hole.replaceAll('{{', '').replaceAll('}}', '').trim();
}

function spliced(value: unknown): string {
  return typeof value === 'string' ? value : goJsonMarshal(value);
}

function resolve(env: SubstitutionEnv, body: string, path: string): Substituted<{ value: unknown; shallow: boolean }> {
  const shallow = body.startsWith('-');
  const r = queryHole(env, body, path);
  return r.ok ? { ok: true, value: { value: r.value, shallow } } : r;
}

/** The query of one hole's body: without its `{{-` marker. */
export function holeQuery(body: string): string {
  return body.startsWith('-') ? body.slice(1).trim() : body;
}

/** The value of one hole's body (`{{-` marker included) queried against the context. */
export function queryHole(env: SubstitutionEnv, body: string, path: string): Substituted {
  const query = holeQuery(body);
  const variable = env.isDelete ? query.replaceAll('request.object', 'request.oldObject') : query;
  return holeOutcome(env.query(variable), variable, path);
}

/**
 * `queryHole` with the hole's query prepared at compile time (`prepared.expression` is `holeQuery(body)`);
 * on DELETE the query text changes, so it is asked by text.
 */
export function queryPreparedHole(env: SubstitutionEnv, prepared: PreparedQuery, path: string): Substituted {
  if (env.isDelete || env.run === undefined) {
    const variable = env.isDelete ? prepared.expression.replaceAll('request.object', 'request.oldObject') : prepared.expression;
    return holeOutcome(env.query(variable), variable, path);
  }
  return holeOutcome(env.run(prepared), prepared.expression, path);
}

/** A hole's query outcome as substitution reports it (`variable` its query, `path` its pointer). */
export function holeOutcome(r: QueryOutcome, variable: string, path: string): Substituted {
  // NotFound and invalid-variable errors keep their own message; others are wrapped (vars.go).
  if (!r.ok) return { ok: false, message: r.notFound ? r.message : `failed to resolve ${variable} at path ${path}: ${r.message}` };
  return r;
}

/**
 * The body of a string that is exactly one hole (substituteString's first pass then returns the hole's value,
 * whatever its type, and scans no further); undefined for any other string.
 */
export function wholeHoleBody(s: string): string | undefined {
  if (!s.includes('{{')) return undefined;
  VARIABLES.lastIndex = 0;
  const first = VARIABLES.exec(s);
  if (!first || first.index !== 0 || first[1] !== '' || first[2]!.length !== s.length) return undefined;
  return holeBody(s);
}

/** Substitutes the variables of one string; `path` is the JSON pointer of the string, for messages. */
export function substituteString(input: string, env: SubstitutionEnv, path = ''): Substituted {
  if (!input.includes('{{')) return { ok: true, value: input };
  let value = input;
  for (let pass = 0; pass < MAX_PASSES; pass++) {
    VARIABLES.lastIndex = 0;
    const first = VARIABLES.exec(value);
    if (!first) break;
    // The whole string is one hole: its value replaces the string, whatever its type.
    if (first.index === 0 && first[1] === '' && first[2]!.length === value.length) {
      const r = resolve(env, holeBody(value), path);
      if (!r.ok) return r;
      if (r.value.shallow && typeof r.value.value === 'string') return { ok: true, value: r.value.value };
      return { ok: true, value: r.value.value };
    }
    let failure: string | undefined;
    VARIABLES.lastIndex = 0;
    value = value.replace(VARIABLES, (match: string, prefix: string, hole: string) => {
      if (failure !== undefined) return match;
      const r = resolve(env, holeBody(hole), path);
      if (!r.ok) {
        failure = r.message;
        return match;
      }
      const text = spliced(r.value.value);
      // `{{-`: the result is literal; escaped holes lose their backslash below, so no re-evaluation.
      return prefix + (r.value.shallow ? text.replaceAll('{{', '\\{{') : text);
    });
    if (failure !== undefined) return { ok: false, message: failure };
  }
  if (!VARIABLE_AT_START.test(value) && !value.includes('\\{{')) return { ok: true, value };
  return { ok: true, value: value.replace(ESCAPED, (m) => m.slice(1)) };
}

export function pointerToken(k: string | number): string {
  return String(k).replaceAll('~', '~0').replaceAll('/', '~1');
}

/** Substitutes every string leaf and map key of a JSON tree; unchanged parts are shared, not copied. */
export function substituteTree(tree: JsonValue, env: SubstitutionEnv, path = ''): Substituted<JsonValue> {
  if (typeof tree === 'string') return substituteString(tree, env, path) as Substituted<JsonValue>;
  if (Array.isArray(tree)) {
    let out: JsonValue[] | undefined;
    for (let i = 0; i < tree.length; i++) {
      const r = substituteTree(tree[i]!, env, `${path}/${i}`);
      if (!r.ok) return r;
      if (r.value !== tree[i]) (out ??= tree.slice())[i] = r.value;
    }
    return { ok: true, value: out ?? tree };
  }
  if (isJsonObject(tree)) {
    let out: JsonObject | undefined;
    const keys = Object.keys(tree);
    for (const k of keys) {
      const childPath = `${path}/${pointerToken(k)}`;
      const v = substituteTree(tree[k]!, env, childPath);
      if (!v.ok) return v;
      let key = k;
      if (k.includes('{{')) {
        const kr = substituteString(k, env, childPath);
        if (!kr.ok) return kr;
        key = spliced(kr.value);
      }
      if (!out && key === k && v.value === tree[k]) continue;
      if (!out) {
        // Rebuild in key order so a renamed key keeps its place.
        out = {};
        for (const earlier of keys) {
          if (earlier === k) break;
          defineOwn(out, earlier, hasOwn(tree, earlier) ? tree[earlier]! : null);
        }
      }
      defineOwn(out, key, v.value);
    }
    return { ok: true, value: out ?? tree };
  }
  return { ok: true, value: tree };
}

/** True when some string leaf or key of the tree holds a variable. */
export function treeHasVariables(tree: JsonValue): boolean {
  if (typeof tree === 'string') return tree.includes('{{');
  if (Array.isArray(tree)) return tree.some(treeHasVariables);
  if (isJsonObject(tree)) return Object.keys(tree).some((k) => k.includes('{{') || treeHasVariables(tree[k]!));
  return false;
}

/** jsonpointer.JMESPath(): fields joined by dots (quoted when not plain identifiers), indices as `[n]`. */
function jmesPathOf(segments: readonly string[]): string {
  let out = '';
  for (const s of segments) {
    if (/^\d+$/.test(s)) out += `[${s}]`;
    else out += `${out === '' ? '' : '.'}${/^[A-Za-z_][A-Za-z0-9_]*$/.test(s) ? s : JSON.stringify(s)}`;
  }
  return out;
}

const AT_HOLE = /\{\{\s*@\s*\}\}/g;

/**
 * Rewrites `{{@}}` holes to the JMESPath of the leaf they sit in, as vars.go does at substitution time:
 * the leaf's pointer in the substituted document, past a `foreach` segment, without its first 2 segments,
 * under `request.object`. `documentPrefix` is the pointer of the patch inside that document
 * (`['mutate', 'patchStrategicMerge']` for a rule, `['patchStrategicMerge']` inside foreach, whose document
 * is the foreach entry: there the first field of the patch is dropped too, as upstream does).
 */
export function rewriteAtHoles(tree: JsonValue, documentPrefix: readonly string[], at: string[] = []): JsonValue {
  if (typeof tree === 'string') {
    if (!tree.includes('@')) return tree;
    return tree.replace(AT_HOLE, () => `{{${jmesPathOf(['request', 'object', ...[...documentPrefix, ...at].slice(2)])}}}`);
  }
  if (Array.isArray(tree)) return tree.map((v, i) => rewriteAtHoles(v, documentPrefix, [...at, String(i)]));
  if (isJsonObject(tree)) {
    const out = copyObject(tree);
    for (const k of Object.keys(tree)) defineOwn(out, k, rewriteAtHoles(tree[k]!, documentPrefix, [...at, k]));
    return out;
  }
  return tree;
}
