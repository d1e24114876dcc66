/**
 * The api/kyverno/v1 programmatic validation the webhook calls as policy.Validate(clusterResources):
 * ValidateAutogenAnnotation, ValidatePolicyName, Spec.Validate (deprecated fields, mutate targets required by
 * mutateExistingOnPolicyUpdate, webhook timeouts, rules: duplicate names, rule type, match/exclude conflict,
 * MatchResources.Validate, target namespaces of a namespaced policy; validationFailureActionOverrides in a
 * namespaced policy). Every error is collected and the list is reported as one aggregate, as upstream does.
 * Pod Security and generate sub-validations are left to those rule types.
 */
import type { JsonObject } from '../../../ir/json.js';
import { aggregate, fieldForbidden, fieldInvalid, fieldTooLong, goStruct } from './go-format.js';
import { atKey, atValue, type Issue } from './issue.js';
import { matchExcludeConflict, matchResourcesErrors } from './match.js';
import { arr, get, hasGenerate, hasMutate, hasMutateExisting, hasValidate, hasVerifyImages, isSet, len, obj, rulesOf, str } from './model.js';
import { utf8ByteLength } from '../../../util/bytes.js';

const AUTOGEN_ANNOTATION = 'pod-policies.kyverno.io/autogen-controllers';
const RULE = { raw: goStruct('v1.Rule') };

