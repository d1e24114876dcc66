/**
 * Issue 13, "Hostile input": inputs that are not Kubernetes objects, Lists, standard input named twice, runs
 * with nothing to read, control characters echoed to the terminal, exit codes, `--diagnostics json` with no
 * diagnostics.
 */
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { renderDiagnostic, SourceRegistry } from '../../src/diagnostics/render.js';
import { diagnostic } from '../../src/diagnostics/diagnostic.js';
import { POLICY as KYVERNO_POLICY, RESOURCES, testFile } from '../dialects/kyverno/test-suite-support.js';
import { POD, POLICY, run, tempFiles } from './support.js';

/** A raw control character anywhere in the text (tab and line feed excepted). */
const RAW_CONTROL = /[\x00-\x08\x0B-\x1F\x7F-\x9F]/;

function firstLine(stderr: string): string {
  return stderr.split('\n')[0]!;
}

describe('1. inputs that are not Kubernetes objects are refused with exit 2 and a place', () => {
  const dir = tempFiles({ 'policy.yaml': POLICY, 'pod.yaml': POD });
  const policy = join(dir, 'policy.yaml');

  it('a number, a sequence or a mapping without apiVersion/kind on standard input', async () => {
    const num = await run(['apply', '-p', policy, '-r', '-'], '42\n');
    expect(num.code).toBe(2);
    expect(firstLine(num.stderr)).toBe('<stdin>:1:1: error TM1005: document 1 is a number, not a mapping');
    expect(num.stdout).toBe('');
    const seq = await run(['apply', '-p', policy, '-r', '-'], '- a\n- b\n');
    expect(seq.code).toBe(2);
    expect(firstLine(seq.stderr)).toBe('<stdin>:1:1: error TM1005: document 1 is a sequence, not a mapping');
    const map = await run(['apply', '-p', policy, '-r', '-'], 'foo: bar\n');
    expect(map.code).toBe(2);
    expect(firstLine(map.stderr)).toBe('<stdin>:1:1: error TM1008: the document is not a Kubernetes object: it has no apiVersion and no kind');
    expect(map.stdout).toBe('');
    const noApiVersion = await run(['apply', '-p', policy, '-r', '-'], POD + '---\nkind: Pod\nmetadata: {name: x}\n');
    expect(noApiVersion.code).toBe(2);
    expect(firstLine(noApiVersion.stderr)).toBe('<stdin>:10:7: error TM1008: the document is not a Kubernetes object: it has no apiVersion');
  });

  it('a scalar policy document, a scalar --target-resource, an --old-object without kind', async () => {
    const p = await run(['apply', '-p', '-', '-r', join(dir, 'pod.yaml')], '"just a string"\n');
    expect(p.code).toBe(2);
    expect(firstLine(p.stderr)).toBe('<stdin>:1:1: error TM1005: document 1 is a string, not a mapping');
    const t = await run(['apply', '-p', policy, '-r', join(dir, 'pod.yaml'), '--target-resource', '-'], 'true\n');
    expect(t.code).toBe(2);
    expect(firstLine(t.stderr)).toContain('TM1005');
    const o = await run(['apply', '-p', policy, '-r', join(dir, 'pod.yaml'), '--old-object', '-'], 'spec: {}\n');
    expect(o.code).toBe(2);
    expect(firstLine(o.stderr)).toBe('<stdin>:1:1: error TM1008: the --old-object document is not a Kubernetes object: it has no apiVersion and no kind');
    const ir = await run(['ir', '-p', '-'], '- 1\n');
    expect(ir.code).toBe(2);
    expect(firstLine(ir.stderr)).toContain('<stdin>:1:1: error TM1005');
  });

  it('a binary file (invalid UTF-8) names the file and the byte offset', async () => {
    const bin = join(dir, 'binary.yaml');
    writeFileSync(bin, Buffer.concat([Buffer.from('apiVersion: v1\nkind: Pod\nmetadata:\n  name: '), Buffer.from([0xff, 0xfe, 0x00, 0x41]), Buffer.from('\n')]));
    const r = await run(['apply', '-p', policy, '-r', bin]);
    expect(r.code).toBe(2);
    expect(firstLine(r.stderr)).toBe(`${bin}:4:9: error TM1009: ${bin} is not UTF-8 text: invalid byte 0xFF at byte offset 43 (a binary file?)`);
    expect(r.stdout).toBe('');
    expect(r.stderr).not.toMatch(RAW_CONTROL);
    // As a policy too.
    const p = await run(['ir', '-p', bin]);
    expect(p.code).toBe(2);
    expect(firstLine(p.stderr)).toContain('TM1009');
  });

  it('a UTF-8 file holding control characters (NUL, ESC) is not YAML text', async () => {
    const r = await run(['apply', '-p', policy, '-r', '-'], 'apiVersion: v1\nkind: Pod\x00\x1b[2J\nmetadata: {name: a}\n');
    expect(r.code).toBe(2);
    expect(firstLine(r.stderr)).toBe(
      '<stdin>:2:10: error TM1009: <stdin> is not YAML text: control character U+0000 at byte offset 24 (a binary file?); YAML allows tabs, line breaks and printable characters only',
    );
    expect(r.stderr).not.toMatch(RAW_CONTROL);
    expect(r.stdout).toBe('');
  });
});

