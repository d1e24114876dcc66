/** Reads a MutatingAdmissionPolicy document into the model, with API defaults and validation. */
import type { Diagnostic } from '../../diagnostics/diagnostic.js';
import type { SourceDoc, YamlPath } from '../../io/source.js';
import { readMatchResources } from './match-resources.js';
import type { MapPolicy, Mutation, Named } from './model.js';
import { fieldName, Reader } from './reader.js';
import { validateMatchConditions, validateVariables } from './validate.js';

/** A list of `{name, expression}` (variables, matchConditions); shared with the kyverno-mpol dialect. */
export function readNamed(r: Reader, path: YamlPath): Named[] {
  return r.list(path).flatMap((_, i) => {
    const p = [...path, i];
    const name = r.required([...p, 'name']);
    const text = r.required([...p, 'expression']);
    return name === undefined || text === undefined ? [] : [{ name, text, doc: r.doc, path: [...p, 'expression'] }];
  });
}

/** mutations[]: the patchType discriminates which of applyConfiguration / jsonPatch must be set (shared with kyverno-mpol). */
export function readMutations(r: Reader): Mutation[] {
  const path = ['spec', 'mutations'];
  const list = r.list(path);
  if (list.length === 0) r.report('TM2005', path, `${fieldName(path)}: Required value: mutations must contain at least one item`);
  return list.flatMap((_, i) => {
    const p = [...path, i];
    const patchType = r.str([...p, 'patchType']);
    const ac = r.obj([...p, 'applyConfiguration']);
    const jp = r.obj([...p, 'jsonPatch']);
    if (patchType === undefined) {
      r.report('TM2005', [...p, 'patchType'], `${fieldName([...p, 'patchType'])}: Required value`);
      return [];
    }
    if (patchType !== 'ApplyConfiguration' && patchType !== 'JSONPatch') {
      r.report('TM2002', [...p, 'patchType'], `${fieldName([...p, 'patchType'])}: Unsupported value: ${JSON.stringify(patchType)}: supported values: "ApplyConfiguration", "JSONPatch"`);
      return [];
    }
    const field = patchType === 'ApplyConfiguration' ? 'applyConfiguration' : 'jsonPatch';
    const other = patchType === 'ApplyConfiguration' ? jp : ac;
    if (other) {
      const otherField = patchType === 'ApplyConfiguration' ? 'jsonPatch' : 'applyConfiguration';
      r.report('TM2002', [...p, otherField], `${fieldName([...p, otherField])}: Forbidden: must not be set when patchType is ${patchType}`, true);
    }
    if (!(patchType === 'ApplyConfiguration' ? ac : jp)) {
      r.report('TM2005', [...p, field], `${fieldName([...p, field])}: Required value: must be set when patchType is ${patchType}`);
      return [];
    }
    const text = r.required([...p, field, 'expression']);
    if (text === undefined) return [];
    return [{ patchType, expression: { text, doc: r.doc, path: [...p, field, 'expression'] }, path: p }];
  });
}

export function readPolicy(doc: SourceDoc, diagnostics: Diagnostic[]): MapPolicy | undefined {
  const r = new Reader(doc, diagnostics);
  const before = diagnostics.length;
  const name = r.required(['metadata', 'name']);
  if (!r.obj(['spec'])) {
    r.report('TM2005', ['spec'], 'spec: Required value');
    return undefined;
  }
  let paramKind: MapPolicy['paramKind'];
  if (r.obj(['spec', 'paramKind'])) {
    const apiVersion = r.required(['spec', 'paramKind', 'apiVersion']);
    const kind = r.required(['spec', 'paramKind', 'kind']);
    if (apiVersion !== undefined && kind !== undefined) paramKind = { apiVersion, kind };
  }
  if (!r.obj(['spec', 'matchConstraints'])) r.report('TM2005', ['spec', 'matchConstraints'], 'spec.matchConstraints: Required value');
  const matchConstraints = readMatchResources(r, ['spec', 'matchConstraints'], r.get(['spec', 'matchConstraints']) !== undefined);
  const variables = readNamed(r, ['spec', 'variables']);
  validateVariables(r, variables, ['spec', 'variables']);
  const matchConditions = readNamed(r, ['spec', 'matchConditions']);
  validateMatchConditions(r, matchConditions, ['spec', 'matchConditions']);
  const policy: MapPolicy = {
    name: name ?? '',
    doc,
    matchConstraints,
    variables,
    mutations: readMutations(r),
    failurePolicy: r.oneOf(['spec', 'failurePolicy'], ['Fail', 'Ignore'], 'Fail'),
    matchConditions,
    // "Required" is not a value the API accepts; unset behaves as Never.
    reinvocationPolicy: r.oneOf(['spec', 'reinvocationPolicy'], ['Never', 'IfNeeded'], 'Never'),
  };
  if (paramKind) policy.paramKind = paramKind;
  return diagnostics.length > before && diagnostics.slice(before).some((d) => d.severity === 'error') ? undefined : policy;
}
