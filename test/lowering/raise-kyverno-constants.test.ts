/**
 * Kyverno values that do not depend on the request: patches whose variables read only constant context
 * entries are evaluated at translation time, and loops over literal lists with a constant body run it once.
 */
import { describe, expect, it } from 'vitest';
import { kyvernoDialect } from '../../src/dialects/kyverno/index.js';
import type { JsonValue } from '../../src/ir/json.js';
import type { Policy } from '../../src/ir/nodes.js';
import { loadYamlText } from '../../src/io/yaml-load.js';
import { RAISE_KYVERNO } from '../../src/lowering/index.js';
import { collapseConstantLoops, foldKyvernoConstants } from '../../src/lowering/raise-kyverno-constants.js';
import { body, run } from './support.js';

function kyverno(rules: string): Policy {
  const text = `apiVersion: kyverno.io/v1
kind: ClusterPolicy
metadata: {name: p}
spec:
  rules:
${rules}`;
  const docs = loadYamlText('p.yaml', text);
  if (!docs.ok) throw new Error(docs.diagnostics.map((d) => d.message).join('\n'));
  const parsed = kyvernoDialect.parse(docs.value, {});
  if (parsed.diagnostics.some((d) => d.severity === 'error')) throw new Error(parsed.diagnostics.map((d) => d.message).join('\n'));
  return parsed.policies[0]!;
}

function raised(p: Policy): Policy {
  let out = [p];
  for (const r of RAISE_KYVERNO) out = r(out);
  return out[0]!;
}

const CONFIG_MAPS: JsonValue[] = [
  { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'one', namespace: 'dev' } },
  { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'two', namespace: 'dev' }, data: { keep: 'x', one: 'old' } },
];

function sameObjects(before: Policy, after: Policy): void {
  for (const o of CONFIG_MAPS) {
    const want = run(before, o);
    expect(want).not.toBe('error');
    expect(run(after, o), JSON.stringify(o)).toEqual(want);
  }
}

const RULE = (name: string, context: string, patch: string, list = "['dummy']") => `  - name: ${name}
    match: {all: [{resources: {kinds: [v1/ConfigMap]}}]}
${context}    mutate:
      foreach:
      - list: "${list}"
        patchStrategicMerge:
          data: ${patch}
`;

describe('fold Kyverno constants', () => {
  const FOLDED: [string, string, string][] = [
    ['a literal context value', RULE('one', '    context:\n    - {name: var1, variable: {value: AAA}}\n', "{one: \"{{ var1 || 'unset' }}\"}"), 'set object.data.one = "AAA"'],
    [
      'a deferred entry, resolved where it stands',
      RULE('one', '    context:\n    - {name: foo, variable: {value: foo}}\n    - {name: one, variable: {jmesPath: foo}}\n    - {name: foo, variable: {value: baz}}\n', '{one: "{{ one }}"}'),
      'set object.data.one = "foo"',
    ],
    ['an unknown name (null in every request)', RULE('two', '', '{two: "{{ to_string(var) }}"}'), 'set object.data.two = "null"'],
  ];
  for (const [what, rules, want] of FOLDED) {
    it(`evaluates ${what}, and the loop over a literal list runs its body once`, () => {
      const before = kyverno(rules);
      const after = raised(before);
      // The bindings stay (nothing reads them any more; the generator passes over them).
      expect(body(after).split('\n').filter((l) => !l.startsWith('let ')).join('\n')).toBe(want);
      sameObjects(before, after);
    });
  }

  const KEPT: [string, string][] = [
    ['a value read from the request', RULE('one', '', '{one: "{{ request.object.metadata.name }}"}')],
    ['a context entry computed from the request', RULE('one', '    context:\n    - {name: objname, variable: {jmesPath: request.object.metadata.name}}\n', '{one: "{{ objname }}"}')],
    ['a function that changes between calls', RULE('one', '', "{one: \"{{ random('[a-z]{4}') }}\"}")],
    ['the loop element', RULE('one', '', '{one: "{{ element }}"}')],
  ];
  for (const [what, rules] of KEPT) {
    it(`keeps ${what}`, () => {
      const p = kyverno(rules);
      expect(foldKyvernoConstants([p])[0]).toBe(p);
    });
  }

  it('keeps a loop over a list read from the request, and a loop whose body still reads the element', () => {
    const overObject = raised(kyverno(RULE('one', '', '{one: x}', 'request.object.metadata.labels | keys(@)')));
    expect(body(overObject)).toContain('forEach');
    const reads = kyverno(RULE('one', '', '{one: "{{ element }}"}'));
    expect(collapseConstantLoops([reads])[0]).toBe(reads);
  });

  it('drops a loop over an empty literal list', () => {
    const p = raised(kyverno(RULE('one', '', '{one: x}', '[]')));
    expect(body(p)).toBe('');
  });
});
