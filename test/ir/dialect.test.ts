import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import type { Diagnostic } from '../../src/diagnostics/diagnostic.js';
import { irDialect } from '../../src/dialects/ir/index.js';
import type { Policy } from '../../src/ir/nodes.js';
import { normalizePolicies } from '../../src/ir/normalize.js';
import { loadYamlText } from '../../src/io/yaml-load.js';
import { randomPolicy, rng } from './arbitrary.js';
import { sourceDoc, sourceDocs } from './support.js';

const fixture = (name: string) => readFileSync(new URL(`./fixtures/${name}`, import.meta.url), 'utf8');

function parseYaml(text: string, file = 'p.yaml'): { policies: Policy[]; diagnostics: Diagnostic[] } {
  return irDialect.parse(sourceDocs(file, text));
}

function policies(text: string): Policy[] {
  const r = parseYaml(text);
  expect(r.diagnostics).toEqual([]);
  return r.policies;
}

const HEADER = 'apiVersion: transmute.dev/v1alpha1\nkind: Policy\nmetadata:\n  name: p\n';

/** The first diagnostic of a policy whose only rule has `body` (YAML lines indented by 8). */
function bodyError(body: string): Diagnostic {
  const r = parseYaml(`${HEADER}spec:\n  rules:\n    - name: r\n      body:\n${body}`);
  expect(r.policies).toEqual([]);
  expect(r.diagnostics.length).toBeGreaterThan(0);
  return r.diagnostics[0]!;
}

