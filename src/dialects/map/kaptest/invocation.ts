/**
 * The IR policies one kaptest test runs: the suite's MutatingAdmissionPolicy with the binding kaptest gives it
 * (pfnet/kaptest mutation.go `dispatchImpl`: a binding that matches everything — Equivalent, empty selectors —
 * whose paramRef names the test's param), or the suite's named `binding` from the policy files, parsed by the
 * MAP dialect with the param object as the only parameter candidate. Parsed once per (policy, binding, param).
 */
import { hasErrors, type Diagnostic } from '../../../diagnostics/diagnostic.js';
import { renderDiagnosticLine } from '../../../diagnostics/render.js';
import type { Span } from '../../../diagnostics/span.js';
import { copyObject, isJsonObject, type JsonObject } from '../../../ir/json.js';
import type { Policy } from '../../../ir/nodes.js';
import type { SourceDoc } from '../../../io/source.js';
import { dialectByName } from '../../registry.js';
import { BINDING_KIND } from '../model.js';
import { isBindingDoc, isPolicyDoc } from '../recognize.js';
import type { MapTestSuite, ResourceDoc } from './model.js';

/** The name of the binding kaptest synthesizes (its own has none); IR policy ids read `<policy>/kaptest`. */
export const SYNTHESIZED_BINDING = 'kaptest';

export type Prepared = { ok: true; policies: Policy[]; policyDoc: SourceDoc } | { ok: false; reason: string; span?: Span };

function nameOf(doc: SourceDoc): string | undefined {
  const v = doc.value;
  return isJsonObject(v) && isJsonObject(v.metadata) && typeof v.metadata.name === 'string' ? v.metadata.name : undefined;
}

/** loader.go keeps MAPs in a map by name: the last definition wins. */
export function findPolicyDoc(docs: readonly SourceDoc[], name: string): SourceDoc | undefined {
  return docs.filter((d) => isPolicyDoc(d) && nameOf(d) === name).pop();
}

/** `spec.paramKind` of a policy document, when it has one. */
export function paramKindOf(doc: SourceDoc): { apiVersion: string; kind: string } | undefined {
  const spec = isJsonObject(doc.value) && isJsonObject(doc.value.spec) ? doc.value.spec : undefined;
  const pk = spec && isJsonObject(spec.paramKind) ? spec.paramKind : undefined;
  return pk && typeof pk.apiVersion === 'string' && typeof pk.kind === 'string' ? { apiVersion: pk.apiVersion, kind: pk.kind } : undefined;
}

/** A document with a value of our making whose spans point at a place the user wrote (the suite, the binding). */
function derivedDoc(value: JsonObject, spans: SourceDoc | Span, file: string): SourceDoc {
  if ('spanOf' in spans) {
    return { file: spans.file, index: spans.index, value, spanOf: (p) => spans.spanOf(p), keySpanOf: (p) => spans.keySpanOf(p), spanInString: (p, s, e) => spans.spanInString(p, s, e) };
  }
  return { file, index: 0, value, spanOf: () => spans, keySpanOf: () => spans, spanInString: () => spans };
}

function paramRefOf(param: ResourceDoc): JsonObject {
  const md = isJsonObject(param.value.metadata) ? param.value.metadata : {};
  const ref: JsonObject = { name: typeof md.name === 'string' ? md.name : '' };
  if (typeof md.namespace === 'string' && md.namespace !== '') ref.namespace = md.namespace;
  return ref;
}

export class Invocations {
  private readonly cache = new Map<string, Prepared>();

  constructor(
    private readonly policyDocs: readonly SourceDoc[],
    private readonly manifestFile: string,
  ) {}

  /** The parsed invocation for the suite and the test's param object (undefined when the policy has none). */
  prepare(suite: MapTestSuite, param: ResourceDoc | undefined): Prepared {
    const key = JSON.stringify([suite.policy, suite.binding ?? null, param ? [param.doc.file, param.doc.index] : null]);
    let p = this.cache.get(key);
    if (!p) this.cache.set(key, (p = this.build(suite, param)));
    return p;
  }

  private build(suite: MapTestSuite, param: ResourceDoc | undefined): Prepared {
    const policyDoc = findPolicyDoc(this.policyDocs, suite.policy);
    if (!policyDoc) return { ok: false, reason: `policy not found: no MutatingAdmissionPolicy named ${JSON.stringify(suite.policy)} in the manifest's policies`, span: suite.span };
    const binding = this.bindingDoc(suite, policyDoc, param);
    if ('reason' in binding) return binding;
    const siblings = param ? [param.doc] : [];
    const parsed = dialectByName('map')!.parse([policyDoc, binding], { siblings });
    if (hasErrors(parsed.diagnostics)) return { ok: false, reason: `policy ${suite.policy} did not parse: ${firstError(parsed.diagnostics)}` };
    if (parsed.policies.length === 0) return { ok: false, reason: `policy ${suite.policy} gave no invocation (check the binding's policyName and paramRef)`, span: suite.span };
    return { ok: true, policies: parsed.policies, policyDoc };
  }

  private bindingDoc(suite: MapTestSuite, policyDoc: SourceDoc, param: ResourceDoc | undefined): SourceDoc | { ok: false; reason: string; span: Span } {
    const pv = policyDoc.value as JsonObject;
    if (suite.binding === undefined) {
      const spec: JsonObject = { policyName: suite.policy };
      if (param) spec.paramRef = paramRefOf(param);
      const value: JsonObject = { apiVersion: pv.apiVersion as string, kind: BINDING_KIND, metadata: { name: SYNTHESIZED_BINDING }, spec };
      return derivedDoc(value, suite.span, this.manifestFile);
    }
    const doc = this.policyDocs.filter((d) => isBindingDoc(d) && nameOf(d) === suite.binding).pop();
    if (!doc) return { ok: false, reason: `binding not found: no MutatingAdmissionPolicyBinding named ${JSON.stringify(suite.binding)} in the manifest's policies`, span: suite.span };
    const spec = isJsonObject((doc.value as JsonObject).spec) ? ((doc.value as JsonObject).spec as JsonObject) : {};
    if (spec.policyName !== suite.policy) {
      return { ok: false, reason: `binding ${suite.binding} binds policy ${JSON.stringify(spec.policyName ?? '')}, not ${suite.policy}`, span: suite.span };
    }
    if (!param) return doc;
    // The test's param replaces the binding's paramRef, as kaptest points its binding at the test's param.
    const value = copyObject(doc.value as JsonObject);
    const newSpec = copyObject(spec);
    newSpec.paramRef = { ...paramRefOf(param), parameterNotFoundAction: 'Deny' };
    value.spec = newSpec;
    return derivedDoc(value, doc, doc.file);
  }
}

function firstError(diagnostics: readonly Diagnostic[]): string {
  const d = diagnostics.find((x) => x.severity === 'error') ?? diagnostics[0];
  return d ? renderDiagnosticLine(d) : 'no diagnostic';
}
