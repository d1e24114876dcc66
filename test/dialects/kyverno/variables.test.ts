import { describe, expect, it } from 'vitest';
import { holes, holeText, isWholeHole, parseTemplate } from '../../../grammars/kyverno-template.js';
import { queryJmes } from '../../../src/engines/jmes.js';
import { rewriteAtHoles, substituteString, substituteTree, type SubstitutionEnv } from '../../../src/dialects/kyverno/variables.js';

const DATA = {
  request: { operation: 'CREATE', object: { metadata: { name: 'web', labels: { app: 'x' } }, spec: { replicas: 2 } }, oldObject: { metadata: { name: 'old' } } },
  element: { name: 'nginx' },
  images: { containers: { nginx: { tag: '1.2' } } },
  nested: '{{ element.name }}',
};
const env = (isDelete = false): SubstitutionEnv => ({ isDelete, query: (e) => queryJmes(e, DATA) });

describe('kyverno-template grammar', () => {
  it('finds holes innermost first, with escapes and shallow holes', () => {
    const r = parseTemplate('a-{{ images.containers."{{element.name}}".tag }}-\\{{x}}-{{- y }}');
    expect(r.ok).toBe(true);
    if (!r.ok) return;
    const hs = holes(r.nodes);
    expect(hs.map((h) => holeText(h) ?? '(nested)')).toEqual(['element.name', '(nested)', 'y']);
    expect(hs[2]!.shallow).toBe(true);
    expect(r.nodes.some((n) => n.kind === 'escape')).toBe(true);
  });
  it('knows a whole-string hole', () => {
    const r = parseTemplate('{{ request.object }}');
    expect(r.ok && isWholeHole(r.nodes)).toBe(true);
    const s = parseTemplate(' {{ request.object }}');
    expect(s.ok && isWholeHole(s.nodes)).toBe(false);
  });
  it('reports an unterminated hole', () => {
    expect(parseTemplate('{{ a').ok).toBe(false);
  });
});

describe('variable substitution (pkg/engine/variables/vars.go)', () => {
  it('keeps the JSON type of a whole-string variable', () => {
    expect(substituteString('{{ request.object.spec }}', env())).toEqual({ ok: true, value: { replicas: 2 } });
    expect(substituteString('{{request.object.spec.replicas}}', env())).toEqual({ ok: true, value: 2 });
  });
  it('splices strings and JSON-encodes other values', () => {
    expect(substituteString('n={{ request.object.metadata.name }} r={{ request.object.spec }}', env())).toEqual({ ok: true, value: 'n=web r={"replicas":2}' });
  });
  it('resolves nested variables inside-out', () => {
    expect(substituteString('{{ images.containers."{{element.name}}".tag }}', env())).toEqual({ ok: true, value: '1.2' });
  });
  it('evaluates variables that a substitution produced, unless shallow', () => {
    expect(substituteString('x{{ nested }}', env())).toEqual({ ok: true, value: 'xnginx' });
    expect(substituteString('x{{- nested }}', env())).toEqual({ ok: true, value: 'x{{ element.name }}' });
  });
  it('leaves escaped variables and drops the backslash', () => {
    expect(substituteString('a \\{{ request.operation }} b', env())).toEqual({ ok: true, value: 'a {{ request.operation }} b' });
  });
  it('is an error on a missing key, and || defaults work', () => {
    const r = substituteString('{{ request.object.metadata.labels.missing }}', env());
    expect(r.ok).toBe(false);
    if (!r.ok) expect(r.message).toContain('Unknown key "missing"');
    expect(substituteString("{{ request.object.metadata.labels.missing || 'd' }}", env())).toEqual({ ok: true, value: 'd' });
  });
  it('reads request.oldObject for request.object on DELETE', () => {
    expect(substituteString('{{ request.object.metadata.name }}', env(true))).toEqual({ ok: true, value: 'old' });
  });
  it('substitutes map keys and shares untouched subtrees', () => {
    const tree = { data: { '{{ element.name }}': 'yes' }, keep: { a: 1 } };
    const r = substituteTree(tree, env());
    expect(r).toEqual({ ok: true, value: { data: { nginx: 'yes' }, keep: { a: 1 } } });
    if (r.ok) expect((r.value as { keep: unknown }).keep).toBe(tree.keep);
  });
  it('rewrites {{@}} to the leaf path under request.object', () => {
    expect(rewriteAtHoles({ data: { k: '{{@}}-x' } }, ['mutate', 'patchStrategicMerge'])).toEqual({ data: { k: '{{request.object.data.k}}-x' } });
  });
});
