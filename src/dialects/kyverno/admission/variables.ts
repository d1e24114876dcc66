/**
 * validate.go ValidateVariables and ValidateOnPolicyUpdate: where variables may appear in a policy.
 * - hasVariables: every `{{...}}` of the policy (last-applied annotation and status.autogen.rules blanked);
 * - containsUserVariables (background.go), in background mode: no roles/clusterRoles/subjects in match or
 *   exclude, and — unless a rule mutates existing resources — no serviceAccountName, serviceAccountNamespace,
 *   request.userInfo, request.roles or request.clusterRoles variables;
 * - hasInvalidVariables: per rule, no variables in match, exclude, a patchesJson6902 path or an image
 *   reference (ruleForbiddenSectionsHaveVariables), then the dry-run substitution of mutate.targets and of the
 *   whole rule (substitution.ts).
 */
import type { JsonObject, JsonValue } from '../../../ir/json.js';
import type { YamlPath } from '../../../io/source.js';
import { goJsonMarshal } from '../../../jmespath/index.js';
import { atKey, atString, atValue, type Issue, type Where } from './issue.js';
import { decodePatch } from './jsonpatch.js';
import { arr, get, hasMutateExisting, len, obj, rulesOf, str, type RuleRef } from './model.js';
import { findVariables, hasPlainVariable } from './regex.js';
import { buildContext, substituteAllInRule } from './substitution.js';

interface FoundVariable {
  /** s[2] as upstream sees it in the marshalled JSON. */
  text: string;
  at: Where;
}

const LAST_APPLIED = 'kubectl.kubernetes.io/last-applied-configuration';

/** validate.go hasVariables, on the document instead of its JSON serialisation. */
function policyVariables(doc: JsonObject): FoundVariable[] {
  const out: FoundVariable[] = [];
  const walk = (v: JsonValue | undefined, path: YamlPath): void => {
    if (typeof v === 'string') {
      for (const m of findVariables(v)) out.push({ text: goJsonMarshal(m.text).slice(1, -1), at: atString(path, m.start, m.end) });
    } else if (Array.isArray(v)) v.forEach((x, i) => walk(x, [...path, i]));
    else if (v !== null && typeof v === 'object') {
      for (const k of Object.keys(v)) {
        const child = [...path, k];
        if (path.length === 2 && path[0] === 'metadata' && path[1] === 'annotations' && k === LAST_APPLIED) continue;
        if (path.length === 2 && path[0] === 'status' && path[1] === 'autogen' && k === 'rules') continue;
        for (const m of findVariables(k)) out.push({ text: goJsonMarshal(m.text).slice(1, -1), at: atKey(child) });
        walk(v[k], child);
      }
    }
  };
  walk(doc, []);
  return out;
}

/** background.go ForbiddenUserVariables. */
const FORBIDDEN_USER_VARIABLES = [
  /[^.](serviceAccountName)\b/,
  /[^.](serviceAccountNamespace)\b/,
  /[^.](request.userInfo)\b/,
  /[^.](request.roles)\b/,
  /[^.](request.clusterRoles)\b/,
];

/** background.go userInfoDefined. */
function userInfoDefined(ui: JsonObject | undefined): string {
  if (len(ui, 'roles') > 0) return 'roles';
  if (len(ui, 'clusterRoles') > 0) return 'clusterRoles';
  if (len(ui, 'subjects') > 0) return 'subjects';
  return '';
}

