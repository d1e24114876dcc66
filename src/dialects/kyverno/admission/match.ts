/**
 * match / exclude checks, in the three places upstream makes them:
 * - api/kyverno/v1 MatchResources.Validate, UserInfo.Validate, ResourceDescription.Validate and
 *   Rule.ValidateMatchExcludeConflict (field errors, aggregated by policy.Validate);
 * - validate.go validateResources (any/all exclusivity with a flat block, a filter without resources);
 * - validate.go validateKinds / validateWildcard (the `*` kind) and validateMatchKindHelper (kinds mandatory).
 */
import { jsonEqual, type JsonObject, type JsonValue } from '../../../ir/json.js';
import type { YamlPath } from '../../../io/source.js';
import { wildcardMatch } from '../../../jmespath/index.js';
import { fieldForbidden, fieldInvalid, fieldRequired, goStruct } from './go-format.js';
import { atKey, atValue, type Issue, type Where } from './issue.js';
import { ruleOnlyDealsWithResourceMetaData } from './metadata.js';
import {
  arr,
  get,
  hasGenerate,
  hasMutate,
  hasValidate,
  hasVerifyImages,
  isSet,
  isZeroMatchResources,
  isZeroResourceDescription,
  len,
  obj,
  str,
  strings,
  type RuleRef,
} from './model.js';

/**
 * Kinds the API server reports as cluster-scoped (discovery, in upstream). A namespaced Policy may not match
 * them. Only built-in and Kyverno kinds are known here; custom cluster-scoped kinds pass.
 */
const CLUSTER_SCOPED: Record<string, string> = {
  Namespace: 'v1',
  Node: 'v1',
  PersistentVolume: 'v1',
  ComponentStatus: 'v1',
  ClusterRole: 'rbac.authorization.k8s.io/v1',
  ClusterRoleBinding: 'rbac.authorization.k8s.io/v1',
  StorageClass: 'storage.k8s.io/v1',
  CSIDriver: 'storage.k8s.io/v1',
  CSINode: 'storage.k8s.io/v1',
  VolumeAttachment: 'storage.k8s.io/v1',
  CustomResourceDefinition: 'apiextensions.k8s.io/v1',
  MutatingWebhookConfiguration: 'admissionregistration.k8s.io/v1',
  ValidatingWebhookConfiguration: 'admissionregistration.k8s.io/v1',
  ValidatingAdmissionPolicy: 'admissionregistration.k8s.io/v1',
  ValidatingAdmissionPolicyBinding: 'admissionregistration.k8s.io/v1',
  PriorityClass: 'scheduling.k8s.io/v1',
  RuntimeClass: 'node.k8s.io/v1',
  APIService: 'apiregistration.k8s.io/v1',
  CertificateSigningRequest: 'certificates.k8s.io/v1',
  IngressClass: 'networking.k8s.io/v1',
  FlowSchema: 'flowcontrol.apiserver.k8s.io/v1',
  PriorityLevelConfiguration: 'flowcontrol.apiserver.k8s.io/v1',
  ClusterPolicy: 'kyverno.io/v1',
  ClusterCleanupPolicy: 'kyverno.io/v2',
  GlobalContextEntry: 'kyverno.io/v2alpha1',
  ClusterPolicyReport: 'wgpolicyk8s.io/v1alpha2',
};

function isClusterScoped(kind: string): boolean {
  if (Object.prototype.hasOwnProperty.call(CLUSTER_SCOPED, kind)) return true;
  const slash = kind.lastIndexOf('/');
  if (slash < 0) return false;
  const k = kind.slice(slash + 1);
  return Object.prototype.hasOwnProperty.call(CLUSTER_SCOPED, k) && CLUSTER_SCOPED[k] === kind.slice(0, slash);
}

/** Field path text of a display path: `spec.rules[0].match.any[1]`. */
export function fieldPath(segments: readonly (string | number)[]): string {
  let out = '';
  for (const s of segments) out += typeof s === 'number' ? `[${s}]` : out === '' ? s : `.${s}`;
  return out;
}

