/**
 * What each target CEL environment can express.
 * - map: kube-apiserver's base environment for the given Kubernetes version (map.md §4.3; src/cel/env.ts):
 *   strings ext v2 and optionals always (we support 1.32+), two-variable comprehensions from 1.32,
 *   semver from 1.33, ext.Lists v3 (sort, flatten, slice, reverse, range) from 1.34; no base64, no regex
 *   replace, no JSON.
 * - kyverno-mpol: Kyverno's MutatingPolicy environment (kyverno pkg/cel/compiler/env.go DefaultEnvOptions at
 *   the pinned commit): the base libraries at their newest versions plus ext.Encoders (base64), ext.Regex
 *   (regex.replace with `\1` groups), ext.Math, ext.Bindings and Kyverno's json/yaml/hash/x509/time libraries.
 *   Only what transmute's CEL engine implements is used (base64, regex.replace); the rest is reported `yet`.
 */
import { NEWEST_K8S_VERSION } from '../../cel/index.js';

export type CelTarget = { env: 'map' | 'kyverno-mpol'; k8sVersion?: string };

export interface Caps {
  env: 'map' | 'kyverno-mpol';
  minor: number;
  /** ext.Lists v3: sort(), flatten(), slice(), reverse(), lists.range(). */
  listsExt: boolean;
  semver: boolean;
  /** ext.Encoders: base64.encode / base64.decode. */
  base64: boolean;
  /** ext.Regex: regex.replace(target, re, replacement) with `\N` groups. */
  regexReplace: boolean;
}

export const OLDEST_MINOR = 32;
const NEWEST_MINOR = Number(NEWEST_K8S_VERSION.split('.')[1]);

export function capsOf(target: CelTarget): Caps | string {
  if (target.env === 'kyverno-mpol') {
    return { env: 'kyverno-mpol', minor: NEWEST_MINOR, listsExt: true, semver: true, base64: true, regexReplace: true };
  }
  if (target.env !== 'map') return `unknown CEL target environment ${JSON.stringify(target.env)}`;
  const v = target.k8sVersion ?? NEWEST_K8S_VERSION;
  const m = /^v?1\.(\d+)(?:\.\d+)?$/.exec(v);
  const minor = m ? Number(m[1]) : NaN;
  if (!(minor >= OLDEST_MINOR && minor <= NEWEST_MINOR)) {
    return `unsupported Kubernetes version ${JSON.stringify(v)} (expected 1.${OLDEST_MINOR}..1.${NEWEST_MINOR})`;
  }
  return { env: 'map', minor, listsExt: minor >= 34, semver: minor >= 33, base64: false, regexReplace: false };
}