describe('ir dialect', () => {
  it('recognizes transmute.dev/v1alpha1 documents only', () => {
    expect(irDialect.recognizes(sourceDoc('a.yaml', HEADER))).toBe(true);
    expect(irDialect.recognizes(sourceDoc('a.yaml', 'apiVersion: kyverno.io/v1\nkind: ClusterPolicy\n'))).toBe(false);
    expect(irDialect.recognizes(sourceDoc('a.yaml', '- 1\n'))).toBe(false);
  });

  it('parses every construct without diagnostics', () => {
    const ps = policies(fixture('every-construct.yaml'));
    expect(ps.map((p) => p.id)).toEqual(['add-team-label', 'gatekeeper-like', 'object']);
    expect(ps[1]!.semantics).toEqual({ order: 'fixpoint', maxPasses: 4 });
  });

  it('gives every node the span of its YAML node', () => {
    const [p] = policies(fixture('every-construct.yaml'));
    const set = p!.rules[0]!.body[0]!;
    expect(set.origin).toMatchObject({ file: 'p.yaml', line: 37, col: 11, dialect: 'ir' });
    expect(set.kind === 'set' && set.path.origin).toEqual({ file: 'p.yaml', line: 37, col: 16, endLine: 37, endCol: 49, dialect: 'ir' });
    expect(set.kind === 'set' && set.value.origin).toMatchObject({ line: 38, col: 18 });
    const celSet = p!.rules[0]!.body[12]!;
    expect(celSet.kind === 'set' && celSet.value.kind === 'cel' && celSet.value.expr.origin).toEqual({
      file: 'p.yaml',
      line: 104,
      col: 18,
      endLine: 104,
      endCol: 44,
      dialect: 'ir',
    });
    expect(p!.guards[0]!.origin).toMatchObject({ line: 24, col: 7 });
    expect(p!.rules[1]!.origin).toMatchObject({ line: 118, col: 7 });
    expect(p!.match.origin).toMatchObject({ line: 10, col: 5 });
  });

  it('generates YAML that parses back to the same IR, and is stable', () => {
    const ps = policies(fixture('every-construct.yaml'));
    const out = irDialect.generate(ps);
    expect(out.diagnostics).toEqual([]);
    expect(out.documents).toHaveLength(3);
    const again = policies(out.text);
    expect(normalizePolicies(again)).toEqual(normalizePolicies(ps));
    expect(irDialect.generate(again).text).toBe(out.text);
  });

  it('writes kubectl-style blocks, inline empty lists, and quotes only where YAML needs them', () => {
    const text = `${HEADER}spec:\n  semantics:\n    order: sequential\n  rules:\n    - name: r\n      body:\n        - set: object.metadata.labels.team!absent\n          value: "true"\n        - set: 'object.spec.containers[name: "a"].image'\n          value: nginx\n        - when: {const: true}\n          then: []\n`;
    expect(irDialect.generate(policies(text)).text).toBe(
      [
        'apiVersion: transmute.dev/v1alpha1',
        'kind: Policy',
        'metadata:',
        '  name: p',
        'spec:',
        '  semantics:',
        '    order: sequential',
        '  rules:',
        '  - name: r',
        '    body:',
        '    - set: object.metadata.labels.team!absent',
        '      value: "true"',
        '    - set: \'object.spec.containers[name: "a"].image\'',
        '      value: nginx',
        '    - when:',
        '        const: true',
        '      then: []',
        '',
      ].join('\n'),
    );
  });

  it('reads back through the project loader (YAML 1.1 as go-yaml reads it)', () => {
    const random = rng(13);
    const ps = Array.from({ length: 20 }, () => randomPolicy(random));
    const text = irDialect.generate(ps).text;
    const loaded = loadYamlText('gen.yaml', text);
    expect(loaded.ok && loaded.diagnostics).toEqual([]);
    const back = irDialect.parse(loaded.ok ? loaded.value : []);
    expect(back.diagnostics).toEqual([]);
    expect(normalizePolicies(back.policies)).toEqual(normalizePolicies(ps));
  });

  it('round-trips random policies through YAML', () => {
    const random = rng(11);
    for (let i = 0; i < 200; i++) {
      const ps = [randomPolicy(random), randomPolicy(random)];
      const text = irDialect.generate(ps).text;
      const back = policies(text);
      expect(normalizePolicies(back)).toEqual(normalizePolicies(ps));
      expect(irDialect.generate(back).text).toBe(text);
    }
  });

  it('keeps __proto__ as an ordinary key', () => {
    const [p] = policies(`${HEADER}spec:\n  rules:\n    - name: r\n      body:\n        - set: object.__proto__\n          value:\n            __proto__:\n              polluted: true\n`);
    const op = p!.rules[0]!.body[0]!;
    expect(op.kind === 'set' && op.path.segments).toEqual([{ kind: 'field', name: '__proto__' }]);
    const json = op.kind === 'set' && op.value.kind === 'literal' ? (op.value.json as object) : {};
    expect(Object.keys(json)).toEqual(['__proto__']);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
    expect(irDialect.generate([p!]).text).toContain('__proto__:\n          polluted: true');
  });

  describe('strict validation', () => {
    it('reports an unknown key at the key', () => {
      const d = bodyError('        - set: object.a\n          value: 1\n          valu: 2\n');
      expect(d).toMatchObject({ code: 'TM2002', dialect: 'ir', span: { line: 11, col: 11, endCol: 14 } });
      expect(d.message).toMatch(/unknown field "valu"/);
    });

    it('reports a wrong type at the value', () => {
      const d = bodyError('        - remove: [object.a]\n');
      expect(d).toMatchObject({ code: 'TM2002', span: { line: 9, col: 19 } });
      expect(d.message).toMatch(/remove path must be a string, got a list/);
    });

    it('reports a missing field at the node', () => {
      const d = bodyError('        - setMembers: object.a\n          values: [1]\n');
      expect(d).toMatchObject({ code: 'TM2005', span: { line: 9, col: 11 } });
      expect(d.message).toMatch(/missing required field "mode"/);
    });

    it('reports an op without a discriminating key', () => {
      const d = bodyError('        - value: 1\n');
      expect(d).toMatchObject({ code: 'TM2005', span: { line: 9, col: 11 } });
      expect(d.message).toMatch(/one of the fields set, remove/);
    });

    it('reports both value and valueFrom', () => {
      const d = bodyError('        - let: x\n          value: 1\n          valueFrom: {ref: object.a}\n');
      expect(d.message).toMatch(/both "value" and "valueFrom"/);
    });

    it('reports an invalid path at its column inside the string', () => {
      const plain = bodyError('        - remove: object.spec[x]\n');
      expect(plain).toMatchObject({ code: 'TM2006', dialect: 'ir', span: { line: 9, col: 32 } });
      const quoted = bodyError('        - remove: "object.spec[na\\u006De: v]"\n');
      // The bad token `v` is character 18 of the value; the escape `\u006D` takes 6 columns for 1 character.
      expect(quoted).toMatchObject({ code: 'TM2006', span: { line: 9, col: 43 } });
    });

    it('reports an invalid guard inside a when', () => {
      const d = bodyError('        - when: {exists: object.a, pattern: x}\n          then: []\n');
      expect(d).toMatchObject({ code: 'TM2002', span: { line: 9, col: 36 } });
      expect(d.message).toMatch(/unknown field "pattern" in exists guard/);
    });

    it('reports an unknown kind and a bad semantics order', () => {
      const kind = parseYaml('apiVersion: transmute.dev/v1alpha1\nkind: Polcy\nmetadata: {name: p}\nspec: {}\n');
      expect(kind.diagnostics[0]).toMatchObject({ code: 'TM2001', span: { line: 2, col: 7 } });
      const order = parseYaml(`${HEADER}spec:\n  semantics: {order: random}\n`);
      expect(order.diagnostics[0]).toMatchObject({ code: 'TM2002', span: { line: 6, col: 22 } });
    });

    it('reports every problem of a document in one pass', () => {
      const r = parseYaml(`${HEADER}spec:\n  guards:\n    - exists: 3\n  rules:\n    - name: r\n      extra: 1\n      body:\n        - remove: object.a[\n`);
      expect(r.diagnostics.map((d) => [d.code, d.span?.line])).toEqual([
        ['TM2002', 7],
        ['TM2002', 10],
        ['TM2006', 12],
      ]);
    });

    it('validates the match block', () => {
      const r = parseYaml(`${HEADER}spec:\n  match:\n    any:\n      - kinds: [{group: apps}]\n        scope: Galaxy\n`);
      expect(r.diagnostics.map((d) => [d.code, d.span?.line])).toEqual([
        ['TM2005', 8],
        ['TM2002', 9],
      ]);
    });
  });
});
