/**
 * Names of generated policies. Kubernetes object names are DNS-1123 subdomains (custom resources and the
 * admissionregistration kinds); Kyverno and Gatekeeper further limit policy and mutator names to 63
 * characters. A translated policy is named after what it came from, deterministically.
 */
export { DNS1123_SUBDOMAIN } from '../k8s/names.js';

export const MAX_NAME = 63;

/** Lower-case letters, digits and single dashes, trimmed at both ends; `fallback` when nothing is left. */
export function slug(s: string, fallback = 'policy'): string {
  return (
    s
      .toLowerCase()
      .replace(/[^a-z0-9-]+/g, '-')
      .replace(/-{2,}/g, '-')
      .replace(/^-+|-+$/g, '') || fallback
  );
}

/** At most `max` characters, never ending in a dash or dot (a name must end with an alphanumeric character). */
export function clip(name: string, max = MAX_NAME): string {
  return name.length <= max ? name : name.slice(0, max).replace(/[-.]+$/, '');
}

/** `base` with `suffix`, clipped so that the suffix survives. */
export function withSuffix(base: string, suffix: string, max = MAX_NAME): string {
  return `${clip(base, max - suffix.length)}${suffix}`;
}

/**
 * The name of one policy made of several Gatekeeper mutators (their fix-point as one ClusterPolicy or MAP):
 * the first mutator's name and how many more, so two different sets of mutators get two different names.
 */
export function mutatorGroupName(ids: readonly string[]): string {
  const names = ids.map((id) => slug(id.slice(id.indexOf('/') + 1), 'mutator'));
  if (names.length === 1) return clip(names[0]!);
  return withSuffix(names[0]!, `-and-${names.length - 1}-more`);
}
