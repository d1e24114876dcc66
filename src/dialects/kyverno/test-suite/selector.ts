/**
 * `kyverno test --test-case-selector "policy=…, rule=…, resource=…"` (cmd/cli/kubectl-kyverno/test/filter):
 * comma-separated `key=value` pairs, keys policy, rule and resource, values Kyverno wildcards (`*`, `?`). A
 * result passes when every filter does; a result without the field passes that filter (no policy, no rule,
 * no resources). A resource filter that is not `*` also replaces the resources of every selected result
 * (ExtractResourceFilters), so only that resource is checked; here a value with wildcards narrows the
 * result's resources to those it matches instead of naming a resource literally.
 */
import { wildcardMatch } from '../../../k8s/glob.js';
import type { TestRow } from '../../../io/test-row.js';
import type { SuiteResult } from './model.js';

export interface Selector {
  policy: string[];
  rule: string[];
  resource: string[];
}

export function parseSelector(text: string): Selector | { error: string } {
  const selector: Selector = { policy: [], rule: [], resource: [] };
  if (text === '') return selector;
  for (const part of text.split(',')) {
    const pieces = part.split('=');
    if (pieces.length !== 2) return { error: `invalid argument (${part}): each parameter must be in the form <key>=<value>` };
    const key = pieces[0]!.trim();
    const value = pieces[1]!.trim();
    if (key !== 'policy' && key !== 'rule' && key !== 'resource') return { error: `invalid selector (${part}): the key can only be policy, rule or resource` };
    selector[key].push(value);
  }
  return selector;
}

function fieldPasses(patterns: readonly string[], values: readonly string[]): boolean {
  if (values.length === 0) return true;
  return patterns.every((p) => values.some((v) => wildcardMatch(p, v)));
}

/** The selected results, their resources replaced or narrowed by the resource filters. */
export function selectEntries(selector: Selector, results: readonly SuiteResult[]): SuiteResult[] {
  const named = selector.resource.filter((r) => r !== '*');
  const out: SuiteResult[] = [];
  for (const r of results) {
    if (!fieldPasses(selector.policy, r.policy ? [r.policy] : [])) continue;
    if (!fieldPasses(selector.rule, r.rule ? [r.rule] : [])) continue;
    if (!fieldPasses(selector.resource, r.resources)) continue;
    if (named.length === 0) {
      out.push(r);
      continue;
    }
    const literal = named.filter((n) => !/[*?]/.test(n));
    const resources = literal.length > 0 ? literal : r.resources.filter((res) => named.every((n) => wildcardMatch(n, res)));
    out.push({ ...r, resources });
  }
  return out;
}

/** The selector on a reported row (golden cases, kaptest): its policy, rule and resource label. */
export function selectsRow(selector: Selector, row: Pick<TestRow, 'policy' | 'rule' | 'resource'>): boolean {
  return (
    fieldPasses(selector.policy, row.policy ? [row.policy] : []) &&
    fieldPasses(selector.rule, row.rule ? [row.rule] : []) &&
    fieldPasses(selector.resource, row.resource ? [row.resource] : [])
  );
}
