/**
 * Kyverno's admission-webhook validation of ClusterPolicy / Policy documents (kyverno.io/v1, v2beta1), as a pure
 * function: the policies Kyverno's webhook would refuse get one TM2004 diagnostic carrying the message the
 * webhook returns after "admission webhook ... denied the request:", pointing at the offending key or value.
 *
 * The order follows pkg/validation/policy/validate.go `Validate`, which returns at its first error (the
 * api/kyverno/v1 field validation in the middle aggregates its errors into one message). Documents are assumed to
 * have passed the CRD's structural schema already; nothing here throws on unexpected shapes.
 * Checks that need a cluster (discovery of kinds, service-account permissions, Kubernetes version) are left out;
 * so are rules' validate / generate / verifyImages specific checks.
 */
import { diagnostic, type Diagnostic } from '../../../diagnostics/diagnostic.js';
import type { Span } from '../../../diagnostics/span.js';
import type { SourceDoc } from '../../../io/source.js';
import type { JsonObject } from '../../../ir/json.js';
import { policyApiValidate } from './api.js';
import { validateConditionBlock, validateMutationForEach } from './conditions.js';
import { validateRuleContext } from './context.js';
import { atKey, atValue, firstOf, type Issue, type Where } from './issue.js';
import { forwardSlashError, jsonPatchError } from './jsonpatch.js';
import { validateMatchKinds, validateResourceBlocks, validateRuleKinds } from './match.js';
import { isLabelAndAnnotationsString, nonStringLabelPath } from './metadata.js';
import { flagDefaultTrue, get, hasGenerate, hasMutate, hasVerifyImages, isSet, obj, rulesOf, str, arr, type RuleRef } from './model.js';
import { validateMutate } from './mutate.js';
import { elementOutsideForeach } from './substitution.js';
import { validateOnPolicyUpdate, validateVariables } from './variables.js';

const API_VERSIONS = new Set(['kyverno.io/v1', 'kyverno.io/v2beta1']);
const KINDS = new Set(['ClusterPolicy', 'Policy']);

export function kyvernoAdmissionChecks(doc: SourceDoc): Diagnostic[] {
  const policy = obj(doc.value);
  if (policy === undefined) return [];
  if (!API_VERSIONS.has(str(get(policy, 'apiVersion'))) || !KINDS.has(str(get(policy, 'kind')))) return [];
  let issue: Issue | undefined;
  try {
    issue = validatePolicy(policy);
  } catch {
    // A shape the checks did not foresee: better no verdict than a crash.
    issue = undefined;
  }
  if (issue === undefined) return [];
  return [diagnostic('TM2004', { phase: 'parse', dialect: 'kyverno', message: issue.message, span: spanOf(doc, issue.at) })];
}

function spanOf(doc: SourceDoc, at: Where): Span {
  switch (at.kind) {
    case 'key':
      return doc.keySpanOf(at.path);
    case 'value':
      return doc.spanOf(at.path);
    case 'string':
      return doc.spanInString(at.path, at.start, at.end);
  }
}

/** validate.go Validate, up to its first error. */
export function validatePolicy(policy: JsonObject): Issue | undefined {
  const kind = str(get(policy, 'kind'));
  const metadata = obj(get(policy, 'metadata'));
  if (kind === 'ClusterPolicy' && str(get(metadata, 'namespace')) !== '') {
    return { message: 'A clusterpolicy should not have the namespace defined', at: atKey(['metadata', 'namespace']) };
  }
  const spec = obj(get(policy, 'spec'));
  const background = flagDefaultTrue(spec, 'background');
  const admission = flagDefaultTrue(spec, 'admission');
  const rules = rulesOf(spec);
  return firstOf(
    () => validateVariables(policy, background),
    () => policyApiValidate(policy, kind === 'Policy'),
    () => {
      if (!admission && !background) return { message: 'disabling both admission and background processing is not allowed', at: atKey(['spec', 'admission']) };
      if (!admission && rules.some((r) => hasMutate(r.rule) || hasGenerate(r.rule) || hasVerifyImages(r.rule))) {
        return { message: 'disabling admission processing is only allowed with validation policies', at: atKey(['spec', 'admission']) };
      }
      return undefined;
    },
    () => firstOf(...rules.map((r) => () => validateRuleKinds(r, background))),
    () => firstOf(...rules.map((r) => () => validateRule(policy, spec, r))),
  );
}