/** UserInfo.Validate (ValidateSubjects, then ValidateRoles). `ui` holds roles/clusterRoles/subjects. */
function userInfoErrors(ui: JsonObject | undefined, display: (string | number)[], at: YamlPath): Issue[] {
  const out: Issue[] = [];
  (arr(get(ui, 'subjects')) ?? []).forEach((s, i) => {
    const subject = obj(s);
    const entry = [...display, 'subjects', i];
    const entryAt = [...at, 'subjects', i];
    const kind = str(get(subject, 'kind'));
    if (kind === '') out.push({ message: fieldRequired(fieldPath([...entry, 'kind'])), at: atValue(entryAt) });
    else if (kind !== 'Group' && kind !== 'ServiceAccount' && kind !== 'User') {
      out.push({ message: fieldInvalid(fieldPath([...entry, 'kind']), kind, "kind must be 'User', 'Group', or 'ServiceAccount'"), at: atValue([...entryAt, 'kind']) });
    }
    if (str(get(subject, 'name')) === '') out.push({ message: fieldRequired(fieldPath([...entry, 'name'])), at: atValue(entryAt) });
    if (kind === 'ServiceAccount' && str(get(subject, 'namespace')) === '') {
      out.push({ message: fieldRequired(fieldPath([...entry, 'namespace']), 'namespace is required when Kind is ServiceAccount'), at: atValue(entryAt) });
    }
  });
  (arr(get(ui, 'roles')) ?? []).forEach((r, i) => {
    const role = typeof r === 'string' ? r : '';
    if (role.split(':').length !== 2) {
      out.push({ message: fieldInvalid(fieldPath([...display, 'roles', i]), role, 'Role is expected to be in namespace:name format'), at: atValue([...at, 'roles', i]) });
    }
  });
  return out;
}

/** ResourceDescription.Validate. `display` is the filter's path (upstream omits `.resources`). */
function resourceDescriptionErrors(rd: JsonObject | undefined, display: (string | number)[], at: YamlPath, namespaced: boolean): Issue[] {
  const out: Issue[] = [];
  if (rd === undefined) return out;
  if (str(get(rd, 'name')) !== '' && len(rd, 'names') > 0) {
    out.push({ message: fieldInvalid(fieldPath(display), { raw: goStruct('v1.ResourceDescription') }, 'Both name and names can not be specified together'), at: atKey([...at, 'names']) });
  }
  const selector = obj(get(rd, 'selector'));
  if (selector !== undefined && !selectorContainsWildcard(selector) && selectorRequirements(selector) === 0) {
    out.push({
      message: fieldInvalid(fieldPath([...display, 'selector']), { raw: goStruct('v1.LabelSelector') }, 'The requirements are not specified in selector'),
      at: atKey([...at, 'selector']),
    });
  }
  if (namespaced) {
    if (len(rd, 'namespaces') > 0) {
      out.push({ message: fieldForbidden(fieldPath([...display, 'namespaces']), 'Filtering namespaces not allowed in namespaced policies'), at: atKey([...at, 'namespaces']) });
    }
    (arr(get(rd, 'kinds')) ?? []).forEach((k, i) => {
      if (typeof k === 'string' && isClusterScoped(k)) {
        out.push({ message: fieldForbidden(fieldPath([...display, 'kinds', i]), `Cluster wide resource '${k}' not allowed in namespaced policy`), at: atValue([...at, 'kinds', i]) });
      }
    });
  }
  return out;
}

/** kubeutils.LabelSelectorContainsWildcard: a `*` or `?` in a matchLabels key or value. */
function selectorContainsWildcard(sel: JsonObject): boolean {
  const labels = obj(get(sel, 'matchLabels')) ?? {};
  return Object.entries(labels).some(([k, v]) => /[*?]/.test(k) || (typeof v === 'string' && /[*?]/.test(v)));
}

/** The number of requirements metav1.LabelSelectorAsSelector yields. */
function selectorRequirements(sel: JsonObject): number {
  return Object.keys(obj(get(sel, 'matchLabels')) ?? {}).length + len(sel, 'matchExpressions');
}

/** MatchResources.Validate for `match` or `exclude` of one rule. */
export function matchResourcesErrors(r: RuleRef, block: 'match' | 'exclude', namespaced: boolean): Issue[] {
  const m = obj(get(r.rule, block));
  const out: Issue[] = [];
  if (m === undefined) return out;
  const display = ['spec', 'rules', r.index, block];
  const at = [...r.path, block];
  if (len(m, 'any') > 0 && len(m, 'all') > 0) {
    out.push({ message: fieldInvalid(fieldPath(display), { raw: goStruct('v1.MatchResources') }, "Can't specify any and all together"), at: atKey([...at, 'all']) });
  }
  for (const list of ['any', 'all'] as const) {
    (arr(get(m, list)) ?? []).forEach((f, i) => {
      const filter = obj(f);
      out.push(...userInfoErrors(filter, [...display, list, i], [...at, list, i]));
      out.push(...resourceDescriptionErrors(obj(get(filter, 'resources')), [...display, list, i], [...at, list, i, 'resources'], namespaced));
    });
  }
  out.push(...userInfoErrors(m, display, at));
  out.push(...resourceDescriptionErrors(obj(get(m, 'resources')), display, [...at, 'resources'], namespaced));
  return out;
}

