import { describe, expect, it } from 'vitest';
import type { Guard, Op, Policy } from '../../src/ir/nodes.js';
import { normalizePolicies } from '../../src/ir/normalize.js';
import { parseIrText } from '../../src/ir/parse-text.js';
import { printPath } from '../../src/ir/path-text.js';
import { printPolicies } from '../../src/ir/print.js';
import { mapGuards, mapOps, mapPaths, transformPolicies, walk, walkGuards, walkOps, walkPaths, walkValues } from '../../src/ir/visit.js';
import { randomPolicy, rng } from './arbitrary.js';

function parse(text: string): Policy {
  const r = parseIrText('v.txt', text);
  if (!r.ok) throw new Error(r.diagnostics[0]!.message);
  return r.value[0]!;
}

const POLICY = parse(
  [
    'policy p',
    '  guard and(true, exists object.a)',
    '  rule r',
    '    guard not(false)',
    '    set object.a = ref object.b',
    '    when or(eq object.c 1, true)',
    '      remove object.d',
    '    else',
    '      forEach vars.x in object.e[*] order asc',
    '        set vars.x.f = 2',
    '    jsonPatch kyverno',
    '      add "/g" = ref object.h',
  ].join('\n'),
);

describe('IR visitor', () => {
  it('returns the very same objects when nothing changes', () => {
    expect(transformPolicies([POLICY], {})[0]).toBe(POLICY);
    expect(mapOps(POLICY, (op) => op)).toBe(POLICY);
    expect(mapGuards(POLICY, (g) => g)).toBe(POLICY);
    const random = rng(5);
    for (let i = 0; i < 50; i++) {
      const p = randomPolicy(random);
      expect(transformPolicies([p], { op: (o) => o, guard: (g) => g, value: (v) => v, path: (x) => x })[0]).toBe(p);
    }
  });

  it('deletes, splices and rewrites ops bottom-up, keeping origins and untouched siblings', () => {
    const out = mapOps(POLICY, (op): Op | Op[] | null => {
      if (op.kind === 'remove') return null;
      if (op.kind === 'set' && op.path.root === 'vars') return [op, { ...op, path: { ...op.path, segments: [...op.path.segments, { kind: 'field', name: 'g' }] } }];
      return op;
    });
    expect(printPolicies([out])).toContain(['    when or(eq object.c 1, true)', '    else', '      forEach vars.x in object.e[*] order asc', '        set vars.x.f = 2', '        set vars.x.f.g = 2'].join('\n'));
    expect(printPolicies([out])).not.toContain('remove');
    const before = POLICY.rules[0]!.body;
    const after = out.rules[0]!.body;
    expect(after[0]).toBe(before[0]);
    expect(after[2]).toBe(before[2]);
    expect(after[1]!.origin).toBe(before[1]!.origin);
  });

  it('folds guards bottom-up (the shape of a constant-folding pass)', () => {
    const fold = (g: Guard): Guard => {
      if (g.kind === 'not' && g.arg.kind === 'const') return { kind: 'const', value: !g.arg.value, origin: g.origin };
      if (g.kind === 'or' && g.args.some((a) => a.kind === 'const' && a.value)) return { kind: 'const', value: true, origin: g.origin };
      return g;
    };
    const out = mapGuards(POLICY, fold);
    expect(out.rules[0]!.guards[0]).toMatchObject({ kind: 'const', value: true });
    const when = out.rules[0]!.body[1]!;
    expect(when.kind === 'when' && when.guard).toMatchObject({ kind: 'const', value: true, origin: { line: 6 } });
    expect(out.guards).toBe(POLICY.guards);
  });

  it('rewrites every path, including those in refs, guards, lists and patch values', () => {
    const out = mapPaths(POLICY, (p) => (p.root === 'object' ? { ...p, root: 'oldObject' } : p));
    const paths: string[] = [];
    walkPaths(out, (p) => paths.push(printPath(p)));
    expect(paths).toEqual(['oldObject.a', 'oldObject.a', 'oldObject.b', 'oldObject.c', 'oldObject.d', 'oldObject.e[*]', 'vars.x.f', 'oldObject.h']);
  });

  it('walks in source order with context', () => {
    const kinds: string[] = [];
    const depths: number[] = [];
    walkOps(POLICY, (op, ctx) => {
      kinds.push(op.kind);
      depths.push(ctx.ancestors.length);
      expect(ctx.rule.name).toBe('r');
    });
    expect(kinds).toEqual(['set', 'when', 'remove', 'forEach', 'set', 'jsonPatch']);
    expect(depths).toEqual([0, 0, 1, 1, 2, 0]);
    const guards: string[] = [];
    walkGuards(POLICY, (g) => guards.push(g.kind));
    expect(guards).toEqual(['and', 'const', 'exists', 'not', 'const', 'or', 'eq', 'const']);
    const values: string[] = [];
    walkValues(POLICY, (v) => values.push(v.kind));
    expect(values).toEqual(['ref', 'literal', 'literal', 'ref']);
    let policies = 0;
    walk([POLICY, POLICY], { policy: () => policies++ });
    expect(policies).toBe(2);
  });
});

describe('normalize', () => {
  it('strips origins everywhere but keeps literal keys named origin', () => {
    const p = parse('policy p\n  match {"globs": "exact"}\n  rule r\n    set object.a = {"origin": 1}\n');
    const [n] = normalizePolicies([p]);
    expect(JSON.stringify(n)).not.toMatch(/"line"/);
    expect(n!.rules[0]!.body[0]).toEqual({ kind: 'set', path: { root: 'object', segments: [{ kind: 'field', name: 'a' }] }, value: { kind: 'literal', json: { origin: 1 } } });
    expect(n!.match).toEqual({ globs: 'exact' });
  });

  it('fills semantics defaults and canonicalizes templates, empty else and exclude', () => {
    const p = parse('policy p\n  match {"exclude": {}}\n  rule r\n    let t = template ["a", "", "b", {"jmes": "x"}]\n    when true\n    else\n');
    const [n] = normalizePolicies([p]);
    expect(n!.semantics).toEqual({ order: 'sequential', reinvocation: 'never', failurePolicy: 'fail' });
    expect(n!.match).toEqual({ globs: 'wildcard' });
    expect(n!.rules[0]!.body).toEqual([
      { kind: 'let', name: 't', value: { kind: 'template', parts: ['ab', { jmes: 'x' }] } },
      { kind: 'when', guard: { kind: 'const', value: true }, then: [] },
    ]);
  });

  it('equates policies that differ only in origins and match key order', () => {
    const a = parse('policy p\n  match {"any": [{"namespaces": ["a"], "kinds": [{"kind": "Pod", "group": ""}]}], "globs": "exact"}\n');
    const b = parse('\n\npolicy p\n  semantics sequential failurePolicy=fail reinvocation=never\n  match {"globs": "exact", "any": [{"kinds": [{"group": "", "kind": "Pod"}], "namespaces": ["a"]}]}\n');
    expect(normalizePolicies([a])).toEqual(normalizePolicies([b]));
  });
});
