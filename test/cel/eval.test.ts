import { describe, expect, it } from 'vitest';
import { compile, fromJson, jsonPatchOps, toJson, type CelEnvOptions } from '../../src/cel/index.js';
import { authorizerValue, authorizers } from '../../src/cel/lib/k8s.js';
import { CelDouble, CelObject, CelUint } from '../../src/cel/values.js';

/** Evaluation semantics: aggregate literals may mix types unless a test asks for Kubernetes' check. */
function run(src: string, act: Record<string, unknown> = {}, env: CelEnvOptions = {}, costLimit?: number) {
  const p = compile(src, { homogeneousAggregateLiterals: false, ...env });
  if (!p.ok) throw new Error(`${src}: ${p.diagnostics[0]!.message}`);
  return p.value.eval(act, costLimit === undefined ? {} : { costLimit });
}

function value(src: string, act: Record<string, unknown> = {}, env: CelEnvOptions = {}) {
  const r = run(src, act, env);
  if (!r.ok) throw new Error(`${src}: ${r.error}`);
  return r.value;
}

function error(src: string, act: Record<string, unknown> = {}, env: CelEnvOptions = {}) {
  const r = run(src, act, env);
  if (r.ok) throw new Error(`${src}: expected an error, got ${String(r.value)}`);
  return r.error;
}

const pod = {
  metadata: { name: 'web', labels: { app: 'web' } },
  spec: { replicas: 3, ratio: 0.5, containers: [{ name: 'app', image: 'corp.io/app:1' }, { name: 'sidecar', image: 'docker.io/envoy' }] },
};

describe('values and operators', () => {
  it('keeps int, uint and double apart, with overflow errors', () => {
    expect(value('1 + 2')).toBe(3);
    expect(value('7 / 2')).toBe(3);
    expect(value('-7 % 3')).toBe(-1);
    expect(value('2u + 3u')).toEqual(new CelUint(5n));
    expect(value('1.0 + 2.0')).toEqual(new CelDouble(3));
    expect(value('9007199254740991 + 2')).toBe(9007199254740993n);
    expect(error('9223372036854775807 + 1')).toMatch(/overflow/);
    expect(error('-9223372036854775808 - 1')).toMatch(/overflow/);
    expect(error('1 / 0')).toMatch(/division by zero/);
    expect(error('0u - 1u')).toMatch(/overflow/);
    expect(error('1 + 1.0')).toMatch(/no such overload/);
    expect(value('1 == 1.0 && 1u == 1 && 1 < 1.5')).toBe(true);
    expect(value('[1, 2] == [1.0, 2u]')).toBe(true);
  });

  it('absorbs errors in && || ?: as the spec defines', () => {
    expect(value('1/0 == 1 || true')).toBe(true);
    expect(value('false && 1/0 == 1')).toBe(false);
    expect(value('1/0 == 1 && false')).toBe(false);
    expect(error('1/0 == 1 || false')).toMatch(/division/);
    expect(error('(1/0 == 1) ? 1 : 2')).toMatch(/division/);
    expect(value('true ? 1 : 1/0')).toBe(1);
  });

  it('reads JSON input as is: integral numbers are ints, others doubles', () => {
    expect(value('object.spec.replicas * 2', { object: pod })).toBe(6);
    expect(value('type(object.spec.replicas) == int && type(object.spec.ratio) == double', { object: pod })).toBe(true);
    expect(error('object.spec.missing', { object: pod })).toBe('no such key: missing');
    expect(value('has(object.spec.replicas) && !has(object.spec.x)', { object: pod })).toBe(true);
    expect(value('object.spec.containers.map(c, c.name)', { object: pod })).toEqual(['app', 'sidecar']);
    expect(fromJson({ a: 5n, b: [1n] })).toEqual({ a: 5, b: [1] });
  });

  it('handles maps with non-string keys and heterogeneous lookups', () => {
    expect(value('{1: "a", 2u: "b"}[2]')).toBe('b');
    expect(value('{1: "a"}[1.0]')).toBe('a');
    expect(error('{1: "a", 1u: "b"}')).toMatch(/repeated key/);
    expect(toJson(value('{"a": [1, 2.5, true, null]}'))).toEqual({ a: [1, 2.5, true, null] });
    expect(() => toJson(value('{1: 2}'))).toThrow(/map key/);
  });

  it('supports optionals', () => {
    expect(value('object.?metadata.?labels.?team.orValue("none")', { object: pod })).toBe('none');
    expect(value('object.?metadata.?labels.?app.orValue("none")', { object: pod })).toBe('web');
    expect(value('{?"a": optional.none(), "b": 1}')).toEqual({ b: 1 });
    expect(value('[?optional.of(1), ?optional.none()]')).toEqual([1]);
    expect(value('optional.of(2).optMap(x, x * 2).value()')).toBe(4);
  });

  it('supports timestamps and durations with nanoseconds', () => {
    expect(toJson(value('timestamp("2024-01-01T00:00:00.000000001Z") + duration("1h")'))).toBe('2024-01-01T01:00:00.000000001Z');
    expect(value('duration("1h30m").getMinutes()')).toBe(90);
    expect(value('timestamp("2024-03-10T12:00:00Z").getHours("America/New_York")')).toBe(8);
  });

  it('type() and dyn()', () => {
    expect(value('type(1) == int && type("a") == string && type(type) == type')).toBe(true);
    expect(value('dyn([1, "a"])')).toEqual([1, 'a']);
  });

  it('constant-folds without changing error semantics', () => {
    const p = compile('[1, 2, 3].map(x, x * 2)[1] + 1');
    expect(p.ok && p.value.eval({})).toMatchObject({ ok: true, value: 5 });
  });
});