export function policyApiValidate(doc: JsonObject, namespaced: boolean): Issue | undefined {
  const errs: Issue[] = [];
  const metadata = obj(get(doc, 'metadata'));
  const annotations = obj(get(metadata, 'annotations'));
  if (get(annotations, AUTOGEN_ANNOTATION) === 'all') {
    errs.push({
      message: fieldForbidden('metadata.annotations', "Autogen annotation does not support 'all' anymore, remove the annotation or set it to a valid value"),
      at: atValue(['metadata', 'annotations', AUTOGEN_ANNOTATION]),
    });
  }
  const name = str(get(metadata, 'name'));
  if (utf8ByteLength(name) > 63) errs.push({ message: fieldTooLong('name', 63), at: atValue(['metadata', 'name']) });

  const spec = obj(get(doc, 'spec'));
  // Spec.validateDeprecatedFields
  const wc = obj(get(spec, 'webhookConfiguration'));
  if (isSet(spec, 'webhookTimeoutSeconds') && isSet(wc, 'timeoutSeconds')) {
    errs.push({ message: fieldForbidden('spec.webhookTimeoutSeconds', 'remove the deprecated field and use spec.webhookConfiguration.timeoutSeconds instead'), at: atKey(['spec', 'webhookTimeoutSeconds']) });
  }
  if (isSet(spec, 'failurePolicy') && isSet(wc, 'failurePolicy')) {
    errs.push({ message: fieldForbidden('spec.failurePolicy', 'remove the deprecated field and use spec.webhookConfiguration.failurePolicy instead'), at: atKey(['spec', 'failurePolicy']) });
  }
  if (isSet(spec, 'generateExistingOnPolicyUpdate')) {
    errs.push({ message: fieldForbidden('spec.generateExistingOnPolicyUpdate', 'remove the deprecated field and use spec.generate[*].generateExisting instead'), at: atKey(['spec', 'generateExistingOnPolicyUpdate']) });
  }
  const rules = rulesOf(spec);
  // Spec.validateMutateTargets
  for (const r of rules) {
    if (!hasMutate(r.rule)) continue;
    const m = obj(get(r.rule, 'mutate'));
    if (get(spec, 'mutateExistingOnPolicyUpdate') === true || get(m, 'mutateExistingOnPolicyUpdate') === true) {
      if (len(m, 'targets') === 0) {
        const at = get(m, 'mutateExistingOnPolicyUpdate') === true ? [...r.path, 'mutate', 'mutateExistingOnPolicyUpdate'] : ['spec', 'mutateExistingOnPolicyUpdate'];
        errs.push({ message: fieldForbidden('spec.mutateExistingOnPolicyUpdate', `rules[${r.index}].mutate.targets has to be specified when mutateExistingOnPolicyUpdate is set`), at: atKey(at) });
      }
    }
  }
  const timeout = get(spec, 'webhookTimeoutSeconds');
  if (typeof timeout === 'number' && (timeout < 1 || timeout > 30)) {
    errs.push({ message: fieldInvalid('spec.webhookTimeoutSeconds', timeout, 'the timeout value must be between 1 and 30 seconds'), at: atValue(['spec', 'webhookTimeoutSeconds']) });
  }
  const wcTimeout = get(wc, 'timeoutSeconds');
  if (typeof wcTimeout === 'number' && (wcTimeout < 1 || wcTimeout > 30)) {
    errs.push({
      message: fieldInvalid('spec.webhookConfiguration.timeoutSeconds', wcTimeout, 'the timeout value must be between 1 and 30 seconds'),
      at: atValue(['spec', 'webhookConfiguration', 'timeoutSeconds']),
    });
  }
  // Spec.ValidateRules: ValidateRuleNames first, then each Rule.Validate.
  const seen = new Set<string>();
  for (const r of rules) {
    if (seen.has(r.name)) errs.push({ message: fieldInvalid(`spec.rules[${r.index}].name`, RULE, `Duplicate rule name: '${r.name}'`), at: atValue([...r.path, 'name']) });
    seen.add(r.name);
  }
  for (const r of rules) {
    const p = `spec.rules[${r.index}]`;
    // Rule.ValidateRuleType
    const count = [hasMutate(r.rule), hasValidate(r.rule), hasGenerate(r.rule), hasVerifyImages(r.rule)].filter(Boolean).length;
    if (count === 0) {
      errs.push({ message: fieldInvalid(p, RULE, `No operation defined in the rule '${r.name}'.(supported operations: mutate,validate,generate,verifyImages)`), at: atValue([...r.path, 'name']) });
    } else if (count !== 1) {
      errs.push({
        message: fieldInvalid(p, RULE, `Multiple operations defined in the rule '${r.name}', only one operation (mutate,validate,generate,verifyImages) is allowed per rule`),
        at: atValue([...r.path, 'name']),
      });
    }
    if (isSet(r.rule, 'imageExtractors') && !hasVerifyImages(r.rule)) {
      errs.push({
        message: fieldInvalid(`${p}.imageExtractors`, RULE, `Invalid rule spec for rule '${r.name}', imageExtractors can only be defined for verifyImages rule`),
        at: atKey([...r.path, 'imageExtractors']),
      });
    }
    if (matchExcludeConflict(r.rule)) errs.push({ message: fieldInvalid(p, RULE, 'Rule is matching an empty set'), at: atKey([...r.path, 'exclude']) });
    errs.push(...matchResourcesErrors(r, 'match', namespaced));
    errs.push(...matchResourcesErrors(r, 'exclude', namespaced));
    // Rule.ValidateMutationRuleTargetNamespace: only when the policy's namespace is known from the document.
    const policyNamespace = str(get(metadata, 'namespace'));
    if (hasMutateExisting(r.rule) && namespaced && policyNamespace !== '') {
      (arr(get(obj(get(r.rule, 'mutate')), 'targets')) ?? []).forEach((t, idx) => {
        const ns = str(get(obj(t), 'namespace'));
        if (ns !== '' && ns !== policyNamespace) {
          errs.push({
            message: fieldInvalid(`${p}.targets[${idx}].namespace`, ns, 'This field can be ignored or should have value of the namespace where the policy is being created'),
            at: atValue([...r.path, 'mutate', 'targets', idx, 'namespace']),
          });
        }
      });
    }
  }
  if (namespaced && len(spec, 'validationFailureActionOverrides') > 0) {
    errs.push({
      message: fieldForbidden('spec.validationFailureActionOverrides', 'Use of validationFailureActionOverrides is supported only with ClusterPolicy'),
      at: atKey(['spec', 'validationFailureActionOverrides']),
    });
  }
  return aggregate(errs);
}
