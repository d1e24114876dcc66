/**
 * How Kyverno's strategic merge treats a list of the patch: kyaml looks the schema up by the object's own
 * apiVersion and kind in its embedded Kubernetes 1.21.2 OpenAPI (kyverno.md §1.8 (b)); a list whose field
 * has a `merge` patch strategy is merged by its key, every other list (and every list of a kind kyaml does
 * not know) is replaced. A rule matching `Pod` in any group may meet kinds kyaml does not know, so the answer
 * is given per known apiVersion/kind, with what every other object gets.
 */
import { tableKindsMatching } from '../../../merge/smp/table-kinds.js';
import type { GvkPattern, MatchSpec } from '../../../ir/match.js';
import { elementSchema, fieldSchema, schemaForResourceType, type SchemaRef } from '../../../merge/smp/schema.js';
import { and, celString, or, type Cel } from './cel-patch.js';

export type ListStrategy = { kind: 'replace' } | { kind: 'keyed'; key: string } | { kind: 'keys'; keys: readonly string[] } | { kind: 'set' };

/** A step below the object root: a map field or the elements of a list. */
export type SchemaStep = string | '[]';


function strategyIn(schema: SchemaRef, steps: readonly SchemaStep[]): ListStrategy {
  let s = schema;
  for (const step of steps) s = step === '[]' ? elementSchema(s) : fieldSchema(s, step);
  const merge = s?.merge;
  if (merge === undefined) return { kind: 'replace' };
  if (merge.length === 0) return { kind: 'set' };
  return merge.length === 1 ? { kind: 'keyed', key: merge[0]! } : { kind: 'keys', keys: merge };
}

/**
 * The built-in kinds a pattern admits, as exact patterns (`Pod` in any group is core v1 Pod), for the checks
 * that need a schema; kinds kyaml's table does not know stay as they are.
 */
export function concreteKinds(kinds: readonly GvkPattern[]): GvkPattern[] {
  return kinds.flatMap((k) => {
    if ((k.group !== undefined && k.group !== '*') || /[*?]/.test(k.kind)) return [k];
    const found = tableKindsMatching(k);
    if (found.length === 0) return [k];
    return found.map((key) => {
      const slash = key.lastIndexOf('/');
      const apiVersion = key.slice(0, slash);
      const g = apiVersion.indexOf('/');
      return { ...k, group: g < 0 ? '' : apiVersion.slice(0, g), version: g < 0 ? apiVersion : apiVersion.slice(g + 1), kind: key.slice(slash + 1) };
    });
  });
}

export interface Strategies {
  /** The strategy for the objects whose apiVersion/kind kyaml knows, when they all agree. */
  known: ListStrategy | undefined;
  /** The apiVersion/kind pairs (`apps/v1/Deployment`) that get `known`. */
  knownKinds: string[];
  /** Whether the match admits kinds kyaml does not know (their lists are replaced). */
  others: boolean;
  /** Known kinds disagree. */
  mixed: boolean;
}

export function listStrategies(match: MatchSpec, steps: readonly SchemaStep[]): Strategies {
  const kinds = [...(match.any ?? []), ...(match.all ?? [])].flatMap((c) => c.kinds ?? []);
  if (kinds.length === 0 || kinds.some((k) => k.kind === '*' || /[*?]/.test(k.kind))) return { known: undefined, knownKinds: [], others: true, mixed: true };
  const knownKinds = [...new Set(kinds.flatMap(tableKindsMatching))].sort();
  // A kind pattern that names its group and version exactly, and that kyaml knows, admits nothing else.
  const others = kinds.some((k) => k.group === undefined || k.group === '*' || k.version === undefined || k.version === '*' || tableKindsMatching(k).length === 0);
  let known: ListStrategy | undefined;
  let mixed = false;
  for (const key of knownKinds) {
    const slash = key.lastIndexOf('/');
    const s = strategyIn(schemaForResourceType(key.slice(0, slash), key.slice(slash + 1)), steps);
    if (known === undefined) known = s;
    else if (JSON.stringify(known) !== JSON.stringify(s)) mixed = true;
  }
  return { known, knownKinds, others, mixed };
}

/** The CEL test that the object is one of `kinds` (`apiVersion/kind` pairs), as kyaml's schema lookup reads it. */
export function objectKindTest(kinds: readonly string[]): Cel {
  return or(
    kinds.map((key) => {
      const slash = key.lastIndexOf('/');
      return and([`object.apiVersion == ${celString(key.slice(0, slash))}`, `object.kind == ${celString(key.slice(slash + 1))}`])!;
    }),
  );
}
