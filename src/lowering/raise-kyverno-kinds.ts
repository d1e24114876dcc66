/**
 * What the Kyverno raisings need to know about the objects a rule can meet: the exact kinds its match names
 * (resolved as Gatekeeper's applyTo names them, so a translation is exact for every object the emitted
 * mutators see) and, for each, the strategic-merge facts kyaml reads from its embedded Kubernetes 1.21.2
 * schema (src/merge/smp/schema.ts): whether the list at a path is replaced by a patch list or merged by keys.
 */
import type { GvkPattern, MatchSpec, Policy, Rule } from '../ir/nodes.js';
import { builtinResources, lookupKind } from '../k8s/resources.js';
import { elementSchema, fieldSchema, schemaForResourceType, type SchemaRef } from '../merge/smp/schema.js';

export interface KindRef {
  apiVersion: string;
  kind: string;
}

/** A step of a schema path: a field name, or `[]` for the elements of a list. */
export type SchemaStep = string;
export const ELEMENT: SchemaStep = '[]';

function exact(p: GvkPattern): KindRef[] | undefined {
  if (p.subresource !== undefined && p.subresource !== '') return undefined;
  if (p.kind === '*' || /[*?]/.test(p.kind)) return undefined;
  const anyGroup = p.group === undefined || p.group === '*';
  const anyVersion = p.version === undefined || p.version === '*';
  if (!anyGroup && /[*?]/.test(p.group!)) return undefined;
  if (!anyVersion && /[*?]/.test(p.version!)) return undefined;
  const apiVersion = (group: string, version: string) => (group === '' ? version : `${group}/${version}`);
  if (!anyGroup && !anyVersion) return [{ apiVersion: apiVersion(p.group!, p.version!), kind: p.kind }];
  // As emit-match.ts resolves them: an absent group is the core group, `*` every built-in group serving the kind.
  const known = p.group === '*' ? builtinResources().filter((r) => r.kind === p.kind) : [lookupKind(p.group ?? '', p.kind)].filter((r) => r !== undefined);
  const matching = known.filter((k) => anyVersion || k.version === p.version);
  if (matching.length === 0) return undefined;
  return matching.map((k) => ({ apiVersion: apiVersion(k.group, anyVersion ? k.version : p.version!), kind: k.kind }));
}

type Kinds = KindRef[] | 'every' | undefined;

/** The kinds one match block names: `every` when it does not restrict kinds, undefined when not exactly. */
function kindsOf(spec: MatchSpec | undefined): Kinds {
  if (!spec) return 'every';
  const any = spec.any ?? [];
  const allLists = (spec.all ?? []).filter((c) => c.kinds !== undefined).map((c) => c.kinds!);
  // An `any` clause without kinds matches every kind.
  const anyOpen = any.length === 0 || any.some((c) => c.kinds === undefined);
  if (allLists.length > 1 || (allLists.length === 1 && !anyOpen)) return undefined;
  const patterns = allLists.length === 1 ? allLists[0]! : anyOpen ? undefined : any.flatMap((c) => c.kinds!);
  if (patterns === undefined) return 'every';
  const out: KindRef[] = [];
  for (const p of patterns) {
    const k = exact(p);
    if (!k) return undefined;
    for (const ref of k) if (!out.some((o) => sameKind(o, ref))) out.push(ref);
  }
  return out;
}

function sameKind(a: KindRef, b: KindRef): boolean {
  return a.apiVersion === b.apiVersion && a.kind === b.kind;
}

/**
 * The exact kinds a rule can apply to (its policy's match and its own), or undefined when they are not named
 * exactly (a wildcard, a kind no built-in group serves under an open group, kind lists that must all hold).
 */
export function matchedKinds(policy: Policy, rule: Rule): KindRef[] | undefined {
  const a = kindsOf(policy.match);
  const b = kindsOf(rule.match);
  if (a === undefined || b === undefined) return undefined;
  if (a === 'every') return b === 'every' || b.length === 0 ? undefined : b;
  if (b === 'every') return a.length === 0 ? undefined : a;
  const both = a.filter((k) => b.some((x) => sameKind(x, k)));
  return both.length === 0 ? undefined : both;
}

/** The schema kyaml uses below `steps` of an object of `kind` (null: unknown, every list replaced). */
export function schemaAt(kind: KindRef, steps: readonly SchemaStep[]): SchemaRef {
  let s: SchemaRef = schemaForResourceType(kind.apiVersion, kind.kind);
  for (const step of steps) s = step === ELEMENT ? elementSchema(s) : fieldSchema(s, step);
  return s;
}

/**
 * How kyaml merges a patch list at `steps` into the list of every kind: `replace` (no patch strategy, or a
 * kind kyaml does not know), the merge keys (`[]` for a set of primitives), or undefined when the kinds
 * disagree.
 */
export function listStrategy(kinds: readonly KindRef[], steps: readonly SchemaStep[]): 'replace' | readonly string[] | undefined {
  let out: 'replace' | readonly string[] | undefined;
  for (const k of kinds) {
    const s = schemaAt(k, steps);
    const here: 'replace' | readonly string[] = s?.merge ?? 'replace';
    if (out === undefined) out = here;
    else if (out === 'replace' ? here !== 'replace' : here === 'replace' || here.join('\n') !== out.join('\n')) return undefined;
  }
  return out;
}