describe('MAP types: Object and JSONPatch', () => {
  const mapEnv: CelEnvOptions = { variables: ['object', 'oldObject', 'params', 'request', 'namespaceObject', 'variables', 'authorizer'] };

  it('builds Object literals with any field and checks type names against the field path', () => {
    const v = value('Object{spec: Object.spec{containers: object.spec.containers.map(c, Object.spec.containers{name: c.name})}}', { object: pod }, { ...mapEnv, expect: 'Object' });
    expect(v).toBeInstanceOf(CelObject);
    expect(toJson(v)).toEqual({ spec: { containers: [{ name: 'app' }, { name: 'sidecar' }] } });
    expect(error('Object{spec: Object.specx{replicas: 1}}', {}, { ...mapEnv, expect: 'Object' })).toBe(
      'type mismatch: unexpected type name "Object.specx", expected "Object.spec", which matches field name path from root Object type',
    );
    expect(error('Object{spec: Object.spec{containers: [Object.spec.containers.item{name: "x"}]}}', {}, { ...mapEnv, expect: 'Object' })).toMatch(/expected "Object.spec.containers"/);
  });

  it('rejects a wrong result type at compile time', () => {
    const r = compile('"I\'m a teapot!"', { ...mapEnv, expect: 'Object' });
    expect(r.ok).toBe(false);
    expect(r.diagnostics[0]).toMatchObject({ code: 'TM5002', message: 'must evaluate to Object but got string' });
    const r2 = compile('Object.spec.metadata{}', { ...mapEnv, expect: 'Object' });
    expect(r2.diagnostics[0]?.message).toBe('must evaluate to Object but got Object.spec.metadata');
  });

  it('JSONPatch has(), equality and conversion to RFC 6902', () => {
    expect(value('has(JSONPatch{op: "add"}.op) && !has(JSONPatch{op: "add"}.path) && !has(JSONPatch{value: null}.value)')).toBe(true);
    expect(value('JSONPatch{op: "add", value: "1"} == JSONPatch{op: "add", value: "1"} && JSONPatch{value: "1"} != JSONPatch{value: 1}')).toBe(true);
    const ops = jsonPatchOps(value('[JSONPatch{op: "add", path: "/metadata/labels/" + jsonpatch.escapeKey("a/b~c"), value: 1}]'));
    expect(ops).toEqual([{ op: 'add', path: '/metadata/labels/a~1b~0c', value: 1 }]);
    expect(compile('JSONPatch{op: "add", bogus: 1}').ok).toBe(false);
  });

  it('reports undeclared references at compile time', () => {
    const r = compile('objekt.spec', mapEnv);
    expect(r.ok).toBe(false);
    expect(r.diagnostics[0]).toMatchObject({ code: 'TM5002', message: "undeclared reference to 'objekt' (in container '')" });
    expect(compile('nosuchfn(1)', mapEnv).ok).toBe(false);
  });
});

describe('cost limits', () => {
  it('stops a runaway comprehension with the Kubernetes message', () => {
    const r = run('lists.range(1000).all(a, lists.range(1000).all(b, lists.range(1000).all(c, true)))');
    expect(r).toMatchObject({ ok: false, error: 'operation cancelled: actual cost limit exceeded', costExceeded: true });
  });

  it('nested map ten deep ends in a clean error within a second', () => {
    let src = 'z';
    for (let i = 0; i < 10; i++) src = `[1,2,3].map(v${i}, ${src === 'z' ? 'v' + i : src})`;
    const t = performance.now();
    const r = run(src);
    expect(performance.now() - t).toBeLessThan(1000);
    expect(r).toMatchObject({ ok: false, error: 'operation cancelled: actual cost limit exceeded' });
  });

  it('cost errors are not absorbed by || and respect a custom limit', () => {
    expect(run('lists.range(2000).all(x, lists.range(2000).all(y, true)) || true')).toMatchObject({ ok: false, costExceeded: true });
    expect(run('[1,2,3].all(x, x > 0)', {}, {}, 5)).toMatchObject({ ok: false, costExceeded: true });
    expect(run('[1,2,3].all(x, x > 0)', {}, {}, 1000)).toMatchObject({ ok: true, value: true });
  });
});