/** Rule.ValidateMatchExcludeConflict: true when match minus exclude is provably empty. */
export function matchExcludeConflict(rule: JsonObject): boolean {
  const ex = obj(get(rule, 'exclude'));
  if (ex === undefined) return false;
  const m = obj(get(rule, 'match')) ?? {};
  if (len(ex, 'all') > 0 || len(m, 'all') > 0) return false;
  if (len(m, 'any') > 0 && len(ex, 'any') > 0) {
    for (const a of arr(get(m, 'any'))!) for (const b of arr(get(ex, 'any'))!) if (jsonEqual(a, b)) return true;
    return false;
  }
  if (isZeroMatchResources(ex)) return false;
  const exRd = obj(get(ex, 'resources'));
  const mRd = obj(get(m, 'resources'));
  const hasAll = (set: string[], items: string[]): boolean => items.every((x) => set.includes(x));
  const exRoles = strings(get(ex, 'roles'));
  if (exRoles.length > 0 && (len(m, 'roles') === 0 || !hasAll(exRoles, strings(get(m, 'roles'))))) return false;
  const exCRoles = strings(get(ex, 'clusterRoles'));
  if (exCRoles.length > 0 && (len(m, 'clusterRoles') === 0 || !hasAll(exCRoles, strings(get(m, 'clusterRoles'))))) return false;
  const exSubjects = arr(get(ex, 'subjects')) ?? [];
  if (exSubjects.length > 0) {
    if (len(m, 'subjects') === 0) return false;
    for (const s of arr(get(m, 'subjects'))!) if (!exSubjects.some((e) => jsonEqual(e, s))) return false;
  }
  const exName = str(get(exRd, 'name'));
  if (exName !== '' && !wildcardMatch(exName, str(get(mRd, 'name')))) return false;
  const exNames = strings(get(exRd, 'names'));
  if (exNames.length > 0) {
    const mNames = strings(get(mRd, 'names'));
    if (mNames.length === 0) return false;
    return mNames.some((mn) => exNames.some((en) => wildcardMatch(en, mn)));
  }
  const exNs = strings(get(exRd, 'namespaces'));
  if (exNs.length > 0 && (len(mRd, 'namespaces') === 0 || !hasAll(exNs, strings(get(mRd, 'namespaces'))))) return false;
  const exKinds = strings(get(exRd, 'kinds'));
  if (exKinds.length > 0 && (len(mRd, 'kinds') === 0 || !hasAll(exKinds, strings(get(mRd, 'kinds'))))) return false;
  for (const key of ['selector', 'namespaceSelector']) {
    const ms = obj(get(mRd, key));
    const es = obj(get(exRd, key));
    if (ms !== undefined && es !== undefined) {
      const exExprs = arr(get(es, 'matchExpressions')) ?? [];
      if (exExprs.length > 0) {
        const mExprs = arr(get(ms, 'matchExpressions')) ?? [];
        if (mExprs.length === 0) return false;
        for (const e of mExprs) if (!exExprs.some((x) => jsonEqual(x, e))) return false;
      }
      const exLabels = obj(get(es, 'matchLabels')) ?? {};
      if (Object.keys(exLabels).length > 0) {
        const mLabels = obj(get(ms, 'matchLabels')) ?? {};
        if (Object.keys(mLabels).length === 0) return false;
        for (const [k, v] of Object.entries(mLabels)) if (exLabels[k] !== v) return false;
      }
    }
  }
  for (const key of ['selector', 'namespaceSelector']) if (isSet(mRd, key) !== isSet(exRd, key)) return false;
  const mAnn = get(mRd, 'annotations');
  const exAnn = get(exRd, 'annotations');
  const mHas = mAnn !== undefined && mAnn !== null;
  const exHas = exAnn !== undefined && exAnn !== null;
  if (mHas && exHas && !jsonEqual(mAnn, exAnn)) return false;
  if (mHas !== exHas) return false;
  return true;
}

