/**
 * Kyverno's custom JMESPath functions. Cases transcribed as data from kyverno/kyverno
 * pkg/engine/jmespath/{functions,arithmetic,time}_test.go, plus edge cases from reading the code.
 */
import { describe, expect, it } from 'vitest';
import { seededRandom } from '../../src/jmespath/index.js';
import { expectError, value } from './helpers.js';

type Case = [expression: string, expected: unknown, data?: unknown];

function table(name: string, cases: Case[]): void {
  describe(name, () => {
    for (const [expr, expected, data] of cases) {
      it(`${expr} → ${JSON.stringify(expected)}`, () => {
        expect(value(expr, data ?? '')).toEqual(expected);
      });
    }
  });
}

function errors(name: string, cases: [expression: string, messagePart?: string][]): void {
  describe(`${name} errors`, () => {
    for (const [expr, part] of cases) {
      it(expr, () => {
        const e = expectError(expr, '');
        if (part !== undefined) expect(e.message).toContain(part);
      });
    }
  });
}

table('strings', [
  ["compare('a', 'a')", 0],
  ["compare('a', 'b')", -1],
  ["compare('b', 'a')", 1],
  ["equal_fold('Go', 'go')", true],
  ["equal_fold('a', 'b')", false],
  ["equal_fold('1', 'b')", false],
  ["replace('Lorem ipsum dolor sit amet', 'ipsum', 'muspi', `-1`)", 'Lorem muspi dolor sit amet'],
  ["replace('Lorem ipsum ipsum ipsum dolor sit amet', 'ipsum', 'muspi', `-1`)", 'Lorem muspi muspi muspi dolor sit amet'],
  ["replace('Lorem ipsum ipsum ipsum dolor sit amet', 'ipsum', 'muspi', `1`)", 'Lorem muspi ipsum ipsum dolor sit amet'],
  ["replace('abc', '', '-', `2`)", '-a-bc'],
  ["replace_all('Lorem ipsum dolor sit amet', 'ipsum', 'muspi')", 'Lorem muspi dolor sit amet'],
  ["replace_all('Lorem ipsum ipsum ipsum dolor sit amet', 'ipsum', 'muspi')", 'Lorem muspi muspi muspi dolor sit amet'],
  ["to_upper('abc')", 'ABC'],
  ["to_upper('123')", '123'],
  ["to_upper('a#%&123Bc')", 'A#%&123BC'],
  ["to_upper('straße')", 'STRAßE'],
  ["to_lower('ABC')", 'abc'],
  ["to_lower('a#%&123Bc')", 'a#%&123bc'],
  ["trim('¡¡¡Hello, Gophers!!!', '!¡')", 'Hello, Gophers'],
  ["trim_prefix('¡¡¡Hello, Gophers!!!', '¡¡¡Hello, ')", 'Gophers!!!'],
  ["trim_prefix('¡¡¡Hello, Gophers!!!', '¡¡¡Hola, ')", '¡¡¡Hello, Gophers!!!'],
  ["split('Hello, Gophers', ', ')", ['Hello', 'Gophers']],
  ["split('añb', '')", ['a', 'ñ', 'b']],
  ["split('', ',')", ['']],
  ["starts_with('Gophers', 'Go')", true],
  ["ends_with('Amigo', 'go')", true],
  ["truncate('Lorem ipsum dolor sit amet', `5`)", 'Lorem'],
  ["truncate('Lorem ipsum ipsum ipsum dolor sit amet', `11`)", 'Lorem ipsum'],
  ["truncate('Lorem ipsum ipsum ipsum dolor sit amet', `40`)", 'Lorem ipsum ipsum ipsum dolor sit amet'],
  ["truncate('Lorem ipsum', `2.6`)", 'Lo'],
  ["truncate('Lorem ipsum', `0`)", ''],
  ["truncate('Lorem ipsum', `-1`)", ''],
  ["truncate('ñandú', `2`)", 'ña'],
  ["base64_decode('SGVsbG8sIHdvcmxkIQ==')", 'Hello, world!'],
  ["base64_encode('Hello, world!')", 'SGVsbG8sIHdvcmxkIQ=='],
  ['base64_decode(data.example1)', 'Hello, world!', { data: { example1: 'SGVsbG8sIHdvcmxkIQ==', example2: 'Rm9vQmFy' } }],
  ["path_canonicalize('///')", '/'],
  ["path_canonicalize('///var/run/containerd/containerd.sock')", '/var/run/containerd/containerd.sock'],
  ["path_canonicalize('/var/run///containerd/containerd.sock')", '/var/run/containerd/containerd.sock'],
  ["path_canonicalize('/var/run///containerd////')", '/var/run/containerd'],
  ["path_canonicalize('/run///')", '/run'],
  ["path_canonicalize('/run/../etc')", '/etc'],
  ["path_canonicalize('///etc*')", '/etc*'],
  ["path_canonicalize('/../../')", '/'],
  ["path_canonicalize('a/../..')", '..'],
  ["to_boolean('true')", true],
  ["to_boolean('TRue')", true],
  ["to_boolean('FaLse')", false],
  ["sha256('hello')", '2cf24dba5fb0a30e26e83b2ac5b9e29e1b161e5c1fa7425e73043362938b9824'],
  ["sha1('hello')", 'aaf4c61ddcc5e8a2dabede0f3b482cd9aea9434d'],
  ["md5('hello')", '5d41402abc4b2a76b9719d911017c592'],
]);