describe('extension and Kubernetes libraries', () => {
  it('ext.Strings v2', () => {
    expect(value('"TacoCÆt".lowerAscii()')).toBe('tacocÆt');
    expect(value('"a,b,c".split(",", 2)')).toEqual(['a', 'b,c']);
    expect(value('"%s-%d".format(["x", 3])')).toBe('x-3');
    expect(value('strings.quote("a\\nb")')).toBe('"a\\nb"');
  });

  it('regex with RE2 semantics, including a catastrophic pattern within a second', () => {
    expect(value('"ABC".matches("(?i)abc")')).toBe(true);
    expect(value('"abc123def456".findAll("[0-9]+")')).toEqual(['123', '456']);
    expect(value('"abc".find("[0-9]+")')).toBe('');
    expect(error('"a".matches("(?=a)")')).toMatch(/invalid regular expression/);
    const t = performance.now();
    const r = run('s.matches("(a+)+$") || s.find("(a|aa)+b") != ""', { s: 'a'.repeat(50_000) + '!' });
    expect(performance.now() - t).toBeLessThan(1000);
    expect(r).toMatchObject({ ok: true, value: false });
  });

  it('lists, sets and ext.Lists', () => {
    expect(value('[3, 1, 2].sort() == [1, 2, 3] && [1, 2, 3].isSorted() && [1, 2].sum() == 3')).toBe(true);
    expect(value('sets.intersects([1, 2], [2, 3]) && [1, 1, 2].distinct() == [1, 2]')).toBe(true);
    expect(value('[1, 2, 3].slice(1, 2)')).toEqual([2]);
  });

  it('quantity, ip, cidr, url, semver, format', () => {
    expect(value('quantity("1Gi").isGreaterThan(quantity("512Mi")) && quantity("500m").asApproximateFloat() == 0.5')).toBe(true);
    expect(value('ip("::1").isLoopback() && cidr("10.0.0.0/8").containsIP(ip("10.2.3.4")) && !isIP("1.2.3")')).toBe(true);
    expect(value('url("https://example.com:8443/a?b=c").getPort()')).toBe('8443');
    expect(value('semver("1.10.0").isGreaterThan(semver("1.9.0"))')).toBe(true);
    expect(value('format.dns1123Label().validate("ok-name").hasValue()')).toBe(false);
  });

  it('authorizer is pluggable', () => {
    const expr = 'authorizer.group("apps").resource("deployments").namespace("default").check("create").allowed()';
    expect(value(expr, { authorizer: authorizerValue(authorizers.allowAll) })).toBe(true);
    expect(value(expr, { authorizer: authorizerValue(authorizers.denyAll) })).toBe(false);
    const table = authorizers.table([{ resource: 'deployments', verb: 'create', allowed: true }]);
    expect(value(expr, { authorizer: authorizerValue(table) })).toBe(true);
  });

  it('selects the library set by Kubernetes version', () => {
    expect(compile('[1].sort()', { k8sVersion: '1.33', variables: [] }).ok).toBe(false);
    expect(compile('[1].sort()', { k8sVersion: '1.34', variables: [] }).ok).toBe(true);
    expect(compile('semver("1.0.0")', { k8sVersion: '1.32', variables: [] }).ok).toBe(false);
    expect(compile('[1].all(i, v, true)', { k8sVersion: '1.31', variables: [] }).ok).toBe(false);
    expect(compile('[1].all(i, v, true)', { k8sVersion: '1.32', variables: [] }).ok).toBe(true);
    expect(compile('1', { k8sVersion: 'banana' }).ok).toBe(false);
  });
});

// Found by the differential fuzzing against @bufbuild/cel (test/fuzz/differential.ts), decided from cel-go.
describe('conversions as cel-go makes them (strconv, overflow.go)', () => {
  it('uint(double) of any negative value is a range error, not a truncation to 0 (doubleToUint64Checked)', () => {
    expect(error('uint(-0.5)')).toMatch(/range/);
    expect(error('uint(-2.9e-62)')).toMatch(/range/);
    expect(value('uint(-0.0)')).toEqual(new CelUint(0n));
    expect(value('uint(0.9)')).toEqual(new CelUint(0n));
  });

  it('uint(string) takes no sign (strconv.ParseUint); int(string) takes one (ParseInt)', () => {
    expect(error('uint("+5")')).toMatch(/cannot convert/);
    expect(value('int("+5")')).toBe(5);
    expect(error('int(" 5")')).toMatch(/cannot convert/);
  });

  it('double(string) reads what strconv.ParseFloat reads', () => {
    expect(Number.isNaN(value('double("nan")') as number)).toBe(true);
    expect(Number.isNaN(value('double("NAN")') as number)).toBe(true);
    expect(error('double("+nan")')).toMatch(/cannot convert/);
    expect(value('double("-Infinity")')).toBe(-Infinity);
    expect(value('double("inf")')).toBe(Infinity);
    expect(value('double("0x1p-2")')).toBe(0.25);
    expect(value('double("0x1.8p1")')).toEqual(new CelDouble(3));
    expect(error('double("0x10")')).toMatch(/cannot convert/);
    expect(error('double("1e400")')).toMatch(/cannot convert/);
    expect(value('double("1e-400")')).toEqual(new CelDouble(0));
    expect(error('double("1_000")')).toMatch(/cannot convert/);
    expect(error('double(" 1")')).toMatch(/cannot convert/);
    expect(error('double("")')).toMatch(/cannot convert/);
  });
});