describe('2. Lists are expanded into their items, for resources and for policies', () => {
  const POD_LIST = `apiVersion: v1
kind: List
items:
- apiVersion: v1
  kind: Pod
  metadata:
    name: a
- apiVersion: v1
  kind: ConfigMap
  metadata:
    name: b
`;

  it('each item of a kind: List resource is one request; the List itself is not mutated', async () => {
    const dir = tempFiles({ 'policy.yaml': POLICY, 'list.yaml': POD_LIST });
    const r = await run(['apply', '-p', join(dir, 'policy.yaml'), '-r', join(dir, 'list.yaml'), '-o', 'json']);
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    const out = JSON.parse(r.stdout);
    expect(out.kind).toBe('List');
    expect(out.metadata).toBeUndefined();
    expect(out.items.map((i: { kind: string; metadata: { name: string; labels: object } }) => [i.kind, i.metadata.name, i.metadata.labels])).toEqual([
      ['Pod', 'a', { team: 'platform' }],
      ['ConfigMap', 'b', { team: 'platform' }],
    ]);
  });

  it('a PodList (kubectl get -o yaml) gives its items apiVersion and kind when they have neither', async () => {
    const dir = tempFiles({ 'policy.yaml': POLICY });
    const list = await run(['apply', '-p', join(dir, 'policy.yaml'), '-r', '-', '-o', 'json'], 'apiVersion: v1\nkind: PodList\nitems:\n- metadata: {name: a}\n');
    expect(list.code).toBe(0);
    expect(JSON.parse(list.stdout)).toEqual({ apiVersion: 'v1', kind: 'Pod', metadata: { name: 'a', labels: { team: 'platform' } } });
  });

  it('the diagnostics of an item point into the items of the List document', async () => {
    const dir = tempFiles({ 'policy.yaml': POLICY });
    const list = 'apiVersion: v1\nkind: List\nitems:\n- apiVersion: v1\n  kind: Pod\n  metadata: {name: a}\n- metadata: {name: b}\n  kind: Pod\n- 42\n';
    const r = await run(['apply', '-p', join(dir, 'policy.yaml'), '-r', '-'], list);
    expect(r.code).toBe(2);
    const lines = r.stderr.split('\n').filter((l) => /^<stdin>/.test(l));
    expect(lines).toEqual([
      '<stdin>:9:3: error TM1005: the List item is a number, not a mapping',
      '<stdin>:8:9: error TM1008: the document is not a Kubernetes object: it has no apiVersion',
    ]);
    expect(r.stderr).toContain('  - 42\n    ^^\n');
  });

  it('a List of policies: each item is a policy, with origins inside the List', async () => {
    const indented = POLICY.trimEnd()
      .split('\n')
      .map((l, i) => (i === 0 ? `- ${l}` : `  ${l}`))
      .join('\n');
    const dir = tempFiles({ 'policies.yaml': `apiVersion: v1\nkind: List\nitems:\n${indented}\n`, 'pod.yaml': POD });
    const ir = await run(['ir', '-p', join(dir, 'policies.yaml'), '--origins']);
    expect(ir.stderr).toBe('');
    expect(ir.code).toBe(0);
    expect(ir.stdout).toContain('policy add-team  @4:3\n');
    expect(ir.stdout).toContain('set object.metadata.labels.team = "platform"  @14:9');
    const apply = await run(['apply', '-p', join(dir, 'policies.yaml'), '-r', join(dir, 'pod.yaml'), '-o', 'json']);
    expect(apply.code).toBe(0);
    expect(JSON.parse(apply.stdout).metadata.labels).toEqual({ team: 'platform' });
    const bad = await run(['ir', '-p', '-'], 'apiVersion: v1\nkind: List\nitems:\n- apiVersion: example.com/v1\n  kind: Mystery\n');
    expect(bad.code).toBe(2);
    expect(firstLine(bad.stderr)).toMatch(/^<stdin>:5:9: error TM2001: no dialect reads example\.com\/v1, Kind=Mystery/);
  });
});

