/**
 * `match` / `exclude` blocks into the IR MatchSpec (pkg/engine/utils/match.go): `any`, `all`, or the legacy
 * flat form (`resources` + `subjects`/`roles`/`clusterRoles`, one clause). Kyverno ignores `all` when `any`
 * is set, so only one of them is emitted. Within a clause every set attribute must hold (kinds, name/names,
 * namespaces, annotations, selector, namespaceSelector, operations, roles, clusterRoles, subjects).
 */
import type { Diagnostic } from '../../diagnostics/diagnostic.js';
import { isJsonObject, type JsonObject, type JsonValue } from '../../ir/json.js';
import type { LabelSelector, MatchClause, MatchSpec, UserMatch } from '../../ir/match.js';
import type { YamlPath } from '../../io/source.js';
import { parseKindSelector } from '../../k8s/kinds.js';
import type { Reader } from './reader.js';

function strings(v: JsonValue | undefined): string[] | undefined {
  if (!Array.isArray(v)) return undefined;
  return v.filter((x): x is string => typeof x === 'string');
}

function selector(v: JsonValue | undefined): LabelSelector | undefined {
  if (!isJsonObject(v)) return undefined;
  const out: LabelSelector = {};
  if (isJsonObject(v.matchLabels)) {
    const labels: Record<string, string> = {};
    for (const [k, x] of Object.entries(v.matchLabels)) labels[k] = typeof x === 'string' ? x : String(x);
    out.matchLabels = labels;
  }
  if (Array.isArray(v.matchExpressions)) {
    out.matchExpressions = v.matchExpressions.filter(isJsonObject).map((e) => ({
      key: String(e.key ?? ''),
      operator: String(e.operator ?? '') as 'In' | 'NotIn' | 'Exists' | 'DoesNotExist',
      ...(Array.isArray(e.values) ? { values: e.values.map(String) } : {}),
    }));
  }
  return out;
}

/** One filter: `resources` plus the userInfo fields beside it. */
function clause(filter: JsonObject): MatchClause {
  const c: MatchClause = {};
  const res = isJsonObject(filter.resources) ? filter.resources : {};
  const kinds = strings(res.kinds);
  if (kinds?.length) c.kinds = kinds.map(parseKindSelector);
  const names = [...(typeof res.name === 'string' && res.name !== '' ? [res.name] : []), ...(strings(res.names) ?? [])];
  if (names.length) c.names = names;
  const namespaces = strings(res.namespaces);
  if (namespaces?.length) c.namespaces = namespaces;
  if (isJsonObject(res.annotations)) {
    const a: Record<string, string> = {};
    for (const [k, v] of Object.entries(res.annotations)) a[k] = typeof v === 'string' ? v : String(v);
    c.annotations = a;
  }
  const sel = selector(res.selector);
  if (sel) c.labelSelector = sel;
  const nsSel = selector(res.namespaceSelector);
  if (nsSel) c.namespaceSelector = nsSel;
  const ops = strings(res.operations);
  if (ops?.length) c.operations = ops;
  const user: UserMatch = {};
  const roles = strings(filter.roles);
  if (roles?.length) user.roles = roles;
  const clusterRoles = strings(filter.clusterRoles);
  if (clusterRoles?.length) user.clusterRoles = clusterRoles;
  for (const s of Array.isArray(filter.subjects) ? filter.subjects.filter(isJsonObject) : []) {
    const name = typeof s.name === 'string' ? s.name : '';
    // pkg/utils/match CheckSubjects: a ServiceAccount is its username system:serviceaccount:<ns>:<name>.
    if (s.kind === 'ServiceAccount') (user.usernames ??= []).push(`system:serviceaccount:${typeof s.namespace === 'string' ? s.namespace : ''}:${name}`);
    else if (s.kind === 'Group') (user.groups ??= []).push(name);
    else (user.usernames ??= []).push(name);
  }
  if (Object.keys(user).length) c.userInfo = user;
  return c;
}

function clauses(block: JsonObject): { any?: MatchClause[]; all?: MatchClause[] } | undefined {
  if (Array.isArray(block.any) && block.any.length > 0) return { any: block.any.filter(isJsonObject).map(clause) };
  if (Array.isArray(block.all) && block.all.length > 0) return { all: block.all.filter(isJsonObject).map(clause) };
  const legacy = ['resources', 'subjects', 'roles', 'clusterRoles'].some((k) => block[k] !== undefined && block[k] !== null);
  return legacy ? { any: [clause(block)] } : undefined;
}

export function matchSpec(r: Reader, rule: YamlPath, diagnostics: Diagnostic[]): MatchSpec | undefined {
  const match = r.get([...rule, 'match']);
  const m = isJsonObject(match) ? clauses(match) : undefined;
  if (!m) {
    diagnostics.push(r.error('TM2005', 'match cannot be empty', [...rule, 'match']));
    return undefined;
  }
  const spec: MatchSpec = { ...m, globs: 'wildcard', origin: r.origin([...rule, 'match']) };
  const exclude = r.get([...rule, 'exclude']);
  const ex = isJsonObject(exclude) ? clauses(exclude) : undefined;
  if (ex) spec.exclude = ex;
  return spec;
}
