import { describe, expect, it } from 'vitest';
import { compile } from '../../src/cel/index.js';

/** kube-apiserver and Kyverno compile CEL with HomogeneousAggregateLiterals; so does the engine by default. */
describe('HomogeneousAggregateLiterals', () => {
  const rejected = (src: string) => {
    const r = compile(src);
    expect(r.ok, src).toBe(false);
    if (!r.ok) expect(r.diagnostics[0]!.message).toContain('type mismatch in an aggregate literal');
  };

  it('rejects list and map literals whose members have different known types, at the member', () => {
    rejected('[1, "a"]');
    rejected('{"a": "x", "b": 1}');
    rejected('{"name": "sidecar", "ports": [{"containerPort": 80}]}');
    rejected('{"a": true, "b": null}');
    rejected('[[1], {"a": 1}]');
    // cel-go joins left to right: a dyn member makes every later member acceptable.
    expect(compile('["a", dyn(1), 2]').ok).toBe(true);
    const r = compile('{"a": "x", "b": 1}');
    expect(!r.ok && r.diagnostics[0]!.span).toMatchObject({ col: 17 });
  });

  it('accepts dyn() members, members it cannot type (list element types are not compared), optional entries, and plain CEL when turned off', () => {
    for (const src of ['[dyn(1), "a"]', '{"a": dyn("x"), "b": dyn(1)}', '{"a": x, "b": 1}', '{?"a": optional.of("y"), "b": "x"}']) {
      expect(compile(src).ok, src).toBe(true);
    }
    expect(compile('[1, "a"]', { homogeneousAggregateLiterals: false }).ok).toBe(true);
  });
});

describe('homogenize', () => {
  it('wraps the members outside the most common type in dyn(), so the literal compiles to the same value', async () => {
    const { homogenize } = await import('../../src/cel/homogeneous.js');
    const src = '{"name": "proxy", "image": "x", "ports": [{"name": "m", "containerPort": 15090}], "tty": true}';
    const out = homogenize(src);
    expect(out).toBe('{"name": "proxy", "image": "x", "ports": dyn([{"name": "m", "containerPort": dyn(15090)}]), "tty": dyn(true)}');
    const a = compile(src, { homogeneousAggregateLiterals: false });
    const b = compile(out);
    expect(a.ok && b.ok).toBe(true);
    if (a.ok && b.ok) expect(JSON.stringify(b.value.eval({}))).toBe(JSON.stringify(a.value.eval({})));
    expect(homogenize('[1, 2]')).toBe('[1, 2]');
  });
});

describe('homogenize, members it cannot type', () => {
  it('wraps them where the literal may mix types (a typed field beside a map), and leaves one-type literals alone', async () => {
    const { homogenize } = await import('../../src/cel/homogeneous.js');
    expect(homogenize('{"name": c.name, "emptyDir": {"sizeLimit": "1Gi"}}')).toBe('{"name": dyn(c.name), "emptyDir": {"sizeLimit": "1Gi"}}');
    expect(homogenize('{"name": c.name, "image": c.image}')).toBe('{"name": dyn(c.name), "image": dyn(c.image)}');
    expect(homogenize('{"name": dyn(c.name), "n": 1}')).toBe('{"name": dyn(c.name), "n": 1}');
    expect(homogenize('{"only": c.name}')).toBe('{"only": c.name}');
    expect(homogenize('[JSONPatch{op: "add", path: "/a", value: 1}, JSONPatch{op: "remove", path: "/b"}]')).toBe('[JSONPatch{op: "add", path: "/a", value: 1}, JSONPatch{op: "remove", path: "/b"}]');
  });
});
