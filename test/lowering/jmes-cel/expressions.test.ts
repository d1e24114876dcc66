/**
 * The differential proof for JMESPath expressions: every expression below is compiled for each target; an
 * accepted one must agree with Kyverno's JMESPath (src/jmespath) on every document, and its CEL must compile in
 * the target environment. Refusals are listed with their class in REFUSED (a refusal is fine, a wrong answer
 * is a bug); an expression not listed there must be accepted.
 */
import { describe, expect, it } from 'vitest';
import { jmesToCel } from '../../../src/lowering/jmes-cel/index.js';
import { DOCS, TYPED_DOCS } from './docs.js';
import { differential, TALLY, SCOPE, TARGETS, TYPED_SCOPE } from './harness.js';

const o = 'request.object';

export const EXPRESSIONS: string[] = [
  // field chains, quoted fields, indexes
  `${o}.metadata.name`,
  `${o}.metadata.labels.app`,
  `${o}.metadata.labels."app.kubernetes.io/name"`,
  `${o}.metadata.annotations."x/y"`,
  `${o}.spec.replicas`,
  `${o}.spec.containers[0].image`,
  `${o}.spec.containers[1].name`,
  `${o}.spec.containers[-1].name`,
  `${o}.spec.containers[-3].name`,
  `${o}.spec.containers[5].name`,
  `${o}.spec.containers[0].ports[0].containerPort`,
  `${o}.kind`,
  'request.operation',
  'request.namespace',
  'request.userInfo.username',
  'request.userInfo.groups[0]',
  'request.kind.kind',
  'element.name',
  'element.image',
  'elementIndex',
  'foo',
  'foo.k',
  `${o}.spec.none`,
  `${o}.spec.none.deeper`,
  `${o}.metadata.missing`,
  `${o}.spec.obj.x`,
  `${o}.spec."obj".y`,
  `${o}.spec.nested[0][1]`,
  `${o}`,
  `${o}.spec.containers`,
  `${o}.spec."in"`,
  `${o}.metadata.namespace`,
  // or, and, not
  `${o}.metadata.labels.app || 'default'`,
  `${o}.metadata.labels.missing || 'default'`,
  `${o}.spec.empty || 'fallback'`,
  `${o}.spec.replicas || \`1\``,
  `${o}.spec.containers || \`[]\``,
  `${o}.spec.flag && 'yes'`,
  `${o}.spec.off && 'yes'`,
  `${o}.metadata.labels.tier && 'x'`,
  `!(${o}.spec.flag)`,
  `!(${o}.spec.empty)`,
  `!(${o}.metadata.labels.missing)`,
  `${o}.spec.none || ${o}.spec.obj`,
  `${o}.metadata.labels.app && ${o}.metadata.labels.team`,
  `${o}.metadata.labels.app && ${o}.metadata.labels.missing`,
  `${o}.spec.replicas || ${o}.spec.missing`,
  "`0` || 'x'",
  "`{}` || 'x'",
  "request.operation == 'CREATE' || request.operation == 'UPDATE'",
  `(${o}.metadata.labels.app || ${o}.metadata.labels.team) && 'both'`,
  // comparisons
  `${o}.spec.replicas > \`2\``,
  `${o}.spec.replicas >= \`3\``,
  `${o}.spec.replicas < \`1.5\``,
  `${o}.spec.ratio <= \`0.25\``,
  `${o}.spec.text > \`1\``,
  `${o}.metadata.name == 'web-1'`,
  `${o}.metadata.name != 'web-1'`,
  `${o}.spec.replicas == \`3.0\``,
  `${o}.spec.obj == \`{"x":1,"y":"two","z":null}\``,
  `${o}.spec.words == \`["b","a","c","a"]\``,
  `${o}.metadata.labels.missing == \`null\``,
  `${o}.spec.flag == \`true\``,
  `${o}.spec.replicas == '3'`,
  `${o}.spec.nums[0] > ${o}.spec.nums[1]`,
  `${o}.spec.missing < \`1\``,
  // literals
  "'raw string'",
  '`"json string"`',
  '`42`',
  '`-1.5`',
  '`[1, "a", null]`',
  '`{"a": {"b": [1, 2]}}`',
  '`true`',
  "'it\\'s'",
  '`1e21`',
  // multiselect
  `[${o}.metadata.name, ${o}.spec.replicas]`,
  `{name: ${o}.metadata.name, n: ${o}.spec.replicas}`,
  `${o}.metadata.[name, namespace]`,
  `${o}.spec.containers[0].{n: name, i: image}`,
  `${o}.spec.none.[a, b]`,
  `${o}.spec.containers[*].[name, image]`,
  `[${o}.metadata.missing, 'x']`,
  `{a: ${o}.spec.none, b: \`[]\`}`,
  // projections, flatten, slices
  `${o}.spec.containers[*].name`,
  `${o}.spec.containers[*].ports[*].containerPort`,
  `${o}.spec.containers[].ports[].containerPort`,
  `${o}.spec.nested[]`,
  `${o}.spec.nested[][]`,
  `${o}.spec.containers[*].missing`,
  `${o}.spec.words[*]`,
  `${o}.spec.mixed[*]`,
  `${o}.metadata.labels.*`,
  `${o}.spec.obj.*`,
  `${o}.spec.containers[*].resources.limits.memory`,
  `${o}.spec.containers[0:1].name`,
  `${o}.spec.words[1:3]`,
  `${o}.spec.words[::-1]`,
  `${o}.spec.words[-2:]`,
  `${o}.spec.text[0:5]`,
  `${o}.spec.words[::2]`,
  `${o}.spec.words[5:1:-1]`,
  `${o}.spec.text[::-1]`,
  `${o}.spec.containers[*].ports[0]`,
  // filters
  `${o}.spec.containers[?name=='nginx'].image`,
  `${o}.spec.containers[?name=='nginx'] | [0].image`,
  `${o}.spec.containers[?ports].name`,
  `${o}.spec.containers[?ports[?containerPort==\`80\`]].name`,
  `${o}.spec.nums[?@ > \`1\`]`,
  `${o}.spec.words[?@ == 'a']`,
  `${o}.spec.containers[?starts_with(image, 'nginx')].name`,
  `${o}.spec.containers[?!ports].name`,
  `${o}.spec.containers[?name=='x' || name=='side'].name`,
  `${o}.spec.mixed[?@]`,
  `${o}.spec.containers[?length(ports) > \`0\`].name`,
  // pipes
  `${o}.spec.containers | length(@)`,
  `${o}.spec.containers[*].name | [0]`,
  `${o}.metadata.labels | keys(@)`,
  `${o}.metadata | name`,
  `${o}.spec.missing | length(@)`,
  `${o}.metadata.labels | app`,
  `${o}.metadata.missing | @`,
  // standard functions
  `length(${o}.metadata.name)`,
  `length(${o}.spec.words)`,
  `length(${o}.metadata.labels)`,
  `length(${o}.metadata.annotations.note)`,
  `length(${o}.spec.replicas)`,
  `to_string(${o}.spec.replicas)`,
  `to_string(${o}.spec.ratio)`,
  `to_string(${o}.spec.big)`,
  `to_string(${o}.spec.small)`,
  `to_string(${o}.spec.flag)`,
  `to_string(${o}.spec.none)`,
  `to_string(${o}.spec.words)`,
  `to_string(${o}.spec.obj)`,
  `to_string(${o}.metadata.name)`,
  `to_string(${o}.spec.quoted)`,
  `to_string([${o}.spec.quoted, ${o}.spec.neg, ${o}.spec.small])`,
  `to_string(${o}.spec.nested)`,
  `keys(${o}.metadata.labels)`,
  `values(${o}.spec.obj)`,
  `join(',', ${o}.spec.words)`,
  `join(',', ${o}.spec.nums)`,
  `contains(${o}.spec.words, 'a')`,
  `contains(${o}.metadata.name, 'web')`,
  `contains(${o}.spec.nums, \`1.5\`)`,
  `contains(${o}.spec.words, \`1\`)`,
  `not_null(${o}.metadata.labels.missing, ${o}.spec.none, 'x')`,
  `not_null(${o}.spec.none)`,
  `starts_with(${o}.metadata.name, 'web')`,
  `ends_with(${o}.spec.containers[0].image, ':1.25')`,
  `sort(${o}.spec.words)`,
  `sort(${o}.spec.nums)`,
  `sort(${o}.spec.mixed)`,
  `merge(${o}.metadata.labels, \`{"extra":"1","app":"over"}\`)`,
  `merge(\`{}\`, ${o}.spec.obj)`,
  `merge(${o}.spec.obj, ${o}.spec.obj, \`{"x":2}\`)`,
  `to_array(${o}.metadata.name)`,
  `to_array(${o}.spec.words)`,
  "to_number('42')",
  `to_number(${o}.metadata.annotations.num)`,
  `to_number(${o}.metadata.annotations.big)`,
  `to_number(${o}.spec.text)`,
  `type(${o}.spec.replicas)`,
  `type(${o}.spec.words)`,
  `type(${o}.spec.obj)`,
  `abs(${o}.spec.neg)`,
  `ceil(${o}.spec.ratio)`,
  `floor(${o}.spec.big)`,
  `ceil(${o}.spec.neg)`,
  `max(${o}.spec.nums)`,
  `min(${o}.spec.words)`,
  `avg(${o}.spec.nums)`,
  `reverse(${o}.spec.words)`,
  `reverse(${o}.metadata.annotations.note)`,
  `map(&name, ${o}.spec.containers)`,
  `map(&to_string(@), ${o}.spec.nums)`,
  `length(keys(${o}.metadata.labels))`,
  // Kyverno string functions
  `to_upper(${o}.spec.upper)`,
  `to_lower(${o}.spec.upper)`,
  `to_upper(${o}.metadata.annotations.note)`,
  `split(${o}.spec.csv, ',')`,
  `split(${o}.metadata.name, '')`,
  `replace_all(${o}.spec.path, '/', '_')`,
  `replace_all(${o}.metadata.name, '', '-')`,
  `replace(${o}.spec.csv, ',', ';', \`1\`)`,
  `replace(${o}.metadata.name, '', '+', \`2\`)`,
  `trim(${o}.spec.spaced, ' ')`,
  `trim(${o}.spec.path, 'ac/')`,
  `trim_prefix(${o}.spec.containers[1].image, 'docker.io/')`,
  `truncate(${o}.metadata.name, \`3\`)`,
  `truncate(${o}.spec.text, \`100\`)`,
  `truncate(${o}.spec.text, \`-1\`)`,
  `compare(${o}.metadata.name, 'web')`,
  `equal_fold(${o}.spec.upper, 'mixed')`,
  "to_boolean('True')",
  `to_boolean(${o}.spec.text)`,
  // regex and matching
  `regex_match('^web-[0-9]+$', ${o}.metadata.name)`,
  `regex_match('[', ${o}.metadata.name)`,
  `regex_match('^3$', ${o}.spec.replicas)`,
  `pattern_match('web-*', ${o}.metadata.name)`,
  `pattern_match('w?b-?', ${o}.metadata.name)`,
  `pattern_match(${o}.metadata.labels.app, 'web')`,
  `pattern_match('*', ${o}.spec.text)`,
  `pattern_match('a.(b)*', 'a.(b)xyz')`,
  `label_match(\`{"app":"web"}\`, ${o}.metadata.labels)`,
  `label_match(${o}.metadata.labels, \`{"app":"web"}\`)`,
  `regex_replace_all('([a-z]+)-([0-9]+)', ${o}.metadata.name, '$2-$1')`,
  `regex_replace_all_literal('[0-9]', ${o}.metadata.name, '$1')`,
  `regex_replace_all('^(?P<repo>[^:]+):(.*)$', ${o}.spec.containers[0].image, '\${repo}@$2')`,
  "regex_replace_all('(a)(b)?', 'xaby ab', '<$1|$2|$1x|$$|${1}|$3|\\|$>')",
  `regex_replace_all('(?P<first>[a-z])(?P<second>[0-9]?)', ${o}.metadata.name, '\${second}\${first}$')`,
  String.raw`regex_replace_all_literal('b', 'abc', '\$1')`,
  // arithmetic
  `add(${o}.spec.replicas, \`1\`)`,
  "add('1Gi', '512Mi')",
  `subtract(${o}.metadata.name, '1')`,
  `add(${o}.spec.upper, ${o}.spec.replicas)`,
  `subtract(${o}.spec.replicas, ${o}.spec.ratio)`,
  `multiply(${o}.spec.replicas, \`2.5\`)`,
  `divide(${o}.spec.replicas, \`2\`)`,
  `divide(${o}.spec.replicas, \`0\`)`,
  `modulo(${o}.spec.replicas, \`2\`)`,
  `modulo(${o}.spec.ratio, \`2\`)`,
  `sum(${o}.spec.nums)`,
  'sum(`[]`)',
  "sum(['only'])",
  // data
  `lookup(${o}.metadata.labels, 'app')`,
  `lookup(${o}.metadata.labels, 'nope')`,
  `lookup(${o}.spec.words, \`1\`)`,
  `lookup(${o}.spec.words, \`9\`)`,
  `items(${o}.metadata.labels, 'key', 'value')`,
  `items(${o}.spec.words, 'i', 'w')`,
  `items(${o}.spec.obj, 'k', 'k')`,
  `object_from_lists(${o}.spec.words, ${o}.spec.nums)`,
  'object_from_lists(`["a","b","a"]`, `[1]`)',
  `base64_decode(${o}.spec.b64)`,
  `base64_encode(${o}.metadata.name)`,
  // combinations
  `${o}.metadata.labels.app == ${o}.metadata.labels.team`,
  `length(${o}.spec.replicas) || 'x'`,
  `not_null(length(${o}.spec.replicas), 'x')`,
  `${o}.spec.mixed[?length(@) > \`0\`]`,
  `${o}.spec.words[?@ > 'a']`,
  `${o}.spec.containers[*].ports[?containerPort > \`100\`].containerPort`,
  `{"a-b": ${o}.metadata.name, "in": \`1\`}`,
  `${o}.spec.containers[?image == 'nginx:1.25'] | length(@)`,
  `${o}.spec.containers[*].to_string(@)`,
  `sort(keys(${o}.metadata.labels))`,
  `join(',', sort(keys(${o}.metadata.labels || \`{}\`)))`,
  `length(${o}.spec.containers[?name=='x'])`,
  `${o}.spec.nested[?length(@) > \`1\`]`,
  'to_string(`1e-7`)',
  'to_string(`0.000001`)',
  'to_string(`1e21`)',
  'to_string(`123456789012`)',
  'to_string(`1.5e300`)',
  'to_string(`-0.00001`)',
  'to_string(`1234567.125`)',
  '`"a"` == \'a\'',
  `merge(${o}.metadata.labels, ${o}.metadata.annotations)`,
  `items(${o}.metadata.labels, 'k', 'v')[?k=='app'].v | [0]`,
  `contains(keys(${o}.metadata.labels), 'app')`,
  `starts_with(${o}.metadata.name, ${o}.metadata.namespace)`,
  `request | operation`,
  `request.userInfo.groups[?starts_with(@, 'system:')]`,
  `length(request.userInfo.groups) > \`1\` && request.userInfo.username`,
  `element.ports[*].containerPort`,
  `foo || element.name`,
  `items(${o}.spec.replicas, 'k', 'v')[?k=='app']`,
  `keys(${o}.metadata.labels)[?@ != 'app']`,
  `values(${o}.spec.obj)[]`,
  `length(${o}.spec.containers)[]`,
  // shapes the typed scope compiles differently (optional paths, nullable lists, typed items)
  `${o}.metadata.labels.app || ${o}.metadata.labels.team || 'none'`,
  `${o}.metadata.name == ''`,
  `${o}.metadata.name != ''`,
  `${o}.metadata.finalizers || \`[]\``,
  `${o}.metadata.finalizers[0]`,
  `${o}.metadata.labels.*`,
  `${o}.spec.containers[*].ports[0].containerPort`,
  `${o}.spec.containers[-1].name`,
  `${o}.spec.containers[?image == 'i*'].name | [0]`,
  `${o}.spec.initContainers[?name == 'init'] | [0].image`,
  `length(${o}.spec.initContainers || \`[]\`) > \`0\``,
  `not_null(${o}.metadata.labels.app, 'x')`,
  `to_string(${o}.metadata.labels)`,
  `element.ports[0].containerPort`,
  `element.ports[0].containerPort == \`80\``,
  `element.ports[?containerPort > \`100\`].containerPort`,
  `element.ports[*].protocol`,
  `element.args[-1]`,
  `element.args || \`[]\``,
  `join(',', element.args || \`[]\`)`,
  `element.env[?name=='A'].value | [0]`,
  `element.resources.limits.memory || ''`,
  `element.securityContext.runAsUser > \`0\``,
  `contains(element.args, '*')`,
  `element.name && element.image`,
  `!element.securityContext.privileged`,
  `[element.name, element.image]`,
  `{n: element.name, i: element.image}`,
  `starts_with(element.name, request.namespace)`,
  `regex_match('^[a-z]+$', element.name)`,
  `pattern_match('c?', element.name)`,
  `split(element.image, ':')[-1]`,
  `split(element.image, '')[0]`,
  `length(request.userInfo.groups)`,
  `request.kind.group || 'core'`,
  // errors Kyverno raises for every input
  'length(`1`, `2`)',
  'no_such_function(`1`)',
];