errors('strings', [
  ["to_boolean('FaLsee')", "JMESPath function 'to_boolean': lowercase argument must be 'true' or 'false' (provided: 'FaLsee')"],
  ["to_boolean('foo')"],
  ['to_boolean(`1`)', 'Invalid type for: 1'],
  ['to_boolean(`null`)', 'Invalid type for: <nil>'],
  ["compare(`1`, 'b')"],
  ["replace('a', 'b', `false`, `1`)"],
  ["replace('a', 'b', 'c', `true`)"],
  ['to_upper(`32`)'],
  ["base64_decode('!!!')", 'illegal base64 data at input byte 0'],
]);

const resource = { metadata: { name: 'temp', namespace: 'ns_first' }, spec: { namespace: 'ns_first', name: 'temp_other', field: 'Hello world, helworldlo' } };

table('regex and matching', [
  ["regex_match('12.*', foo)", true, { foo: "hgf'b1a2r'b12g" }],
  ["regex_match('12.*', abs(foo))", true, { foo: -12.0 }],
  ["regex_match('^[a-z]+$', 'ABC')", false],
  ["regex_match('(?i)^[a-z]+$', 'ABC')", true],
  ["pattern_match('prefix-*', foo)", true, { foo: 'prefix-foo' }],
  ["pattern_match('12*', abs(foo))", true, { foo: -12.0 }],
  ["pattern_match('a?c', 'abc')", true],
  ["pattern_match('a?c', 'ac')", false],
  ["pattern_match('', '')", true],
  ["pattern_match('*', 'anything/at all')", true],
  ["pattern_match('*.example.com', 'a.b.example.com')", true],
  ["regex_replace_all('([Hh]e|G)l', spec.field, '${2}G')", 'Glo world, Gworldlo', resource],
  ["regex_replace_all_literal('[Hh]el?', spec.field, 'G')", 'Glo world, Gworldlo', resource],
  ["regex_replace_all('(?P<first>\\w+) (?P<second>\\w+)', 'hello world', '${second} $first')", 'world hello'],
  ["regex_replace_all('a*', 'baaac', '-')", '-b-c-'],
  ["regex_replace_all('x*', 'abc', '-')", '-a-b-c-'],
  ["regex_replace_all('\\d', `12.5`, 'n')", 'nn.n'],
  ["regex_replace_all_literal('o', 'foo', '$1')", 'f$1$1'],
  ['label_match(`{ "app": "test-app" }`, metadata.labels)', true, { metadata: { labels: { app: 'test-app', 'controller-name': 'test-controller' } } }],
  [
    'label_match(`{ "app": "test-app", "controller-name": "test-controller" }`, metadata.labels)',
    true,
    { metadata: { labels: { app: 'test-app', 'controller-name': 'test-controller' } } },
  ],
  ['label_match(`{ "app": "test-app2" }`, metadata.labels)', false, { metadata: { labels: { app: 'test-app' } } }],
  ['label_match(`{ "app.kubernetes.io/name": "test-app" }`, metadata.labels)', false, { metadata: { labels: { app: 'test-app' } } }],
]);

errors('regex', [
  ["regex_match('(abc', 'abc')", 'error parsing regexp: missing closing ): `(abc`'],
  ["regex_replace_all('a**', 'x', 'y')", "JMESPath function 'regex_replace_all': error parsing regexp: invalid nested repetition operator: `**`"],
  ["regex_match('a', `[1]`)", 'Invalid type for: [1]'],
]);

