/**
 * Kyverno's CEL `json` and `yaml` libraries (kyverno/sdk extensions/cel/libs/json, libs/yaml): decoding as
 * encoding/json and sigs.k8s.io/yaml decode into `any` (every number a float64, so a CEL double), encoding as
 * encoding/json.Marshal of toJsonNative's Go value.
 */
import { describe, expect, it } from 'vitest';
import { compile } from '../../src/cel/index.js';
import { resultToJson } from '../../src/engines/cel.js';
import { compileJmes } from '../../src/jmespath/index.js';

function evalMpol(expr: string, s: unknown = null): { ok: true; value: unknown } | { ok: false; error: string } {
  const p = compile(expr, { variables: ['s'], extraLibraries: ['kyverno'] });
  if (!p.ok) throw new Error(p.diagnostics[0]!.message);
  const r = p.value.eval({ s }, {});
  return r.ok ? { ok: true, value: r.value } : { ok: false, error: r.error };
}

function value(expr: string, s: unknown = null): unknown {
  const r = evalMpol(expr, s);
  if (!r.ok) throw new Error(r.error);
  return r.value;
}

describe('json and yaml (kyverno.json, kyverno.yaml)', () => {
  it('are Kyverno libraries: absent from the Kubernetes environment', () => {
    for (const expr of ['json.unmarshal(s)', 'json.marshal(s)', 'yaml.parse(s)']) expect(compile(expr, { variables: ['s'] }).ok).toBe(false);
  });

  it('json.unmarshal decodes every number as a double', () => {
    expect(value('type(json.unmarshal("1")) == double')).toBe(true);
    expect(value('json.unmarshal("{\\"a\\": [1, 2.5, true, null, \\"x\\"]}").a[0] == 1.0')).toBe(true);
    expect(resultToJson(value('json.unmarshal(s)', '{"b": {"c": 3}, "a": [1, 2.5, true, null, "x"]}'))).toEqual({ b: { c: 3 }, a: [1, 2.5, true, null, 'x'] });
    expect(value('json.unmarshal(s).b.c + 0.5', '{"b": {"c": 3}}')).toBe(3.5);
  });

  it('json.unmarshal of text that is not JSON is an error', () => {
    const r = evalMpol('json.unmarshal("{")');
    expect(r.ok).toBe(false);
    expect(evalMpol('json.unmarshal(1)').ok).toBe(false);
  });

  it('json.marshal writes what encoding/json writes', () => {
    expect(value('json.marshal({"b": dyn(1), "a": [dyn(1.5), dyn(true), dyn(null), dyn("<&>")]})')).toBe('{"a":[1.5,true,null,"\\u003c\\u0026\\u003e"],"b":1}');
    expect(value('json.marshal(2.0)')).toBe('2');
    expect(value('json.marshal(1e21)')).toBe('1e+21');
    expect(value('json.marshal(b"hi")')).toBe('"aGk="');
    expect(value('json.marshal(timestamp("2024-01-02T03:04:05.5Z"))')).toBe('"2024-01-02T03:04:05.5Z"');
    expect(value('json.marshal(duration("1s"))')).toBe('1000000000');
    expect(value('json.marshal(json.unmarshal(s))', '{"z": 1, "é": 2, "a": 3}')).toBe('{"a":3,"z":1,"é":2}');
  });

  it('json.marshal fails on what encoding/json cannot write', () => {
    expect(evalMpol('json.marshal(double("NaN"))')).toEqual({ ok: false, error: expect.stringContaining('unsupported value: NaN') });
    expect(evalMpol('json.marshal({1: "a"})').ok).toBe(false);
  });

  it('yaml.parse decodes as sigs.k8s.io/yaml: YAML 1.1 scalars, numbers as doubles, the first document', () => {
    const text = 'a: yes\nb: 010\nc: 1.5\nd: "x"\ne: [1, two]\nt: 2024-01-01\n---\nz: 1\n';
    expect(resultToJson(value('yaml.parse(s)', text))).toEqual({ a: true, b: 8, c: 1.5, d: 'x', e: [1, 'two'], t: '2024-01-01' });
    expect(value('type(yaml.parse(s).b) == double', text)).toBe(true);
    expect(value('yaml.parse("")')).toBe(null);
    expect(evalMpol('yaml.parse("a: [")').ok).toBe(false);
  });

  it('yaml.parse gives what JMESPath parse_yaml gives (the same decoder in Kyverno)', () => {
    const texts = ['clusterName: prod\nnetworking:\n  dnsDomain: cluster.local\n', 'a: >\n  folded\n  text', 'x: [on, off, ~, 0x1F]\n', '- 1\n- b: 2\n'];
    const jp = compileJmes('parse_yaml(@)');
    if (!jp.ok) throw new Error('parse_yaml did not compile');
    for (const t of texts) expect({ ok: true, value: resultToJson(value("yaml.parse(s)", t)) }).toEqual(jp.value.search(t));
  });
});