/** The per-rule loop of validate.go Validate. */
function validateRule(policy: JsonObject, spec: JsonObject | undefined, r: RuleRef): Issue | undefined {
  const i = r.index;
  const mutate = obj(get(r.rule, 'mutate'));
  return firstOf(
    () => {
      if (mutate === undefined) return undefined;
      const patch = str(get(mutate, 'patchesJson6902'));
      const at = atKey([...r.path, 'mutate', 'patchesJson6902']);
      const slash = forwardSlashError(patch);
      if (slash !== undefined) return { message: `path must begin with a forward slash: spec.rules[${i}]: ${slash}`, at };
      const invalid = jsonPatchError(patch, i);
      return invalid !== undefined ? { message: invalid, at } : undefined;
    },
    () => {
      // validateResources
      const blocks = validateResourceBlocks(r);
      if (blocks) return { message: `path: spec.rules[${i}].${blocks.path}: ${blocks.message}`, at: blocks.at };
      const pre = get(r.rule, 'preconditions');
      if (pre !== undefined && pre !== null) {
        const err = validateConditionBlock(pre, 'preconditions', [...r.path, 'preconditions']);
        if (err) return { message: `path: spec.rules[${i}].validate.${err.path}: ${err.message}`, at: err.at };
      }
      const foreach = arr(get(mutate, 'foreach'));
      if (foreach !== undefined && foreach.length > 0) {
        const err = validateMutationForEach(foreach, 'mutate.foreach', [...r.path, 'mutate', 'foreach']);
        if (err) return { message: `path: spec.rules[${i}].${err.path}: ${err.message}`, at: err.at };
      }
      return undefined;
    },
    () => elementOutsideForeach(r.rule, r.path),
    () => {
      const err = validateRuleContext(r.rule, r.path);
      return err ? { message: `path: spec.rules[${i}]: ${err.message}`, at: err.at } : undefined;
    },
    () => validateMatchKinds(r),
    () => {
      if (!hasMutate(r.rule)) return undefined;
      const err = validateMutate(r.rule, r.path);
      return err ? { message: `path: spec.rules[${i}].mutate.${err.path}.: ${err.message}`, at: err.at } : undefined;
    },
    () =>
      isLabelAndAnnotationsString(r.rule)
        ? undefined
        : { message: 'labels and annotations supports only string values, "use double quotes around the non string values"', at: labelsAt(r) },
    () => {
      if (!hasMutate(r.rule)) return undefined;
      const own = get(mutate, 'mutateExistingOnPolicyUpdate');
      if (isSet(mutate, 'mutateExistingOnPolicyUpdate')) return own === true ? validateOnPolicyUpdate(policy) : undefined;
      return get(spec, 'mutateExistingOnPolicyUpdate') === true ? validateOnPolicyUpdate(policy) : undefined;
    },
  );
}

/** The first non-string label or annotation value of the patch upstream checks, for the span. */
function labelsAt(r: RuleRef): Where {
  const mutate = obj(get(r.rule, 'mutate'));
  const foreach = arr(get(mutate, 'foreach'));
  if (foreach !== undefined) {
    const idx = foreach.findIndex((fe) => obj(get(obj(fe), 'patchStrategicMerge')) !== undefined);
    if (idx >= 0) {
      const at = [...r.path, 'mutate', 'foreach', idx, 'patchStrategicMerge'];
      const bad = nonStringLabelPath(get(obj(foreach[idx]), 'patchStrategicMerge'), at);
      return bad ? atValue(bad) : atKey(at);
    }
  }
  if (mutate !== undefined && isSet(mutate, 'patchStrategicMerge')) {
    const at = [...r.path, 'mutate', 'patchStrategicMerge'];
    const bad = nonStringLabelPath(get(mutate, 'patchStrategicMerge'), at);
    return bad ? atValue(bad) : atKey(at);
  }
  return atKey([...r.path, hasMutate(r.rule) ? 'mutate' : 'validate']);
}