table('data', [
  ...['{"a":"b"}', 'true', '[1,2,3,{"a":"b"}]', 'null', '[]', '{}', '0', '1.2', '[1.2,true,{"a":{"a":"b"}}]'].map(
    (json): Case => [`to_string(parse_json('${json}'))`, json],
  ),
  ['parse_json(\'{"a": "b"}\').a', 'b'],
  ["parse_json('{\"a\": [1, 2, 3, 4]}').a[0]", 1],
  ["parse_json('[1, 2, {\"a\": {\"b\": {\"c\": [1, 2]}}}]')[2].a.b.c[1]", 2],
  ["parse_yaml('a: b')", { a: 'b' }],
  ["parse_yaml('\n- 1\n- 2\n- 3\n- a: b')", [1, 2, 3, { a: 'b' }]],
  ["parse_yaml('\nspec:\n  test: 1\n  test2:\n    - 2\n    - 3\n')", { spec: { test: 1, test2: [2, 3] } }],
  ["parse_yaml('\nbar: >\n  this is not a normal string it\n  spans more than\n  one line\n  see?')", { bar: 'this is not a normal string it spans more than one line see?' }],
  ["parse_yaml('\n---\nfoo: ~\nbar: null\n')", { bar: null, foo: null }],
  ["parse_yaml('enabled: yes\nday: 2021-01-02')", { enabled: true, day: '2021-01-02' }],
  ...(
    [
      ['{}', '"key1"', null],
      ['{"key1": "value1"}', '"key2"', null],
      ['{"key1": "value1"}', '"key1"', 'value1'],
      ['{"": "value1"}', '""', 'value1'],
      ['{"k": 123}', '"k"', 123],
      ['{"k": 12.34}', '"k"', 12.34],
      ['{"k": true}', '"k"', true],
      ['{"k": false}', '"k"', false],
      ['{"k": null}', '"k"', null],
      ['{"k":  [7, "x", true] }', '"k"', [7, 'x', true]],
      ['{"k": {"key1":true}}', '"k"', { key1: true }],
      ['[]', '0', null],
      ['["item0"]', '-1', null],
      ['["item0"]', '1', null],
      ['["item0"]', '0', 'item0'],
      ['["item0", "item1", "item2", "item3"]', '2', 'item2'],
      ['["item0", "item1"]', '0.99999999999999999999999999999999999999999999', 'item1'],
      ['[123]', '0', 123],
      ['[12.34]', '0', 12.34],
      ['[true]', '0', true],
      ['[false]', '0', false],
      ['[null]', '0', null],
      ['[ [7, "x", true] ]', '0', [7, 'x', true]],
      ['[{"key1":true}]', '0', { key1: true }],
    ] as [string, string, unknown][]
  ).map(([collection, key, expected]): Case => [`lookup(\`${collection}\`,\`${key}\`)`, expected]),
  ['items(`{ "key1": "value1" }`, `"key"`, `"value"`)', [{ key: 'key1', value: 'value1' }]],
  [
    'items(`{ "key2": "value2", "key1": "value1" }`, `"key"`, `"value"`)',
    [
      { key: 'key1', value: 'value1' },
      { key: 'key2', value: 'value2' },
    ],
  ],
  [
    'items(`{ "key1": "value1", "key2": "value2" }`, `"myKey"`, `"myValue"`)',
    [
      { myKey: 'key1', myValue: 'value1' },
      { myKey: 'key2', myValue: 'value2' },
    ],
  ],
  [
    'items(`["A", "B", "C"]`, `"myKey"`, `"myValue"`)',
    [
      { myKey: 0, myValue: 'A' },
      { myKey: 1, myValue: 'B' },
      { myKey: 2, myValue: 'C' },
    ],
  ],
  ['object_from_lists(`["key1", "key2"]`, `["1", "2"]`)', { key1: '1', key2: '2' }],
  ['object_from_lists(`["key1", "key2"]`, `[1, "2"]`)', { key1: 1, key2: '2' }],
  ['object_from_lists(`["key1", "key2"]`, `[1]`)', { key1: 1, key2: null }],
  ['object_from_lists(`[1, true]`, `["a", "b"]`)', { '1': 'a', true: 'b' }],
]);