type Cls = 'cannot' | 'yet';
/** Expected refusals per target name (absent: accepted). */
export const REFUSED: Record<string, Partial<Record<'map 1.36' | 'map 1.32' | 'kyverno-mpol', Cls>>> = {
  [`${o}.spec.containers[].ports[].containerPort`]: { 'map 1.32': 'cannot' },
  [`${o}.spec.nested[]`]: { 'map 1.32': 'cannot' },
  [`${o}.spec.nested[][]`]: { 'map 1.32': 'cannot' },
  [`values(${o}.spec.obj)[]`]: { 'map 1.32': 'cannot' },
  [`regex_replace_all('([a-z]+)-([0-9]+)', ${o}.metadata.name, '$2-$1')`]: { 'map 1.36': 'cannot', 'map 1.32': 'cannot' },
  [`regex_replace_all_literal('[0-9]', ${o}.metadata.name, '$1')`]: { 'map 1.36': 'cannot', 'map 1.32': 'cannot' },
  [`regex_replace_all('^(?P<repo>[^:]+):(.*)$', ${o}.spec.containers[0].image, '\${repo}@$2')`]: { 'map 1.36': 'cannot', 'map 1.32': 'cannot' },
  [`base64_decode(${o}.spec.b64)`]: { 'map 1.36': 'cannot', 'map 1.32': 'cannot' },
  ["regex_replace_all('(a)(b)?', 'xaby ab', '<$1|$2|$1x|$$|${1}|$3|\\|$>')"]: { 'map 1.36': 'cannot', 'map 1.32': 'cannot' },
  [`regex_replace_all('(?P<first>[a-z])(?P<second>[0-9]?)', ${o}.metadata.name, '\${second}\${first}$')`]: { 'map 1.36': 'cannot', 'map 1.32': 'cannot' },
  [String.raw`regex_replace_all_literal('b', 'abc', '\$1')`]: { 'map 1.36': 'cannot', 'map 1.32': 'cannot' },
  [`base64_encode(${o}.metadata.name)`]: { 'map 1.36': 'cannot', 'map 1.32': 'cannot' },
  [`${o}.spec.containers[?ports[?containerPort==\`80\`]].name`]: {},
};