/** background.go hasUserMatchExclude. */
function hasUserMatchExclude(r: RuleRef): { message: string; at: Where } | undefined {
  const check = (block: 'match' | 'exclude', ui: JsonObject | undefined, sub: (string | number)[]): { message: string; at: Where } | undefined => {
    const key = userInfoDefined(ui);
    if (key === '') return undefined;
    const shown = ['spec', `rules[${r.index}]`, block, ...sub.map((s) => (typeof s === 'number' ? `[${s}]` : s)), key]
      .join('/')
      .replace(/\/\[/g, '[');
    return { message: `invalid variable used at path: ${shown}`, at: atKey([...r.path, block, ...sub, key]) };
  };
  // The block itself, then its alternatives: match's any before all, exclude's all before any (as upstream).
  const inBlock = (block: 'match' | 'exclude', parts: readonly ('any' | 'all')[]): { message: string; at: Where } | undefined => {
    const b = obj(get(r.rule, block));
    const flat = check(block, b, []);
    if (flat) return flat;
    for (const part of parts) {
      for (const [i, f] of (arr(get(b, part)) ?? []).entries()) {
        const hit = check(block, obj(f), [part, i]);
        if (hit) return hit;
      }
    }
    return undefined;
  };
  return inBlock('match', ['any', 'all']) ?? inBlock('exclude', ['all', 'any']);
}

/** background.go containsUserVariables. */
function containsUserVariables(doc: JsonObject, vars: FoundVariable[]): { message: string; at: Where } | undefined {
  const rules = rulesOf(obj(get(doc, 'spec')));
  for (const r of rules) {
    const hit = hasUserMatchExclude(r);
    if (hit) return hit;
  }
  if (rules.some((r) => hasMutateExisting(r.rule))) return undefined;
  for (const v of vars) {
    for (const banned of FORBIDDEN_USER_VARIABLES) {
      if (banned.test(v.text)) return { message: `variable ${v.text} is not allowed`, at: v.at };
    }
  }
  return undefined;
}

/** The first string under `v` (keys included) in which `test` finds a variable. */
function firstStringWith(v: JsonValue | undefined, path: YamlPath, test: (s: string) => boolean): Where | undefined {
  if (typeof v === 'string') return test(v) ? atValue(path) : undefined;
  if (Array.isArray(v)) {
    for (let i = 0; i < v.length; i++) {
      const w = firstStringWith(v[i], [...path, i], test);
      if (w) return w;
    }
  } else if (v !== null && typeof v === 'object') {
    for (const k of Object.keys(v)) {
      if (test(k)) return atKey([...path, k]);
      const w = firstStringWith(v[k], [...path, k], test);
      if (w) return w;
    }
  }
  return undefined;
}

/** A string's first plain `{{...}}`, pointed at inside the string. */
function refine(doc: JsonObject, w: Where): Where {
  if (w.kind !== 'value') return w;
  let v: JsonValue | undefined = doc;
  for (const seg of w.path) v = Array.isArray(v) ? v[seg as number] : obj(v)?.[seg as string];
  if (typeof v !== 'string') return w;
  const m = /\{\{[^{}]*\}\}/.exec(v);
  return m ? atString(w.path, m.index, m.index + m[0].length) : w;
}

/** validate.go ruleForbiddenSectionsHaveVariables. */
function forbiddenSectionsHaveVariables(doc: JsonObject, r: RuleRef): Issue | undefined {
  const mutate = obj(get(r.rule, 'mutate'));
  if (mutate !== undefined) {
    const patch = str(get(mutate, 'patchesJson6902'));
    const decoded = decodePatch(patch);
    if (decoded.ok) {
      for (const op of decoded.ops) {
        const p = op.path;
        if (p.kind !== 'ok') break;
        const vars = findVariables(p.value);
        if (vars.length > 0) {
          const at = r.path.concat(['mutate', 'patchesJson6902']);
          const offset = patch.indexOf(vars[0]!.text);
          return {
            message: `rule "${r.name}" should not have variables in patchesJSON6902 path section`,
            at: offset >= 0 ? atString(at, offset, offset + vars[0]!.text.length) : atValue(at),
          };
        }
      }
    }
  }
  const exclude = get(r.rule, 'exclude');
  const inExclude = firstStringWith(exclude, [...r.path, 'exclude'], hasPlainVariable);
  if (inExclude) return { message: `rule "${r.name}" should not have variables in exclude section`, at: refine(doc, inExclude) };
  const inMatch = firstStringWith(get(r.rule, 'match'), [...r.path, 'match'], hasPlainVariable);
  if (inMatch) return { message: `rule "${r.name}" should not have variables in match section`, at: refine(doc, inMatch) };
  for (const [i, vi] of (arr(get(r.rule, 'verifyImages')) ?? []).entries()) {
    const v = obj(vi);
    const refs: [string | number, ...(string | number)[]][] = [];
    (arr(get(v, 'imageReferences')) ?? []).forEach((_, j) => refs.push(['imageReferences', j]));
    if (str(get(v, 'image')) !== '') refs.push(['image']);
    for (const ref of refs) {
      const path = [...r.path, 'verifyImages', i, ...ref];
      let s: JsonValue | undefined = v;
      for (const seg of ref) s = Array.isArray(s) ? s[seg as number] : obj(s)?.[seg as string];
      const m = typeof s === 'string' ? findVariables(s)[0] : undefined;
      if (m) return { message: `rule "${r.name}" should not have variables in image reference section`, at: atString(path, m.start, m.end) };
    }
  }
  return undefined;
}

/** The rule as the substitution sees it: verifyImages attestation conditions are skipped. */
function withoutAttestationConditions(rule: JsonObject): JsonObject {
  const vis = arr(get(rule, 'verifyImages'));
  if (vis === undefined) return rule;
  return {
    ...rule,
    verifyImages: vis.map((vi) => {
      const v = obj(vi);
      const atts = arr(get(v, 'attestations'));
      if (v === undefined || atts === undefined) return vi;
      return { ...v, attestations: atts.map((a) => (obj(a) ? Object.fromEntries(Object.entries(obj(a)!).filter(([k]) => k !== 'conditions')) : a)) };
    }),
  } as JsonObject;
}

/** validate.go hasInvalidVariables: the first rule error, as text without the caller's prefix. */
function hasInvalidVariables(doc: JsonObject, background: boolean): Issue | undefined {
  for (const r of rulesOf(obj(get(doc, 'spec')))) {
    const forbidden = forbiddenSectionsHaveVariables(doc, r);
    if (forbidden) return forbidden;
    const rule = withoutAttestationConditions(r.rule);
    const mutate = obj(get(rule, 'mutate'));
    const targets = arr(get(mutate, 'targets'));
    const mutateTarget = get(mutate, 'targets') !== undefined && get(mutate, 'targets') !== null;
    if (targets !== undefined) {
      // ruleWithoutPattern: the rule's context and preconditions plus the targets' resource specs so far.
      const specs: JsonValue[] = targets.map(() => ({}));
      for (let i = 0; i < targets.length; i++) {
        const t = obj(targets[i]) ?? {};
        specs[i] = Object.fromEntries(Object.entries(t).filter(([k]) => k !== 'context' && k !== 'preconditions'));
        const withTargetOnly: JsonObject = {};
        if (get(rule, 'context') !== undefined) withTargetOnly.context = get(rule, 'context')!;
        if (get(rule, 'preconditions') !== undefined) withTargetOnly.preconditions = get(rule, 'preconditions')!;
        withTargetOnly.mutate = { targets: specs.slice() };
        const ctx = buildContext(withTargetOnly, background, false);
        const err = substituteAllInRule(ctx, withTargetOnly, r.path);
        if (err) return { message: `invalid variables defined at mutate.targets[${i}]: ${err.message}`, at: err.at };
      }
    }
    const ctx = buildContext(rule, background, mutateTarget);
    const err = substituteAllInRule(ctx, rule, r.path);
    if (err) return { message: `variable substitution failed for rule ${r.name}: ${err.message}`, at: err.at };
  }
  return undefined;
}

/** validate.go ValidateVariables. */
export function validateVariables(doc: JsonObject, background: boolean): Issue | undefined {
  const vars = policyVariables(doc);
  if (background) {
    const user = containsUserVariables(doc, vars);
    if (user) {
      return {
        message: `only select variables are allowed in background mode. Set spec.background=false to disable background mode for this policy rule: ${user.message} `,
        at: user.at,
      };
    }
  }
  const invalid = hasInvalidVariables(doc, background);
  if (invalid) return { message: `policy contains invalid variables: ${invalid.message}`, at: invalid.at };
  return undefined;
}

/** validate.go ValidateOnPolicyUpdate(policy, true). */
export function validateOnPolicyUpdate(doc: JsonObject): Issue | undefined {
  const vars = policyVariables(doc);
  if (vars.length === 0) return undefined;
  const invalid = hasInvalidVariables(doc, true);
  if (invalid) return { message: `update event, policy contains invalid variables: ${invalid.message}`, at: invalid.at };
  const user = containsUserVariables(doc, vars);
  if (user) {
    return {
      message: `only select variables are allowed in on policy update. Set spec.mutateExistingOnPolicyUpdate=false to disable update policy mode for this policy rule: ${user.message} `,
      at: user.at,
    };
  }
  return undefined;
}