describe('3. standard input can be named once per run', () => {
  const dir = tempFiles({ 'policy.yaml': POLICY, 'pod.yaml': POD });

  it('-p - -r - is a usage error naming both options', async () => {
    const r = await run(['apply', '-p', '-', '-r', '-'], POLICY);
    expect(r.code).toBe(2);
    expect(r.stdout).toBe('');
    expect(firstLine(r.stderr)).toBe('error TM7001: standard input (-) is named by -p and -r; it can be read only once per run');
  });

  it('in any two options, or twice in one, of apply, ir and translate', async () => {
    const policy = join(dir, 'policy.yaml');
    const pod = join(dir, 'pod.yaml');
    const cases: [string[], string][] = [
      [['apply', '-p', policy, '-r', '-', '--old-object', '-'], '-r and --old-object'],
      [['apply', '-p', '-', '-r', pod, '--params', '-'], '-p and --params'],
      [['apply', '-p', policy, '-r', pod, '--user', '-', '--namespace-object', '-'], '--user and --namespace-object'],
      [['apply', '-p', policy, '-r', '-', '--target-resource', '-'], '-r and --target-resource'],
      [['apply', '-p', policy, '-r', '-', '--crd', '-'], '-r and --crd'],
      [['apply', '-p', policy, '-r', pod, '--external-data', '-', '--schema', '-'], '--external-data and --schema'],
      [['apply', '-p', policy, '-r', '-', '-r', '-'], '-r twice'],
      [['ir', '-p', '-', '-p', '-'], '-p twice'],
      [['translate', '-p', '-', '-p', '-', '--to', 'map'], '-p twice'],
    ];
    for (const [argv, by] of cases) {
      const r = await run(argv, POLICY);
      expect(r.code, argv.join(' ')).toBe(2);
      expect(firstLine(r.stderr), argv.join(' ')).toBe(`error TM7001: standard input (-) is named by ${by}; it can be read only once per run`);
    }
  });

  it('cel: -f - and --params - together', async () => {
    const r = await run(['cel', 'object', '-f', '-', '--params', '-'], 'a: 1\n');
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('standard input (-) is named by -f and --params');
  });
});

