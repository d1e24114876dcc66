/** MatchResources and its parts (label selectors, NamedRuleWithOperations) read into IR match pieces. */
import type { LabelRequirement, LabelSelector, ResourcePattern } from '../../ir/match.js';
import { isJsonObject } from '../../ir/json.js';
import type { YamlPath } from '../../io/source.js';
import type { MatchResources } from './model.js';
import { fieldName, type Reader } from './reader.js';

const OPERATORS: readonly LabelRequirement['operator'][] = ['In', 'NotIn', 'Exists', 'DoesNotExist'];
/** MAP may only match these (validation.go: DELETE is not allowed for mutating admission policies). */
export const MAP_OPERATIONS: readonly string[] = ['CREATE', 'UPDATE', 'CONNECT', '*'];

export function readSelector(r: Reader, path: YamlPath): LabelSelector | undefined {
  const o = r.obj(path);
  if (!o) return undefined;
  const sel: LabelSelector = {};
  const labels = r.obj([...path, 'matchLabels']);
  if (labels) {
    const out: Record<string, string> = {};
    for (const [k, v] of Object.entries(labels)) {
      if (typeof v === 'string') out[k] = v;
      else r.report('TM2002', [...path, 'matchLabels', k], `${fieldName([...path, 'matchLabels', k])}: expected a string`);
    }
    sel.matchLabels = out;
  }
  const exprs = r.list([...path, 'matchExpressions']);
  if (exprs.length > 0) {
    sel.matchExpressions = [];
    exprs.forEach((_, i) => {
      const p = [...path, 'matchExpressions', i];
      const key = r.required([...p, 'key']) ?? '';
      const op = r.str([...p, 'operator']);
      if (!op || !(OPERATORS as readonly string[]).includes(op)) {
        r.report('TM2002', [...p, 'operator'], `${fieldName([...p, 'operator'])}: Invalid value: ${JSON.stringify(op ?? '')}: not a valid selector operator`);
        return;
      }
      const req: LabelRequirement = { key, operator: op as LabelRequirement['operator'] };
      const values = r.strings([...p, 'values']);
      if ((op === 'In' || op === 'NotIn') && values.length === 0) {
        r.report('TM2002', [...p, 'values'], `${fieldName([...p, 'values'])}: Required value: must be specified when \`operator\` is 'In' or 'NotIn'`);
      }
      if ((op === 'Exists' || op === 'DoesNotExist') && values.length > 0) {
        r.report('TM2002', [...p, 'values'], `${fieldName([...p, 'values'])}: Forbidden: may not be specified when \`operator\` is 'Exists' or 'DoesNotExist'`);
      }
      if (values.length > 0) req.values = values;
      sel.matchExpressions!.push(req);
    });
  }
  return sel;
}

function readRules(r: Reader, path: YamlPath, allowed: readonly string[]): ResourcePattern[] {
  return r.list(path).flatMap((rule, i) => {
    const p = [...path, i];
    if (!isJsonObject(rule)) {
      r.report('TM2002', p, `${fieldName(p)}: expected a mapping`);
      return [];
    }
    const operations = r.strings([...p, 'operations']);
    operations.forEach((op, j) => {
      if (!allowed.includes(op)) {
        const supported = [...allowed].sort().map((o) => JSON.stringify(o)).join(', ');
        r.report('TM2002', [...p, 'operations', j], `${fieldName([...p, 'operations', j])}: Unsupported value: ${JSON.stringify(op)}: supported values: ${supported}`);
      }
    });
    const pattern: ResourcePattern = {
      groups: r.strings([...p, 'apiGroups']),
      versions: r.strings([...p, 'apiVersions']),
      resources: r.strings([...p, 'resources']),
      operations,
    };
    const names = r.strings([...p, 'resourceNames']);
    if (names.length > 0) pattern.resourceNames = names;
    const scope = r.oneOf([...p, 'scope'], ['Cluster', 'Namespaced', '*'], '*');
    if (scope !== '*') pattern.scope = scope;
    return [pattern];
  });
}

/**
 * A MatchResources block; `requireRules` for the policy's matchConstraints (resourceRules is required there).
 * `operations`: what the rules may name (Kyverno's MutatingPolicy also accepts DELETE, for mutate-existing).
 */
export function readMatchResources(r: Reader, path: YamlPath, requireRules: boolean, operations: readonly string[] = MAP_OPERATIONS): MatchResources {
  const m: MatchResources = {
    resourceRules: readRules(r, [...path, 'resourceRules'], operations),
    excludeResourceRules: readRules(r, [...path, 'excludeResourceRules'], operations),
    matchPolicy: r.oneOf([...path, 'matchPolicy'], ['Equivalent', 'Exact'], 'Equivalent'),
    path,
  };
  if (requireRules && m.resourceRules.length === 0) r.report('TM2005', [...path, 'resourceRules'], `${fieldName([...path, 'resourceRules'])}: Required value`);
  const ns = readSelector(r, [...path, 'namespaceSelector']);
  if (ns) m.namespaceSelector = ns;
  const obj = readSelector(r, [...path, 'objectSelector']);
  if (obj) m.objectSelector = obj;
  return m;
}
