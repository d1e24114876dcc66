/** Reads MutatingAdmissionPolicyBinding documents. */
import type { Diagnostic } from '../../diagnostics/diagnostic.js';
import type { SourceDoc } from '../../io/source.js';
import { readMatchResources, readSelector } from './match-resources.js';
import type { MapBinding, ParamRef } from './model.js';
import { Reader } from './reader.js';

export function readBinding(doc: SourceDoc, diagnostics: Diagnostic[]): MapBinding | undefined {
  const r = new Reader(doc, diagnostics);
  const before = diagnostics.length;
  const name = r.required(['metadata', 'name']);
  const policyName = r.required(['spec', 'policyName']);
  const binding: MapBinding = { name: name ?? '', doc, policyName: policyName ?? '' };
  if (r.obj(['spec', 'paramRef'])) {
    const p = ['spec', 'paramRef'];
    const ref: ParamRef = { parameterNotFoundAction: r.oneOf([...p, 'parameterNotFoundAction'], ['Deny', 'Allow'], 'Deny') };
    const refName = r.str([...p, 'name']);
    const namespace = r.str([...p, 'namespace']);
    const selector = readSelector(r, [...p, 'selector']);
    if (refName) ref.name = refName;
    if (namespace) ref.namespace = namespace;
    if (selector) ref.selector = selector;
    // validateParamRef reports the exclusion on both fields.
    if (refName && selector) {
      r.report('TM2002', [...p, 'name'], 'spec.paramRef.name: Forbidden: name and selector are mutually exclusive');
      r.report('TM2002', [...p, 'selector'], 'spec.paramRef.selector: Forbidden: name and selector are mutually exclusive');
    }
    if (!refName && !selector) r.report('TM2005', p, 'spec.paramRef: Required value: one of name or selector must be specified');
    binding.paramRef = ref;
  }
  if (r.obj(['spec', 'matchResources'])) binding.matchResources = readMatchResources(r, ['spec', 'matchResources'], false);
  return diagnostics.slice(before).some((d) => d.severity === 'error') ? undefined : binding;
}
