/**
 * Reads a MutatingPolicy / NamespacedMutatingPolicy with the MAP dialect's readers for the shared parts
 * (api/policies.kyverno.io MutatingPolicySpec embeds MAP's matchConstraints, matchConditions, variables and
 * mutations) and Kyverno's own fields: evaluation modes, targetMatchConstraints, autogen.
 */
import type { Diagnostic } from '../../diagnostics/diagnostic.js';
import type { SourceDoc } from '../../io/source.js';
import { readMatchResources } from '../map/match-resources.js';
import { readMutations, readNamed } from '../map/policy.js';
import { validateVariables } from '../map/validate.js';
import { POD_CONTROLLERS, MPOL_OPERATIONS, type MpolException, type MpolPolicy } from './model.js';
import { MpolReader } from './reader.js';

function hasErrors(diagnostics: readonly Diagnostic[], from: number): boolean {
  return diagnostics.slice(from).some((d) => d.severity === 'error');
}

function readAutogen(r: MpolReader): string[] | undefined {
  const path = ['spec', 'autogen', 'podControllers', 'controllers'];
  if (r.get(path) === undefined || r.get(path) === null) return undefined;
  const controllers = r.strings(path);
  controllers.forEach((c, i) => {
    // Unknown names are ignored upstream (generateRuleForControllers skips them); say so.
    if (!POD_CONTROLLERS.includes(c)) r.report('TM2007', [...path, i], `${path.join('.')}[${i}]: unknown Pod controller ${JSON.stringify(c)} is ignored`);
  });
  return controllers.filter((c) => POD_CONTROLLERS.includes(c));
}

/** spec.targetMatchConstraints: a MatchResources (every operation allowed) plus the CEL `expression`. */
function readTargetMatchConstraints(r: MpolReader): MpolPolicy['targetMatchConstraints'] {
  const path = ['spec', 'targetMatchConstraints'];
  if (!r.obj(path)) return undefined;
  const m: NonNullable<MpolPolicy['targetMatchConstraints']> = readMatchResources(r, path, false, MPOL_OPERATIONS);
  const text = r.str([...path, 'expression']);
  if (text !== undefined && text !== '') m.expression = { text, doc: r.doc, path: [...path, 'expression'] };
  return m;
}

export function readMpolPolicy(doc: SourceDoc, diagnostics: Diagnostic[]): MpolPolicy | undefined {
  const r = new MpolReader(doc, diagnostics);
  const before = diagnostics.length;
  const kind = r.str(['kind']) === 'NamespacedMutatingPolicy' ? 'NamespacedMutatingPolicy' : 'MutatingPolicy';
  const name = r.required(['metadata', 'name']);
  if (!r.obj(['spec'])) {
    r.report('TM2005', ['spec'], 'spec: Required value');
    return undefined;
  }
  if (!r.obj(['spec', 'matchConstraints'])) r.report('TM2005', ['spec', 'matchConstraints'], 'spec.matchConstraints: Required value');
  const matchConstraints = readMatchResources(r, ['spec', 'matchConstraints'], r.get(['spec', 'matchConstraints']) !== undefined, MPOL_OPERATIONS);
  const variables = readNamed(r, ['spec', 'variables']);
  validateVariables(r, variables, ['spec', 'variables']);
  // Kyverno's webhook does not hold matchCondition names to kube-apiserver's rules (qualified, unique).
  const matchConditions = readNamed(r, ['spec', 'matchConditions']);
  const ev = ['spec', 'evaluation'];
  const policy: MpolPolicy = {
    kind,
    name: name ?? '',
    doc,
    matchConstraints,
    variables,
    matchConditions,
    mutations: readMutations(r),
    failurePolicy: r.oneOf(['spec', 'failurePolicy'], ['Fail', 'Ignore'], 'Fail'),
    reinvocationPolicy: r.oneOf(['spec', 'reinvocationPolicy'], ['Never', 'IfNeeded'], 'Never'),
    admission: r.bool([...ev, 'admission', 'enabled'], true),
    mutateExisting: r.bool([...ev, 'mutateExisting', 'enabled'], false),
    hasTargets: false,
    targetMatchConditions: readNamed(r, ['spec', 'targetMatchConditions']),
    skipBackgroundRequests: r.bool([...ev, 'skipBackgroundRequests'], true),
  };
  const targets = readTargetMatchConstraints(r);
  if (targets) {
    policy.targetMatchConstraints = targets;
    // predicate.go NoTargetMatchConstraintPolicy: targets exist when resource rules or an expression are set.
    policy.hasTargets = targets.resourceRules.length > 0 || targets.expression !== undefined;
  }
  if (kind === 'NamespacedMutatingPolicy') policy.namespace = r.str(['metadata', 'namespace']) ?? '';
  const controllers = readAutogen(r);
  if (controllers) policy.autogenControllers = controllers;
  return hasErrors(diagnostics, before) ? undefined : policy;
}

export function readMpolException(doc: SourceDoc, diagnostics: Diagnostic[]): MpolException | undefined {
  const r = new MpolReader(doc, diagnostics);
  const before = diagnostics.length;
  const name = r.required(['metadata', 'name']) ?? '';
  const refs = r.list(['spec', 'policyRefs']).flatMap((_, i) => {
    const refName = r.required(['spec', 'policyRefs', i, 'name']);
    const refKind = r.str(['spec', 'policyRefs', i, 'kind']) ?? '';
    return refName === undefined ? [] : [{ name: refName, kind: refKind }];
  });
  const matchConditions = readNamed(r, ['spec', 'matchConditions']);
  const partial = r.list(['spec', 'images']).length > 0 || r.list(['spec', 'allowedValues']).length > 0;
  if (hasErrors(diagnostics, before)) return undefined;
  return { name, namespace: r.str(['metadata', 'namespace']) ?? '', doc, policyRefs: refs, matchConditions, partial, path: [] };
}
