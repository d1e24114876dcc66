/**
 * The CEL environment a policy's expressions were written for, as the CEL-to-Kyverno translation needs it:
 * - `map`: kube-apiserver's MutatingAdmissionPolicy environment (plugin/cel/compile.go): object, oldObject,
 *   params, request, namespaceObject, variables, authorizer; the Kubernetes libraries;
 * - `kyverno-mpol`: Kyverno's MutatingPolicy environment (mpol/compiler/compiler.go): no params and no
 *   authorizer, a `request` that is the whole admission request (so it also carries `object`, `oldObject`,
 *   `roles` and `clusterRoles`), and Kyverno's libraries on top of the Kubernetes ones. Some of those read
 *   the cluster or the network (resource, globalContext, http, imagedata): a call to one is never closed (it
 *   has no value at translation time).
 * Everything else (the expression forms, their values and failures) is the same CEL in both.
 */
import type { Expr } from '../../cel/ast.js';
import { MAP_VARIABLES } from '../../cel/index.js';
import type { LibraryName } from '../../cel/registry.js';

export type CelEnvName = 'map' | 'kyverno-mpol';

export interface CelEnv {
  name: CelEnvName;
  /** Who evaluates the CEL (for messages): kube-apiserver or Kyverno. */
  engine: string;
  /** The variables the environment declares (any other identifier is a compile error). */
  variables: readonly string[];
  /** Libraries beyond the Kubernetes ones. */
  extraLibraries: readonly LibraryName[];
  /** `request` also carries the admission request's object, old object and the user's roles (Kyverno's RequestType). */
  requestCarriesObjects: boolean;
  /** Namespaces of functions whose result depends on more than their arguments (`resource` for `resource.Get`...). */
  impureNamespaces: ReadonlySet<string>;
  /** Qualified names of such functions outside those namespaces. */
  impureFunctions: ReadonlySet<string>;
}

export const MAP_ENV: CelEnv = {
  name: 'map',
  engine: 'kube-apiserver',
  variables: MAP_VARIABLES,
  extraLibraries: [],
  requestCarriesObjects: false,
  impureNamespaces: new Set(),
  impureFunctions: new Set(),
};

/** The variables a MutatingPolicy expression may name (the same list as kyverno-mpol/cel-engine.ts MPOL_VARIABLES). */
export const MPOL_ENV_VARIABLES = ['object', 'oldObject', 'request', 'namespaceObject', 'variables'] as const;

export const MPOL_ENV: CelEnv = {
  name: 'kyverno-mpol',
  engine: 'Kyverno',
  variables: MPOL_ENV_VARIABLES,
  extraLibraries: ['kyverno'],
  requestCarriesObjects: true,
  // src/cel/lib/kyverno-data.ts, kyverno-image.ts: the functions registered with `pure: false`.
  impureNamespaces: new Set(['resource', 'globalContext', 'http', 'imagedata']),
  impureFunctions: new Set(['image.GetMetadata']),
};

/** The environment of a policy read from `dialect`; undefined for policies whose expressions are not CEL of either. */
export function celEnvOf(dialect: string | undefined): CelEnv | undefined {
  if (dialect === 'map') return MAP_ENV;
  if (dialect === 'kyverno-mpol') return MPOL_ENV;
  return undefined;
}

/** The qualified name of a namespaced call (`resource.Get`), or undefined. */
export function qualifiedName(e: Expr): string | undefined {
  if (e.kind !== 'call' || !e.target || e.target.kind !== 'ident') return undefined;
  return `${e.target.name}.${e.fn}`;
}

/** Whether `e` is a call of a function that reads the cluster or the network in `env` (`bound`: comprehension variables). */
export function isImpureCall(e: Expr, env: CelEnv, bound: ReadonlySet<string> = new Set()): boolean {
  if (e.kind !== 'call') return false;
  if (e.target?.kind === 'ident' && !bound.has(e.target.name) && !env.variables.includes(e.target.name)) {
    return env.impureNamespaces.has(e.target.name) || env.impureFunctions.has(`${e.target.name}.${e.fn}`);
  }
  return e.target === undefined && env.impureFunctions.has(e.fn);
}