describe('4. a run with no policies or no resources is a usage error that says which', () => {
  const dir = tempFiles({ 'policy.yaml': POLICY, 'pod.yaml': POD, 'empty.yaml': '', 'comments.yaml': '# nothing\n---\n---\n', 'empty-list.yaml': 'apiVersion: v1\nkind: List\nitems: []\n' });

  it('an empty policy file, or -p - with empty standard input', async () => {
    const empty = await run(['apply', '-p', join(dir, 'empty.yaml'), '-r', join(dir, 'pod.yaml')]);
    expect(empty.code).toBe(2);
    expect(empty.stderr).toBe(`error TM7001: no policy documents in ${join(dir, 'empty.yaml')}\n`);
    expect(empty.stdout).toBe('');
    const stdin = await run(['apply', '-p', '-', '-r', join(dir, 'pod.yaml')], '');
    expect(stdin.code).toBe(2);
    expect(stdin.stderr).toBe('error TM7001: no policy documents in <stdin>\n');
    const comments = await run(['apply', '-p', join(dir, 'comments.yaml'), '-p', join(dir, 'empty-list.yaml'), '-r', join(dir, 'pod.yaml')]);
    expect(comments.code).toBe(2);
    expect(comments.stderr).toBe(`error TM7001: no policy documents in ${join(dir, 'comments.yaml')}, ${join(dir, 'empty-list.yaml')}\n`);
  });

  it('no resources, no target resources', async () => {
    const r = await run(['apply', '-p', join(dir, 'policy.yaml'), '-r', '-'], '');
    expect(r.code).toBe(2);
    expect(r.stderr).toBe('error TM7001: no resources in <stdin>\n');
    const list = await run(['apply', '-p', join(dir, 'policy.yaml'), '-r', join(dir, 'empty-list.yaml')]);
    expect(list.code).toBe(2);
    expect(list.stderr).toContain('no resources in');
    const targets = await run(['apply', '-p', join(dir, 'policy.yaml'), '-r', join(dir, 'pod.yaml'), '--target-resource', join(dir, 'empty.yaml')]);
    expect(targets.code).toBe(2);
    expect(targets.stderr).toContain('no target resources in');
  });

  it('ir and translate with no policy documents', async () => {
    const ir = await run(['ir', '-p', join(dir, 'empty.yaml')]);
    expect(ir.code).toBe(2);
    expect(ir.stderr).toContain('error TM7001: no policy documents in');
    const tr = await run(['translate', '-p', '-', '--to', 'map'], '');
    expect(tr.code).toBe(2);
    expect(tr.stderr).toBe('error TM7001: no policy documents in <stdin>\n');
  });
});

describe('5. control characters of the input are escaped in everything printed to stderr', () => {
  it('a kind holding ESC and BEL: escaped in the message and in the source line', async () => {
    const dir = tempFiles({ 'pod.yaml': POD });
    const r = await run(['apply', '-p', '-', '-r', join(dir, 'pod.yaml')], 'apiVersion: v1\nkind: "\\e]0;pwned\\a"\n');
    expect(r.code).toBe(2);
    expect(r.stderr).not.toMatch(RAW_CONTROL);
    expect(firstLine(r.stderr)).toContain('Kind=\\x1b]0;pwned\\x07 (known:');
  });

  it('--diagnostics json escapes DEL and C1 controls too, and parses to the same message', async () => {
    const dir = tempFiles({ 'pod.yaml': POD });
    const r = await run(['apply', '-p', '-', '-r', join(dir, 'pod.yaml'), '--diagnostics', 'json'], 'apiVersion: v1\nkind: "\\e[31m\\x9b2J\\x7f"\n');
    expect(r.code).toBe(2);
    expect(r.stderr).not.toMatch(RAW_CONTROL);
    expect(JSON.parse(r.stderr)[0].message).toContain('Kind=\x1b[31m\x9b2J\x7f (known:');
  });

  it('--explain escapes names taken from the resource', async () => {
    const dir = tempFiles({ 'policy.yaml': POLICY });
    const r = await run(['apply', '-p', join(dir, 'policy.yaml'), '-r', '-', '--explain'], 'apiVersion: v1\nkind: Pod\nmetadata:\n  name: "a\\e]0;t\\ab"\n');
    expect(r.code).toBe(0);
    expect(r.stderr).toContain('# Pod/a\\x1b]0;t\\x07b\n');
    expect(r.stderr).not.toMatch(RAW_CONTROL);
  });

  it('the renderer keeps the caret under the span when a control character before it is escaped', () => {
    const sources = new SourceRegistry();
    sources.add('f.yaml', 'a: \x1b\x07x: y\tz\n');
    const span = { file: 'f.yaml', line: 1, col: 6, endLine: 1, endCol: 7 };
    const out = renderDiagnostic(diagnostic('TM2002', { phase: 'parse', message: 'bad \x1b[31mred\x9b field', span }), sources);
    expect(out).toBe(['f.yaml:1:6: error TM2002: bad \\x1b[31mred\\x9b field', '  a: \\x1b\\x07x: y\tz', '  ' + ' '.repeat(11) + '^^'].join('\n'));
    // A span on an escaped character is as wide as its escape; tabs stay tabs, in the line and the lead.
    const esc = renderDiagnostic(diagnostic('TM2002', { phase: 'parse', message: 'm', span: { ...span, col: 4, endCol: 4 } }), sources);
    expect(esc.split('\n')[2]).toBe('     ^^^^');
    sources.add('t.yaml', '\tk: \x7fv\n');
    const tab = renderDiagnostic(diagnostic('TM2002', { phase: 'parse', message: 'm', span: { file: 't.yaml', line: 1, col: 6, endLine: 1, endCol: 6 } }), sources);
    expect(tab.split('\n').slice(1)).toEqual(['  \tk: \\x7fv', '  \t       ^']);
  });

  it('a note (related information) is escaped too', () => {
    const d = diagnostic('TM1006', { phase: 'io', message: 'm', related: [{ message: 'first \x1b here' }] });
    expect(renderDiagnostic(d)).toBe('warning TM1006: m\n  note: first \\x1b here');
  });
});