errors('data', [
  ['lookup(`{}`,`123`)', 'argument #2 is not of type String'],
  ['lookup(`[]`,`"abc"`)', 'argument #2 is not of type Number'],
  ['lookup(`[]`,`1.5`)', "JMESPath function 'lookup': argument #2: expected an integer number but got: 1.5"],
  ['object_from_lists(`[{}]`, `[1]`)', "JMESPath function 'object_from_lists': argument #1 is not of type StringArray"],
  ["parse_json('{')"],
]);

table('semver', [
  ["semver_compare('4.1.3','>=4.1.x')", true],
  ["semver_compare('4.1.3','!4.x.x')", false],
  ["semver_compare('1.8.6','>1.0.0 <2.0.0')", true],
  ["semver_compare('2.1.5','<2.0.0 || >=3.0.0')", false],
  ["semver_compare('1.2.3','1.2.3')", true],
  ["semver_compare('1.2.3-beta','<1.2.3')", true],
  ["semver_compare('not-a-version','<0.0.1')", true],
  ["semver_compare('1.4.0','1.x.x')", true],
  ["semver_compare('2.0.0','1.x.x')", false],
  ["semver_compare('1.3.0','>= 1.2.0')", true],
]);

table('images', [
  ["image_normalize('nginx')", 'docker.io/nginx:latest'],
  ["image_normalize('docker.io/nginx')", 'docker.io/nginx:latest'],
  ["image_normalize('docker.io/library/nginx')", 'docker.io/library/nginx:latest'],
  ["image_normalize('ghcr.io/library/nginx')", 'ghcr.io/library/nginx:latest'],
  ["image_normalize('ghcr.io/nginx')", 'ghcr.io/nginx:latest'],
  ["image_normalize('ghcr.io/nginx:latest')", 'ghcr.io/nginx:latest'],
  ["image_normalize('ghcr.io/nginx:1.2')", 'ghcr.io/nginx:1.2'],
  ["image_normalize('localhost:5000/app@sha256:0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef')", 'localhost:5000/app@sha256:0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef'],
]);

describe('images errors and configuration', () => {
  it("image_normalize('') reports Kyverno's message", () => {
    expect(expectError("image_normalize('')").message).toBe(
      "JMESPath function 'image_normalize': bad image: docker.io/, defaultRegistry: docker.io, enableDefaultRegistryMutation: true: invalid reference format",
    );
  });
  it('honours the default registry and mutation switch from the context', () => {
    expect(value("image_normalize('nginx')", null, { defaultRegistry: 'mirror.local' })).toBe('mirror.local/nginx:latest');
    expect(value("image_normalize('nginx')", null, { enableDefaultRegistryMutation: false })).toBe('nginx:latest');
  });
  it('is_external_url classifies IP literals offline and needs resolved addresses for names', () => {
    expect(value("is_external_url('http://10.0.0.1/x')")).toBe(false);
    expect(value("is_external_url('https://8.8.8.8')")).toBe(true);
    expect(expectError("is_external_url('https://example.com')")).toMatchObject({ kind: 'Unsupported' });
    expect(value("is_external_url('https://example.com')", null, { resolveHost: () => ['93.184.216.34'] })).toBe(true);
    expect(value("is_external_url('https://internal.svc')", null, { resolveHost: () => ['127.0.0.1'] })).toBe(false);
  });
  it('x509_decode answers the Go parse errors as they are (more in x509.test.ts)', () => {
    expect(expectError("x509_decode('-----BEGIN CERTIFICATE-----\nAAAA\n-----END CERTIFICATE-----')")).toEqual({ kind: 'Runtime', message: 'x509: malformed certificate' });
    expect(expectError("x509_decode('xyz')")).toEqual({ kind: 'Runtime', message: 'failed to decode PEM block' });
  });
});

describe('random', () => {
  it('is deterministic under a seeded generator and matches its pattern', () => {
    const a = value("random('[a-z0-9]{6}-\\d{2}')", null, { random: seededRandom(42) });
    const b = value("random('[a-z0-9]{6}-\\d{2}')", null, { random: seededRandom(42) });
    expect(a).toBe(b);
    expect(a).toMatch(/^[a-z0-9]{6}-\d{2}$/);
    expect(value("random('(foo|bar)+x?')", null, { random: seededRandom(7) })).toMatch(/^(foo|bar)+x?$/);
  });
  it('rejects an empty pattern', () => {
    expect(expectError("random('')").message).toBe('no pattern provided');
  });
});
