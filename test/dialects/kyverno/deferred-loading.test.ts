/**
 * Kyverno's deferred loading (src/dialects/kyverno/deferred-loading.ts): a query loads every context entry,
 * and `images`, that its text mentions, whether or not its evaluation reads them, and fails where a load fails.
 */
import { describe, expect, it } from 'vitest';
import { mentions } from '../../../src/dialects/kyverno/deferred-loading.js';
import { apply } from '../../../src/interpreter/index.js';
import type { JsonObject } from '../../../src/ir/json.js';
import type { Policy } from '../../../src/ir/nodes.js';
import { kyvernoPolicies as parse } from '../map/kyverno-support.js';

/** The context entry `bad`, whose load fails (its path is missing and it has no default). */
const BAD = `    - name: bad
      variable:
        jmesPath: request.object.spec.nothing
`;

/** One Pod rule with the context entries `context`, then `rule` (its preconditions and mutate). */
function policy(rule: string, context = BAD): Policy[] {
  return parse(`apiVersion: kyverno.io/v1
kind: ClusterPolicy
metadata:
  name: deferred
  annotations: {pod-policies.kyverno.io/autogen-controllers: none}
spec:
  rules:
  - name: r
    match:
      any:
      - resources:
          kinds: [Pod]
    context:
${context}${rule}`);
}

/** A mutate setting the label `seen` to `value`. */
function labelling(value: string): string {
  return `    mutate:
      patchStrategicMerge:
        metadata:
          labels:
            seen: "${value}"
`;
}

function labelled(value: string): Policy[] {
  return policy(labelling(value));
}

function pod(image = 'nginx'): JsonObject {
  return { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'p', labels: { team: 'a' } }, spec: { containers: [{ name: 'c', image }] } };
}

function run(policies: Policy[], object = pod()) {
  return apply(policies, { object, operation: 'CREATE' });
}

describe("Kyverno's deferred loading", () => {
  it("matches a name as NewDeferredLoader's pattern does", () => {
    expect(mentions('a || cm', 'cm')).toBe(true);
    expect(mentions("contains(name, 'cm')", 'cm')).toBe(true);
    expect(mentions('items[?cm]', 'cm')).toBe(true);
    expect(mentions('cm.data', 'cm')).toBe(true);
    expect(mentions('cm-x', 'cm')).toBe(true);
    // After a dot, or inside a longer word, the name is not the loader's.
    expect(mentions('request.cm', 'cm')).toBe(false);
    expect(mentions('cm2', 'cm')).toBe(false);
    expect(mentions('cm_x', 'cm')).toBe(false);
    expect(mentions('xcm', 'cm')).toBe(false);
  });

  it('loads an entry a query mentions in a branch it never evaluates, and fails with its load', () => {
    const r = run(labelled('{{ request.object.metadata.labels.team || bad }}'));
    expect(r.allowed).toBe(false);
    expect(r.diagnostics.map((d) => d.message).join('\n')).toContain('request.object.spec.nothing');
  });

  it('loads an entry a string literal names', () => {
    expect(run(labelled("{{ contains(request.object.metadata.name, 'bad') }}")).allowed).toBe(false);
  });

  it('leaves an entry the text does not mention as a name alone', () => {
    const r = run(labelled('{{ request.object.metadata.bad || request.object.metadata.labels.team }}'));
    expect(r.allowed).toBe(true);
    expect((r.object as JsonObject).metadata).toMatchObject({ labels: { seen: 'a' } });
  });

  it("fails the query with the load's error, which a variable with a default catches (loaders/variable.go)", () => {
    const withDefault = policy(
      labelling('{{ named }}'),
      `${BAD}    - name: named
      variable:
        jmesPath: request.object.metadata.name || bad
        default: fallback
`,
    );
    const r = run(withDefault);
    expect(r.allowed).toBe(true);
    expect((r.object as JsonObject).metadata).toMatchObject({ labels: { seen: 'fallback' } });
  });

  it('stops where a load needs data the run lacks, rather than take a default Kyverno would not take', () => {
    const offline = policy(
      labelling('{{ base }}'),
      `    - name: imageData
      imageRegistry:
        reference: "{{ request.object.spec.containers[0].image }}"
    - name: base
      variable:
        jmesPath: imageData.manifest.annotations.base
        default: ''
`,
    );
    const r = run(offline);
    expect(r.allowed).toBe(false);
    expect(r.diagnostics.map((d) => d.message).join('\n')).toContain('unsupported offline');
  });

  it('loads from a precondition that reads the object only', () => {
    const rule = (key: string) =>
      policy(`    preconditions:
      all:
      - key: "${key}"
        operator: Equals
        value: a
${labelling('yes')}`);
    expect(run(rule('{{ request.object.metadata.labels.team }}')).allowed).toBe(true);
    expect(run(rule("{{ request.object.metadata.labels.team || 'bad' }}")).allowed).toBe(false);
  });

  it('loads `images` where the text mentions them, which fails where the extraction fails', () => {
    const mention = labelled("{{ to_string(length('images')) }}");
    expect(run(mention).allowed).toBe(true);
    const failed = run(mention, pod('Bad:Image'));
    expect(failed.allowed).toBe(false);
    expect(failed.diagnostics.map((d) => d.message).join('\n')).toContain("invalid image 'Bad:Image'");
    expect(run(labelled("{{ to_string(length('pictures')) }}"), pod('Bad:Image')).allowed).toBe(true);
  });
});
