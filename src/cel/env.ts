/**
 * Environment options and the Kubernetes library set per version
 * (map.md §4.3, from k8s.io/apiserver/pkg/cel/environment/base.go).
 */
import type { LibraryName } from './registry.js';

export type ResultExpectation = 'any' | 'bool' | 'Object' | 'JSONPatchList';

export interface CelEnvOptions {
  /** Kubernetes version whose CEL environment to emulate, e.g. "1.31". Default: the newest known. */
  k8sVersion?: string;
  /**
   * Declared variables (e.g. object, oldObject, params, request, namespaceObject, variables, authorizer).
   * When given, any other identifier is a compile error (undeclared reference), as in Kubernetes.
   * When omitted, identifiers are looked up in the activation at evaluation time.
   */
  variables?: readonly string[];
  /** cel-go container for name resolution (`y` in container `x` also finds `x.y`). */
  container?: string;
  /** Static and runtime check of the result type (MAP mutations: Object for ApplyConfiguration, list(JSONPatch)). */
  expect?: ResultExpectation;
  /** Enable MAP's Object / JSONPatch types and jsonpatch.escapeKey (default true). */
  mutationTypes?: boolean;
  /** Extra libraries beyond the version's set. */
  extraLibraries?: LibraryName[];
  /**
   * cel-go's HomogeneousAggregateLiterals (homogeneous.ts), which kube-apiserver and Kyverno enable: default
   * true; plain CEL (the cel-spec conformance suite) turns it off.
   */
  homogeneousAggregateLiterals?: boolean;
}

export const NEWEST_K8S_VERSION = '1.36';

/** [minor version, libraries enabled from that version on]. */
const LIBRARIES_BY_VERSION: [number, LibraryName[]][] = [
  [0, ['std', 'k8s.urls', 'k8s.regex', 'k8s.lists']],
  [27, ['k8s.authz']],
  [28, ['optional', 'k8s.quantity']],
  [29, ['strings', 'sets']],
  [30, ['k8s.ip', 'k8s.cidr']],
  [31, ['k8s.format']],
  [33, ['k8s.semver']],
  [34, ['lists.ext']],
];

export interface ResolvedEnv {
  minor: number;
  libraries: Set<LibraryName>;
  twoVarComprehensions: boolean;
  variables: Set<string> | undefined;
  container: string;
  expect: ResultExpectation;
  mutationTypes: boolean;
  homogeneousAggregateLiterals: boolean;
}

export function parseK8sVersion(v: string | undefined): number | undefined {
  const m = /^v?1\.(\d+)(?:\.\d+)?$/.exec(v ?? NEWEST_K8S_VERSION);
  return m ? Number(m[1]) : undefined;
}

export function resolveEnv(opts: CelEnvOptions): ResolvedEnv | string {
  const minor = parseK8sVersion(opts.k8sVersion);
  if (minor === undefined) return `unsupported Kubernetes version "${opts.k8sVersion}" (expected 1.N)`;
  const libraries = new Set<LibraryName>();
  for (const [since, libs] of LIBRARIES_BY_VERSION) if (minor >= since) for (const l of libs) libraries.add(l);
  const mutationTypes = opts.mutationTypes ?? true;
  if (mutationTypes) libraries.add('k8s.jsonpatch');
  for (const l of opts.extraLibraries ?? []) libraries.add(l);
  return {
    minor,
    libraries,
    twoVarComprehensions: minor >= 32,
    variables: opts.variables ? new Set(opts.variables) : undefined,
    container: opts.container ?? '',
    expect: opts.expect ?? 'any',
    mutationTypes,
    homogeneousAggregateLiterals: opts.homogeneousAggregateLiterals ?? true,
  };
}

/** The variables MAP declares for mutation expressions (plugin/cel/compile.go). */
export const MAP_VARIABLES = ['object', 'oldObject', 'params', 'request', 'namespaceObject', 'variables', 'authorizer', 'authorizer.requestResource'] as const;
