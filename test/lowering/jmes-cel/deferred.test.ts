/**
 * Kyverno's deferred loading in the JMESPath → CEL lowering (src/lowering/jmes-cel/deferred.ts): a query
 * reads first the context entries its text mentions but may not read, as Kyverno loads them before it runs;
 * the MAP translation then fails where Kyverno's engine (test/dialects/kyverno/deferred-loading.test.ts) does.
 */
import { describe, expect, it } from 'vitest';
import { compile, MAP_VARIABLES } from '../../../src/cel/index.js';
import { parseJmes } from '../../../src/jmespath/parse.js';
import { IMAGES_MENTIONED, surelyRead } from '../../../src/lowering/jmes-cel/deferred.js';
import { jmesToCel, type Binding, type Compiled, type JmesCelScope } from '../../../src/lowering/jmes-cel/index.js';

function sure(text: string): string[] {
  const p = parseJmes(text);
  if (!p.ok) throw new Error(p.message);
  return [...surelyRead(p.ast)].sort();
}

/** `request`, and the context entry `cm`, whose CEL fails where the object has no label `cm`. */
const SCOPE: JmesCelScope = {
  root(name: string): Binding | undefined {
    if (name === 'request') return { fields: { object: { cel: 'object' } } };
    if (name === 'cm') return { cel: 'object.metadata.labels.cm' };
    return undefined;
  },
  deferred: () => ['cm'],
};

function compiled(text: string, scope: JmesCelScope = SCOPE): Compiled {
  const c = jmesToCel(text, scope, { env: 'map' });
  if (!c.ok) throw new Error(c.why);
  return c;
}

/** The CEL of `text` over an object whose labels are `labels`. */
function evaluate(text: string, labels: Record<string, string>): { ok: boolean; value?: unknown } {
  const p = compile(compiled(text).cel, { variables: MAP_VARIABLES });
  if (!p.ok) throw new Error(p.diagnostics.map((d) => d.message).join('\n'));
  const object = { metadata: { labels } };
  const r = p.value.evalJson({ object, oldObject: null, params: null, namespaceObject: null, request: null, variables: {}, authorizer: null, 'authorizer.requestResource': null });
  return r.ok ? { ok: true, value: r.value } : { ok: false };
}

describe('deferred loading in CEL', () => {
  it('knows the root fields a query is sure to read', () => {
    expect(sure('a.b')).toEqual(['a']);
    expect(sure('a || b')).toEqual(['a']);
    expect(sure('a && b')).toEqual(['a']);
    expect(sure('a == b')).toEqual(['a', 'b']);
    expect(sure('join(`,`, [a, b])')).toEqual(['a', 'b']);
    expect(sure('{x: a, y: b}')).toEqual(['a', 'b']);
    expect(sure('a[?b].c | d')).toEqual(['a']);
    expect(sure('a[*].b')).toEqual(['a']);
    expect(sure('sort_by(a, &b)')).toEqual(['a']);
    expect(sure("'b'")).toEqual([]);
  });

  it('reads first an entry the query mentions but may not read', () => {
    const c = compiled('request.object.metadata.labels.team || cm');
    expect(c.cel).toContain('size([dyn(object.metadata.labels.cm)]) == 1');
    // Kyverno loads cm before the query: it fails even where the label makes `||` stop.
    expect(evaluate('request.object.metadata.labels.team || cm', { team: 'a' })).toEqual({ ok: false });
    expect(evaluate('request.object.metadata.labels.team || cm', { team: 'a', cm: 'x' })).toEqual({ ok: true, value: 'a' });
    expect(evaluate("contains(request.object.metadata.labels.team, 'cm')", { team: 'a' })).toEqual({ ok: false });
  });

  it('leaves a query that reads the entry surely, or never mentions it, as it was', () => {
    expect(compiled('cm').cel).toBe(compiled('cm', { ...SCOPE, deferred: undefined }).cel);
    expect(compiled('request.object.metadata.cm').cel).not.toContain('size([');
    expect(evaluate('request.object.metadata.labels.team', { team: 'a' })).toEqual({ ok: true, value: 'a' });
  });

  it('notes a mention of `images` the query may not read', () => {
    const images: JmesCelScope = { ...SCOPE, root: (name) => (name === 'images' ? { fields: {} } : SCOPE.root(name)) };
    expect(compiled("contains(request.object.metadata.name, 'images')", images).notes).toContain(IMAGES_MENTIONED);
    expect(compiled('request.object.metadata.name', images).notes).not.toContain(IMAGES_MENTIONED);
  });
});
