/** Reading a MatchSpec (src/ir/match.ts) from its JSON form, strictly. Shared by the YAML dialect and the text form. */
import { hasOwn, type JsonObject, type JsonValue } from '../../ir/json.js';
import type {
  GlobStyle,
  GvkPattern,
  LabelRequirement,
  LabelSelector,
  MatchClause,
  MatchSpec,
  ResourcePattern,
  UserMatch,
} from '../../ir/match.js';
import { MATCH_CLAUSE_KEYS } from '../../ir/match.js';
import type { YamlPath } from '../../io/source.js';
import type { Reader } from './reader.js';

const GLOBS: readonly GlobStyle[] = ['wildcard', 'prefixSuffix', 'exact'];
const SCOPES = ['Namespaced', 'Cluster', '*'] as const;
const OPERATORS = ['In', 'NotIn', 'Exists', 'DoesNotExist'] as const;

/** Tracks failure while reading optional fields, so the caller returns undefined when any was invalid. */
class Fields {
  good = true;
  constructor(
    readonly obj: JsonObject,
    readonly path: YamlPath,
  ) {}

  read<T>(key: string, read: (v: JsonValue, p: YamlPath) => T | undefined, assign: (v: T) => void): void {
    if (!hasOwn(this.obj, key)) return;
    const r = read(this.obj[key]!, [...this.path, key]);
    if (r === undefined) this.good = false;
    else assign(r);
  }
}

export function readMatchSpec(r: Reader, v: JsonValue | undefined, path: YamlPath): MatchSpec | undefined {
  const o = r.object(v, path, 'match', [], ['globs', 'any', 'all', 'exclude']);
  if (!o) return undefined;
  const spec: MatchSpec = { globs: 'wildcard' };
  const f = new Fields(o, path);
  f.read('globs', (x, p) => r.oneOf(x, p, 'match.globs', GLOBS), (x) => (spec.globs = x));
  f.read('any', (x, p) => readClauses(r, x, p, 'match.any'), (x) => (spec.any = x));
  f.read('all', (x, p) => readClauses(r, x, p, 'match.all'), (x) => (spec.all = x));
  f.read(
    'exclude',
    (x, p) => {
      const e = r.object(x, p, 'match.exclude', [], ['any', 'all']);
      if (!e) return undefined;
      const out: NonNullable<MatchSpec['exclude']> = {};
      const g = new Fields(e, p);
      g.read('any', (y, q) => readClauses(r, y, q, 'match.exclude.any'), (y) => (out.any = y));
      g.read('all', (y, q) => readClauses(r, y, q, 'match.exclude.all'), (y) => (out.all = y));
      return g.good ? out : undefined;
    },
    (x) => (spec.exclude = x),
  );
  if (!f.good) return undefined;
  spec.origin = r.origin(path);
  return spec;
}

function readClauses(r: Reader, v: JsonValue, path: YamlPath, what: string): MatchClause[] | undefined {
  return r.listOf(v, path, what, (x, p) => readClause(r, x, p, `a clause of ${what}`));
}


function readClause(r: Reader, v: JsonValue, path: YamlPath, what: string): MatchClause | undefined {
  const o = r.object(v, path, what, [], MATCH_CLAUSE_KEYS);
  if (!o) return undefined;
  const c: MatchClause = {};
  const f = new Fields(o, path);
  f.read('kinds', (x, p) => r.listOf(x, p, 'kinds', (y, q) => readGvk(r, y, q)), (x) => (c.kinds = x));
  f.read('resources', (x, p) => r.listOf(x, p, 'resources', (y, q) => readResource(r, y, q)), (x) => (c.resources = x));
  f.read('operations', (x, p) => r.stringList(x, p, 'operations'), (x) => (c.operations = x));
  f.read('names', (x, p) => r.stringList(x, p, 'names'), (x) => (c.names = x));
  f.read('namespaces', (x, p) => r.stringList(x, p, 'namespaces'), (x) => (c.namespaces = x));
  f.read('excludedNamespaces', (x, p) => r.stringList(x, p, 'excludedNamespaces'), (x) => (c.excludedNamespaces = x));
  f.read('labelSelector', (x, p) => readSelector(r, x, p, 'labelSelector'), (x) => (c.labelSelector = x));
  f.read('namespaceSelector', (x, p) => readSelector(r, x, p, 'namespaceSelector'), (x) => (c.namespaceSelector = x));
  f.read('annotations', (x, p) => r.stringMap(x, p, 'annotations'), (x) => (c.annotations = x));
  f.read('scope', (x, p) => r.oneOf(x, p, 'scope', SCOPES), (x) => (c.scope = x));
  f.read('userInfo', (x, p) => readUser(r, x, p), (x) => (c.userInfo = x));
  return f.good ? c : undefined;
}