describe('6. exit codes: bad input is 2, a failed check 1', () => {
  it('cel: a syntax error is 2, as in a policy', async () => {
    const r = await run(['cel', '1 +']);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('<expr>:1:4: error TM5001');
  });

  it('test: a kyverno-test.yaml that is not YAML, or not a Test, is bad input (2), not a failed test', async () => {
    const dir = tempFiles({ 'broken/kyverno-test.yaml': 'results: [unclosed\n', 'pod/kyverno-test.yaml': POD });
    const broken = await run(['test', join(dir, 'broken', 'kyverno-test.yaml')]);
    expect(broken.code).toBe(2);
    expect(broken.stdout).toContain('0 passed, 0 failed');
    expect(broken.stderr).toMatch(/kyverno-test\.yaml:\d+:\d+: error TM1001/);
    const pod = await run(['test', '--json', join(dir, 'pod', 'kyverno-test.yaml')]);
    expect(pod.code).toBe(2);
    expect(JSON.parse(pod.stdout)).toMatchObject({ total: 0, failed: 0 });
    expect(pod.stderr).toContain('not a Kyverno Test (kind "Pod"; want cli.kyverno.io/v1alpha1 Test)');
  });

  it('test: a failing test still exits 1; a malformed kaptest manifest exits 2', async () => {
    const dir = tempFiles({
      'suite/policy.yaml': KYVERNO_POLICY,
      'suite/resources.yaml': RESOURCES,
      'suite/kyverno-test.yaml': testFile('- {policy: add-label, rule: add-label, kind: Pod, resources: [missing], result: pass}\n'),
      'kap/kaptest.yaml': '- not a manifest\n',
    });
    const failed = await run(['test', join(dir, 'suite')]);
    expect(failed.code).toBe(1);
    const kap = await run(['test', join(dir, 'kap')]);
    expect(kap.code).toBe(2);
    expect(kap.stderr).toContain('TM1005');
  });
});

