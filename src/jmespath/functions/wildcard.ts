/**
 * Kyverno wildcards (go-wildcard v1.0.3, kyverno.md §1.4) for `pattern_match` and friends: the one
 * implementation in src/k8s/glob.ts, which matching uses too.
 */
export { wildcardMatch } from '../../k8s/glob.js';