function readGvk(r: Reader, v: JsonValue, path: YamlPath): GvkPattern | undefined {
  const o = r.object(v, path, 'a kind pattern', ['kind'], ['group', 'version', 'subresource']);
  if (!o) return undefined;
  const kind = r.string(o.kind, [...path, 'kind'], 'kind');
  if (kind === undefined) return undefined;
  const f = new Fields(o, path);
  let group: string | undefined;
  let version: string | undefined;
  let subresource: string | undefined;
  f.read('group', (x, p) => r.string(x, p, 'group'), (x) => (group = x));
  f.read('version', (x, p) => r.string(x, p, 'version'), (x) => (version = x));
  f.read('subresource', (x, p) => r.string(x, p, 'subresource'), (x) => (subresource = x));
  if (!f.good) return undefined;
  const g = {} as GvkPattern;
  if (group !== undefined) g.group = group;
  if (version !== undefined) g.version = version;
  g.kind = kind;
  if (subresource !== undefined) g.subresource = subresource;
  return g;
}

function readResource(r: Reader, v: JsonValue, path: YamlPath): ResourcePattern | undefined {
  const o = r.object(v, path, 'a resource pattern', ['groups', 'versions', 'resources'], ['resourceNames', 'operations', 'scope']);
  if (!o) return undefined;
  const groups = r.stringList(o.groups, [...path, 'groups'], 'groups');
  const versions = r.stringList(o.versions, [...path, 'versions'], 'versions');
  const resources = r.stringList(o.resources, [...path, 'resources'], 'resources');
  if (!groups || !versions || !resources) return undefined;
  const res: ResourcePattern = { groups, versions, resources };
  const f = new Fields(o, path);
  f.read('resourceNames', (x, p) => r.stringList(x, p, 'resourceNames'), (x) => (res.resourceNames = x));
  f.read('operations', (x, p) => r.stringList(x, p, 'operations'), (x) => (res.operations = x));
  f.read('scope', (x, p) => r.oneOf(x, p, 'scope', SCOPES), (x) => (res.scope = x));
  return f.good ? res : undefined;
}

function readSelector(r: Reader, v: JsonValue, path: YamlPath, what: string): LabelSelector | undefined {
  const o = r.object(v, path, what, [], ['matchLabels', 'matchExpressions']);
  if (!o) return undefined;
  const s: LabelSelector = {};
  const f = new Fields(o, path);
  f.read('matchLabels', (x, p) => r.stringMap(x, p, `${what}.matchLabels`), (x) => (s.matchLabels = x));
  f.read(
    'matchExpressions',
    (x, p) => r.listOf(x, p, `${what}.matchExpressions`, (y, q) => readRequirement(r, y, q)),
    (x) => (s.matchExpressions = x),
  );
  return f.good ? s : undefined;
}

function readRequirement(r: Reader, v: JsonValue, path: YamlPath): LabelRequirement | undefined {
  const o = r.object(v, path, 'a label requirement', ['key', 'operator'], ['values']);
  if (!o) return undefined;
  const key = r.string(o.key, [...path, 'key'], 'key');
  const operator = r.oneOf(o.operator, [...path, 'operator'], 'operator', OPERATORS);
  if (key === undefined || operator === undefined) return undefined;
  const req: LabelRequirement = { key, operator };
  const f = new Fields(o, path);
  f.read('values', (x, p) => r.stringList(x, p, 'values'), (x) => (req.values = x));
  return f.good ? req : undefined;
}

function readUser(r: Reader, v: JsonValue, path: YamlPath): UserMatch | undefined {
  const o = r.object(v, path, 'userInfo', [], ['usernames', 'groups', 'roles', 'clusterRoles']);
  if (!o) return undefined;
  const u: UserMatch = {};
  const f = new Fields(o, path);
  f.read('usernames', (x, p) => r.stringList(x, p, 'usernames'), (x) => (u.usernames = x));
  f.read('groups', (x, p) => r.stringList(x, p, 'groups'), (x) => (u.groups = x));
  f.read('roles', (x, p) => r.stringList(x, p, 'roles'), (x) => (u.roles = x));
  f.read('clusterRoles', (x, p) => r.stringList(x, p, 'clusterRoles'), (x) => (u.clusterRoles = x));
  return f.good ? u : undefined;
}
