/**
 * Strict decoding and schema validation as kube-apiserver applies them to transmute's policy kinds: the
 * apiserver's wording, the position of the offending key or value, and the stage order.
 */
import { describe, expect, it } from 'vitest';
import { loadYamlText } from '../../src/io/yaml-load.js';
import { structuralDiagnostics } from '../../src/validate/admission.js';
import { goValue, fieldPath } from '../../src/validate/field-error.js';
import { schemaFor } from '../../src/validate/schema-table.js';

function check(text: string): string[] {
  const docs = loadYamlText('p.yaml', text);
  if (!docs.ok) throw new Error('does not load');
  return docs.value.flatMap((d) => structuralDiagnostics(d)).map((d) => `${d.span!.line}:${d.span!.col} ${d.code} ${d.message}`);
}

const CPOL = (rule: string, spec = ''): string => `apiVersion: kyverno.io/v1
kind: ClusterPolicy
metadata:
  name: p
spec:
${spec}  rules:
  - name: r
${rule}`;

const MATCH_PODS = `    match:
      any:
      - resources:
          kinds: [Pod]
`;

describe('strict decoding', () => {
  it('refuses an unknown field with its full path, at the key', () => {
    expect(check(CPOL(`    match:\n      any:\n      - resources:\n          kind: [Pod]\n    mutate:\n      patchStrategicMerge: {metadata: {labels: {a: b}}}\n`))).toEqual([
      '11:11 TM2008 strict decoding error: unknown field "spec.rules[0].match.any[0].resources.kind"',
    ]);
  });

  it('leaves x-kubernetes-preserve-unknown-fields regions free-form (patch bodies)', () => {
    expect(check(CPOL(`${MATCH_PODS}    mutate:\n      patchStrategicMerge:\n        spec:\n          anything: {goes: here}\n`))).toEqual([]);
  });

  it('refuses an unknown ObjectMeta field and an unknown top-level field', () => {
    expect(check(`apiVersion: mutations.gatekeeper.sh/v1\nkind: Assign\nmetadata:\n  name: a\n  labelz: {}\nspecs: {}\n`)).toEqual([
      '5:3 TM2008 strict decoding error: unknown field "metadata.labelz"',
      '6:1 TM2008 strict decoding error: unknown field "specs"',
    ]);
  });

  it('decodes built-in kinds strictly: unknown fields and JSON types of a MutatingAdmissionPolicy', () => {
    const map = `apiVersion: admissionregistration.k8s.io/v1
kind: MutatingAdmissionPolicy
metadata:
  name: p
spec:
  failurPolicy: Fail
  matchConditions: {name: x}
`;
    expect(check(map)).toEqual([
      '6:3 TM2008 strict decoding error: unknown field "spec.failurPolicy"',
      '7:20 TM2008 json: cannot unmarshal object into Go struct field spec.matchConditions of type slice',
    ]);
  });

  it('warns about a key given twice but admits the document, as kubectl and chainsaw do', () => {
    // kubectl and chainsaw turn YAML into JSON on the client, where the last value wins, so the API server's
    // strict decoding never sees the duplicate (kubernetes/kubernetes#125885; the chainsaw case
    // mutating-policies/reporting/events-violation relies on it). The loader's TM1006 says which value won.
    const loaded = loadYamlText('p.yaml', `apiVersion: mutations.gatekeeper.sh/v1\nkind: Assign\nmetadata:\n  name: a\nspec:\n  location: spec.dnsPolicy\n  parameters: {assign: {value: None}}\n  location: spec.priorityClassName\n`);
    expect(loaded.ok && loaded.diagnostics.map((d) => `${d.severity} ${d.code}`)).toEqual(['warning TM1006']);
    if (loaded.ok) expect(structuralDiagnostics(loaded.value[0]!)).toEqual([]);
  });

  it('stops at decoding: schema errors are not reported for a document that does not decode', () => {
    expect(check(CPOL(`    match:\n      any:\n      - resources:\n          kinds: Pod\n          kind: [Pod]\n`))).toEqual([
      '12:11 TM2008 strict decoding error: unknown field "spec.rules[0].match.any[0].resources.kind"',
    ]);
  });
});