/** Expressions refused everywhere, with the class. */
export const REFUSED_EVERYWHERE: [string, Cls][] = [
  ['time_now_utc()', 'cannot'],
  ["random('[a-z]{5}')", 'cannot'],
  ["is_external_url('http://example.com')", 'cannot'],
  ['images.containers.nginx.tag', 'yet'],
  ['serviceAccountName', 'yet'],
  ['request.roles', 'cannot'],
  ['@', 'cannot'],
  ['*', 'cannot'],
  ['target.metadata.name', 'cannot'],
  ['element2.name', 'cannot'],
  ['apiCallResult.items', 'cannot'],
  [`sort_by(${o}.spec.containers, &name)`, 'yet'],
  [`max_by(${o}.spec.containers, &name)`, 'yet'],
  ["semver_compare('1.2.3', '>1.0.0')", 'yet'],
  ["time_add('2023-01-01T00:00:00Z', '1h')", 'yet'],
  ["path_canonicalize('a/../b')", 'yet'],
  [`round(${o}.spec.ratio, \`1\`)`, 'yet'],
  ["image_normalize('nginx')", 'yet'],
  [`${o}.metadata.labels.*.length(@)`, 'yet'],
  [`[? \`true\`]`, 'cannot'],
  ['a.[', 'cannot'],
  [`sum(${o}.spec.nums)[?@]`, 'cannot'],
  [`${o}.spec.containers[elementIndex]`, 'cannot'],
];