describe('7. --diagnostics json prints [] when there are none', () => {
  it('apply, ir and translate', async () => {
    const dir = tempFiles({ 'policy.yaml': POLICY, 'pod.yaml': POD });
    const apply = await run(['apply', '-p', join(dir, 'policy.yaml'), '-r', join(dir, 'pod.yaml'), '--diagnostics', 'json']);
    expect(apply.code).toBe(0);
    expect(apply.stderr).toBe('[]\n');
    const ir = await run(['ir', '-p', join(dir, 'policy.yaml'), '--diagnostics', 'json']);
    expect(ir.code).toBe(0);
    expect(ir.stderr).toBe('[]\n');
    const tr = await run(['translate', '-p', join(dir, 'policy.yaml'), '--to', 'map', '--diagnostics', 'json', '--output-file', join(dir, 'out.yaml')]);
    expect(tr.code).toBe(0);
    expect(JSON.parse(tr.stderr)).toEqual([]);
  });

  it('translate --output-file - writes to stdout, not to a file named -', async () => {
    const dir = tempFiles({ 'policy.yaml': POLICY });
    const r = await run(['translate', '-p', join(dir, 'policy.yaml'), '--to', 'map', '--output-file', '-']);
    expect(r.code).toBe(0);
    expect(r.stdout).toContain('kind: MutatingAdmissionPolicy');
    expect(existsSync('-')).toBe(false);
  });

  it('ir and translate refuse an unknown --diagnostics format, as apply does', async () => {
    const dir = tempFiles({ 'policy.yaml': POLICY });
    expect((await run(['ir', '-p', join(dir, 'policy.yaml'), '--diagnostics', 'xml'])).code).toBe(2);
    expect((await run(['translate', '-p', join(dir, 'policy.yaml'), '--to', 'map', '--diagnostics', 'xml'])).code).toBe(2);
  });
});

describe('options that take one file refuse a folder at once', () => {
  it('--old-object, --user, --namespace-object, --params, --external-data', async () => {
    const dir = tempFiles({ 'policy.yaml': POLICY, 'pod.yaml': POD, 'folder/one.yaml': POD });
    const folder = join(dir, 'folder');
    mkdirSync(join(dir, 'empty-folder'));
    for (const flag of ['--old-object', '--user', '--namespace-object', '--params', '--external-data']) {
      for (const f of [folder, join(dir, 'empty-folder')]) {
        const r = await run(['apply', '-p', join(dir, 'policy.yaml'), '-r', join(dir, 'pod.yaml'), flag, f]);
        expect(r.code, flag).toBe(2);
        expect(r.stderr, flag).toBe(`error TM7001: ${flag} ${f} is a folder; ${flag} takes one file\n`);
        expect(r.stdout, flag).toBe('');
      }
    }
  });
});

describe('test: a binary file named by a kyverno-test.yaml is bad input', () => {
  it('exits 2 with TM1009 naming the file and the offset', async () => {
    const dir = tempFiles({
      'suite/policy.yaml': KYVERNO_POLICY,
      'suite/kyverno-test.yaml': testFile('- {policy: add-label, rule: add-label, kind: Pod, resources: [web], result: pass}\n'),
    });
    writeFileSync(join(dir, 'suite', 'resources.yaml'), Buffer.from([0x6b, 0x3a, 0x20, 0xc3, 0x28, 0x0a]));
    const r = await run(['test', join(dir, 'suite')]);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain(`error TM1009: ${dir}/suite/resources.yaml is not UTF-8 text: invalid byte 0xC3 at byte offset 3`);
  });
});

describe('diagnostics are capped in text output', () => {
  it('shows a screenful (at most 50 lines), then counts the rest per code; JSON keeps them all', async () => {
    const policy = (i: number): string => `apiVersion: kyverno.io/v1\nkind: ClusterPolicy\nmetadata:\n  name: p${i}\nspec:\n  rules:\n  - name: r\n    match:\n      any:\n      - resources:\n          kind: [Pod]\n`;
    const dir = tempFiles({ 'many.yaml': Array.from({ length: 300 }, (_, i) => policy(i)).join('---\n') });
    const text = await run(['ir', '-p', join(dir, 'many.yaml')]);
    expect(text.code).toBe(2);
    const shown = text.stderr.match(/error TM2008/g)?.length ?? 0;
    expect(shown).toBeGreaterThanOrEqual(10);
    expect(text.stderr.trimEnd().split('\n').length).toBeLessThanOrEqual(50);
    expect(text.stderr.trimEnd().split('\n').at(-1)).toBe(`... and ${300 - shown} more errors of the same code (TM2008)`);
    const json = await run(['ir', '-p', join(dir, 'many.yaml'), '--diagnostics', 'json']);
    expect((JSON.parse(json.stderr) as unknown[]).length).toBe(300);
  });
});