/** validate.go validateResources, the match/exclude part: (path after `spec.rules[i].`, error, where). */
export function validateResourceBlocks(r: RuleRef): { path: string; message: string; at: Where } | undefined {
  const ex = obj(get(r.rule, 'exclude'));
  if (ex !== undefined) {
    // UserInfo.Validate of exclude and any+all together are reported earlier by policy.Validate.
    if ((len(ex, 'any') > 0 || len(ex, 'all') > 0) && !isZeroResourceDescription(get(ex, 'resources'))) {
      return { path: 'exclude.', message: "can't specify any/all together with exclude resources", at: atKey([...r.path, 'exclude', 'resources']) };
    }
  }
  const m = obj(get(r.rule, 'match'));
  if ((len(m, 'any') > 0 || len(m, 'all') > 0) && !isZeroResourceDescription(get(m, 'resources'))) {
    return { path: 'match.', message: "can't specify any/all together with match resources", at: atKey([...r.path, 'match', 'resources']) };
  }
  const notSpecified = (at: YamlPath): { path: string; message: string; at: Where } => ({
    path: 'match.resources.',
    message: 'match resources not specified',
    at: atKey(at),
  });
  if (len(m, 'any') > 0 || len(m, 'all') > 0) {
    const list = len(m, 'any') > 0 ? 'any' : 'all';
    const filters = arr(get(m, list))!;
    for (let i = 0; i < filters.length; i++) {
      if (isZeroResourceDescription(get(obj(filters[i]), 'resources'))) return notSpecified([...r.path, 'match', list, i]);
    }
  } else if (isZeroResourceDescription(get(m, 'resources'))) {
    return notSpecified(m === undefined ? [...r.path, 'name'] : [...r.path, 'match']);
  }
  return undefined;
}

const WILDCARD_METADATA_ONLY = 'policy can only deal with the metadata field of the resource if the rule does not match any kind';

/** validate.go validateWildcard for one kinds list. */
function wildcardError(kinds: string[], background: boolean, rule: JsonObject): string | undefined {
  if (!kinds.includes('*')) return undefined;
  if (background) return 'wildcard policy not allowed in background mode. Set spec.background=false to disable background mode for this policy rule ';
  if (kinds.length > 1) return 'wildcard policy can not deal with more than one kind';
  if (hasGenerate(rule) || hasVerifyImages(rule) || isSet(obj(get(rule, 'validate')), 'foreach')) return 'wildcard policy does not support rule type';
  if (hasValidate(rule)) {
    const v = obj(get(rule, 'validate'));
    if ((isSet(v, 'pattern') || isSet(v, 'anyPattern')) && !ruleOnlyDealsWithResourceMetaData(rule)) return WILDCARD_METADATA_ONLY;
  }
  if (hasMutate(rule) && !ruleOnlyDealsWithResourceMetaData(rule)) return WILDCARD_METADATA_ONLY;
  return undefined;
}

/** The kinds loop of validate.go Validate (validateKinds per filter): the first wildcard error of a rule. */
export function validateRuleKinds(r: RuleRef, background: boolean): Issue | undefined {
  const blocks: ['match' | 'exclude', JsonObject | undefined][] = [
    ['match', obj(get(r.rule, 'match')) ?? {}],
    ['exclude', obj(get(r.rule, 'exclude'))],
  ];
  for (const [block, m] of blocks) {
    if (m === undefined) continue;
    for (const list of ['any', 'all'] as const) {
      const filters = arr(get(m, list)) ?? [];
      for (let j = 0; j < filters.length; j++) {
        const kindsAt = [...r.path, block, list, j, 'resources', 'kinds'];
        const err = wildcardError(strings(get(obj(get(obj(filters[j]), 'resources')), 'kinds')), background, r.rule);
        if (err) return { message: `path: spec.rules[${r.index}].${block}.${list}[${j}].kinds: ${err}`, at: atValue(kindsAt) };
      }
    }
    const err = wildcardError(strings(get(obj(get(m, 'resources')), 'kinds')), background, r.rule);
    if (err) return { message: `path: spec.rules[${r.index}].${block}.kinds: ${err}`, at: atValue([...r.path, block, 'resources', 'kinds']) };
  }
  return undefined;
}

/** validate.go: a match filter without kinds (validateMatchKindHelper). Returned without a path prefix upstream. */
export function validateMatchKinds(r: RuleRef): Issue | undefined {
  const m = obj(get(r.rule, 'match'));
  const helper = (at: YamlPath): Issue => ({
    message: ruleOnlyDealsWithResourceMetaData(r.rule)
      ? 'at least one element must be specified in a kind block, the kind attribute is mandatory when working with the resources element'
      : WILDCARD_METADATA_ONLY,
    at: atKey(at),
  });
  const kindsOf = (filter: JsonValue | undefined): number => len(obj(get(obj(filter), 'resources')), 'kinds');
  if (len(m, 'any') > 0 || len(m, 'all') > 0) {
    const list = len(m, 'any') > 0 ? 'any' : 'all';
    const filters = arr(get(m, list))!;
    for (let i = 0; i < filters.length; i++) {
      if (kindsOf(filters[i]) === 0) {
        const rd = obj(get(obj(filters[i]), 'resources'));
        return helper(rd !== undefined ? [...r.path, 'match', list, i, 'resources'] : [...r.path, 'match', list, i]);
      }
    }
    return undefined;
  }
  if (kindsOf(m) === 0) return helper(obj(get(m, 'resources')) !== undefined ? [...r.path, 'match', 'resources'] : [...r.path, 'match']);
  return undefined;
}