describe('JMESPath → CEL: differential against Kyverno JMESPath', () => {
  for (const { name: targetName, target } of TARGETS) {
    describe(targetName, () => {
      for (const expr of EXPRESSIONS) {
        const expected = REFUSED[expr]?.[targetName as 'map 1.36'];
        it(expr, () => {
          if (expected !== undefined) {
            const c = jmesToCel(expr, SCOPE, target);
            expect(c.ok, c.ok ? c.cel : '').toBe(false);
            if (!c.ok) expect(c.class, c.why).toBe(expected);
            return;
          }
          differential(expr, SCOPE, target, DOCS);
        });
      }
      for (const [expr, cls] of REFUSED_EVERYWHERE) {
        it(`refuses ${expr} (${cls})`, () => {
          const c = jmesToCel(expr, SCOPE, target);
          expect(c.ok).toBe(false);
          if (!c.ok) {
            expect(c.class, c.why).toBe(cls);
            expect(c.why.length).toBeGreaterThan(10);
          }
        });
      }
    });
  }

  // The same expressions with the object typed as a Pod and the element as a container, on documents that
  // respect those types: typed CEL must agree with Kyverno wherever the types hold.
  describe('typed', () => {
    for (const { name: targetName, target } of TARGETS) {
      describe(targetName, () => {
        for (const expr of EXPRESSIONS) {
          if (REFUSED[expr]?.[targetName as 'map 1.36'] === undefined) it(expr, () => differential(expr, TYPED_SCOPE, target, TYPED_DOCS));
        }
      });
    }
  });

  it('has at least 150 expressions', () => {
    expect(EXPRESSIONS.length).toBeGreaterThanOrEqual(150);
  });
  it('agrees on value or failure in (almost) every run', () => {
    const total = TALLY.sameValue + TALLY.bothFail + TALLY.guarded;
    // eslint-disable-next-line no-console
    console.log(`expressions: ${total} runs: ${TALLY.sameValue} same value, ${TALLY.bothFail} both fail, ${TALLY.guarded} noted guard`);
    expect(TALLY.guarded).toBeLessThan(total / 20);
  });
});