describe('schema validation', () => {
  it('reports a wrong type as kube-openapi does', () => {
    expect(check(CPOL(`    match:\n      any:\n      - resources:\n          kinds: Pod\n`))).toEqual([
      '11:18 TM2009 spec.rules[0].match.any[0].resources.kinds: Invalid value: "string": spec.rules[0].match.any[0].resources.kinds in body must be of type array: "string"',
    ]);
  });

  it('reports enums, required fields and patterns with the apiserver wording', () => {
    expect(check(CPOL(MATCH_PODS, '  failurePolicy: Sometimes\n'))).toEqual([
      '6:18 TM2009 spec.failurePolicy: Unsupported value: "Sometimes": supported values: "Ignore", "Fail"',
    ]);
    expect(check(`apiVersion: mutations.gatekeeper.sh/v1\nkind: ModifySet\nmetadata:\n  name: m\nspec:\n  location: spec.x\n  parameters:\n    operation: replace\n    values: {fromList: [a]}\n`)).toEqual([
      '8:16 TM2009 spec.parameters.operation: Unsupported value: "replace": supported values: "merge", "prune"',
    ]);
  });

  it('treats a null as absent (pruned before validation) and honours defaults for required fields', () => {
    expect(check(CPOL(`${MATCH_PODS}    exclude: null\n`))).toEqual([]);
  });

  it('checks oneOf as kube-openapi reports it (a context entry needs exactly one source)', () => {
    expect(check(CPOL(`    context:\n    - name: cm\n${MATCH_PODS}`))).toEqual([
      '9:7 TM2009 <nil>: Invalid value: "": "spec.rules[0].context[0]" must validate one and only one schema (oneOf). Found none valid',
      '9:7 TM2009 spec.rules[0].context[0].configMap: Required value',
    ]);
  });

  it('validates the name as a DNS-1123 subdomain and the labels', () => {
    expect(check(`apiVersion: mutations.gatekeeper.sh/v1\nkind: Assign\nmetadata:\n  name: goodAssign\n  labels: {team: "a b"}\nspec:\n  location: spec.x\n  parameters: {assign: {value: 1}}\n`)).toEqual([
      "4:9 TM2009 metadata.name: Invalid value: \"goodAssign\": a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')",
      "5:18 TM2009 metadata.labels: Invalid value: \"a b\": a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyValue',  or 'my_value',  or '12345', regex used for validation is '(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?')",
    ]);
    expect(check(`apiVersion: mutations.gatekeeper.sh/v1\nkind: Assign\nmetadata: {}\nspec:\n  location: spec.x\n  parameters: {assign: {value: 1}}\n`)).toEqual([
      '3:11 TM2009 metadata.name: Required value: name or generateName is required',
    ]);
  });

  it('refuses a known kind in a version the API server does not serve', () => {
    expect(check(`apiVersion: mutations.gatekeeper.sh/v1\nkind: AssignImage\nmetadata:\n  name: a\nspec:\n  location: spec.containers[name:*].image\n  parameters: {assignTag: ":v1"}\n`)).toEqual([
      '1:13 TM2001 no matches for kind "AssignImage" in version "mutations.gatekeeper.sh/v1" (served: v1alpha1)',
    ]);
  });

  it('knows Policy and NamespacedMutatingPolicy by the schema they share, namespaced', () => {
    expect(schemaFor('kyverno.io/v1', 'Policy')?.kind.scope).toBe('Namespaced');
    expect(schemaFor('kyverno.io/v1', 'ClusterPolicy')?.kind.scope).toBe('Cluster');
    expect(schemaFor('policies.kyverno.io/v1', 'NamespacedMutatingPolicy')?.kind.scope).toBe('Namespaced');
    expect(schemaFor('example.com/v1', 'Widget')).toBeUndefined();
  });
});

describe('field errors', () => {
  it('prints paths and values as apimachinery does', () => {
    expect(fieldPath(['spec', 'rules', 0, 'match', 'any', 1])).toBe('spec.rules[0].match.any[1]');
    expect(goValue('a"b\n')).toBe('"a\\"b\\n"');
    expect(goValue(3)).toBe('3');
    expect(goValue({ name: 'a', b: 1 })).toBe('map[string]interface {}{"b":1, "name":"a"}');
  });
});
