/** What the Kyverno → MAP compiler tests share: translate and read back, the refusal text, the outcome. */
import { expect } from 'vitest';
import { compile, MAP_VARIABLES } from '../../../src/cel/index.js';
import { kyvernoDialect } from '../../../src/dialects/kyverno/index.js';
import { generateMap } from '../../../src/dialects/map/generate.js';
import { mapDialect } from '../../../src/dialects/map/index.js';
import { builtinDecodeError } from '../../../src/engines/ssa.js';
import { apply } from '../../../src/interpreter/index.js';
import { loadYamlText } from '../../../src/io/yaml-load.js';
import { parsePolicyDocs, translate } from '../../../src/pipeline.js';
import { isJsonObject, type JsonObject, type JsonValue } from '../../../src/ir/json.js';
import { gvkOf } from '../../../src/k8s/resources.js';
import type { Policy } from '../../../src/ir/nodes.js';
import { docs } from './support.js';

/** The policies translated to MAP (every JSON patch expression compiling as such) and read back. */
export function toMap(policies: Policy[]): Policy[] {
  const g = generateMap(policies);
  expect(g.diagnostics.filter((d) => d.severity === 'error').map((d) => d.message)).toEqual([]);
  for (const doc of g.documents as JsonObject[]) {
    for (const m of ((doc.spec as JsonObject).mutations as JsonObject[] | undefined) ?? []) {
      expect(compile(String((m.jsonPatch as JsonObject).expression), { expect: 'JSONPatchList' }).ok).toBe(true);
    }
  }
  const back = mapDialect.parse(docs(g.text));
  expect(back.diagnostics.filter((d) => d.severity === 'error')).toEqual([]);
  return back.policies;
}

/** The errors MAP generation reports, one per line. */
export function refusal(policies: Policy[]): string {
  return generateMap(policies)
    .diagnostics.filter((d) => d.severity === 'error')
    .map((d) => d.message)
    .join('\n');
}

/**
 * The object a CREATE ends with in a cluster, or `{ denied: true }`: a Kyverno result that does not decode into
 * its built-in kind (a number where a label's string goes) is refused by kube-apiserver's decode of the
 * webhook's patched object, as a MAP one is at the decode of its JSONPatch result.
 */
export function outcome(policies: Policy[], object: JsonValue): unknown {
  const r = apply(policies, { object, operation: 'CREATE' });
  if (r.allowed === false || !('object' in r) || r.object === undefined) return { denied: true };
  const decoded = r.object;
  const gvk = isJsonObject(decoded) ? gvkOf(decoded) : undefined;
  return gvk !== undefined && builtinDecodeError(decoded, gvk) !== undefined ? { denied: true } : decoded;
}

/** A ClusterPolicy `name` of one rule on Pods mutating with the strategic merge `patch` (YAML), parsed. */
export function smpPolicy(name: string, patch: string): Policy[] {
  const text = `apiVersion: kyverno.io/v1
kind: ClusterPolicy
metadata: {name: ${name}}
spec:
  rules:
  - name: r
    match:
      any:
      - resources:
          kinds: [Pod]
    mutate:
      patchStrategicMerge:
${patch.replace(/^/gm, '        ')}`;
  return kyvernoPolicies(text);
}

/** Kyverno policy YAML parsed, with no error. */
export function kyvernoPolicies(text: string): Policy[] {
  const r = kyvernoDialect.parse(docs(text));
  expect(r.diagnostics.filter((d) => d.severity === 'error')).toEqual([]);
  return r.policies;
}

/**
 * A ClusterPolicy `name` of one rule `r` on Pods whose other keys (context, preconditions, mutate) are `rule`
 * (YAML), parsed; without autogen rules unless `autogen` (then Kyverno's default controllers get their own).
 */
export function podRule(name: string, rule: string, autogen = false): Policy[] {
  return kyvernoPolicies(`apiVersion: kyverno.io/v1
kind: ClusterPolicy
metadata:
  name: ${name}${autogen ? '' : '\n  annotations: {pod-policies.kyverno.io/autogen-controllers: none}'}
spec:
  rules:
  - name: r
    match:
      any:
      - resources:
          kinds: [Pod]
${rule.replace(/^/gm, '    ')}`);
}

/** The policies translated to `to` with no error (every variable compiling as CEL) and read back. */
export function translatedTo(source: Policy[], to: 'map' | 'kyverno-mpol'): Policy[] {
  const g = translate(source, to, 'error');
  expect(g.diagnostics.filter((d) => d.severity === 'error').map((d) => d.message)).toEqual([]);
  for (const doc of g.documents as JsonObject[]) {
    const spec = doc.spec as JsonObject;
    for (const v of (spec.variables as JsonObject[] | undefined) ?? []) expect(compile(String(v.expression), {}).ok, String(v.name)).toBe(true);
  }
  const loaded = loadYamlText('out.yaml', g.text);
  if (!loaded.ok) throw new Error('generated YAML does not load');
  const back = parsePolicyDocs(loaded.value);
  expect(back.diagnostics.filter((d) => d.severity === 'error')).toEqual([]);
  return back.policies;
}

/** Whether the condition `cel` (written over `object.x`) holds with `value` as `object.x`. */
export function celMatches(cel: string, value: JsonValue): boolean {
  const program = compile(cel, { variables: MAP_VARIABLES });
  if (!program.ok) throw new Error(`${cel}: ${program.diagnostics[0]!.message}`);
  const out = program.value.eval({ object: { x: value } });
  if (!out.ok) throw new Error(`${cel}: ${out.error}`);
  return out.value === true;
}
