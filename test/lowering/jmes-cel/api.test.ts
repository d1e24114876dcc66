/** The public API's shapes: results, refusals, notes, targets. */
import { describe, expect, it } from 'vitest';
import { conditionsToCel, jmesToCel, T, templateToCel, type JmesCelScope } from '../../../src/lowering/jmes-cel/index.js';
import { SCOPE } from './harness.js';

describe('jmes-cel API', () => {
  it('compiles to { ok, cel, notes, type, mayFail }', () => {
    expect(jmesToCel('request.operation', SCOPE, { env: 'map' })).toEqual({ ok: true, cel: 'request.operation', notes: [], type: T.oneOf('CREATE', 'UPDATE', 'DELETE', 'CONNECT'), mayFail: false });
    expect(jmesToCel('foo', SCOPE, { env: 'kyverno-mpol' })).toEqual({ ok: true, cel: 'variables.foo', notes: [], type: T.dyn, mayFail: false });
  });

  it('says when the CEL may fail at runtime (where the query fails in Kyverno)', () => {
    // length() refuses null in Kyverno's JMESPath: its translation fails there too.
    expect(jmesToCel('length(request.object.spec.containers)', SCOPE, { env: 'map' })).toMatchObject({ ok: true, mayFail: true });
    expect(jmesToCel('not_null(request.object.metadata.labels.app)', SCOPE, { env: 'map' })).toMatchObject({ ok: true, mayFail: false });
  });

  it('refuses with a reason naming the construct and a class', () => {
    expect(jmesToCel('request.roles', SCOPE, { env: 'map' })).toEqual({
      ok: false,
      class: 'cannot',
      why: '`request.roles` is not available in the MutatingAdmissionPolicy CEL environment',
    });
    const r = jmesToCel('images.containers.app.tag', SCOPE, { env: 'map' });
    expect(r).toMatchObject({ ok: false, class: 'yet' });
    expect(!r.ok && r.why).toContain('images');
    expect(jmesToCel("random('[a-z]')", SCOPE, { env: 'map' })).toMatchObject({ ok: false, class: 'cannot' });
  });

  it('returns the assumptions as notes', () => {
    const r = jmesToCel('keys(request.object.metadata.labels)', SCOPE, { env: 'map' });
    expect(r.ok && r.notes.join(' ')).toContain('unspecified order');
    const t = templateToCel('{{ request.object.metadata.name }}-x', SCOPE, { env: 'map' });
    expect(t.ok && t.notes.length).toBeGreaterThan(0);
  });

  it('checks the target', () => {
    expect(jmesToCel('foo', SCOPE, { env: 'map', k8sVersion: '1.31' })).toMatchObject({ ok: false, class: 'cannot' });
    expect(jmesToCel('foo', SCOPE, { env: 'map', k8sVersion: '1.34' })).toMatchObject({ ok: true });
    expect(jmesToCel('request.object.spec.containers[]', SCOPE, { env: 'map', k8sVersion: '1.33' })).toMatchObject({ ok: false, class: 'cannot' });
  });

  it('uses the scope only for the first field', () => {
    const scope: JmesCelScope = { root: (n) => (n === 'x' ? { fields: { y: { cel: 'object.spec' } } } : undefined) };
    expect(jmesToCel('x.y', scope, { env: 'map' })).toMatchObject({ ok: true, cel: 'object.spec', notes: [] });
    expect(jmesToCel('x.z', scope, { env: 'map' })).toMatchObject({ ok: false, class: 'cannot' });
    expect(jmesToCel('x', scope, { env: 'map' })).toMatchObject({ ok: false, class: 'cannot' });
  });

  it('compiles a literal-only conditions block to a constant', () => {
    expect(conditionsToCel({ all: [{ key: 'a', operator: 'Equals', value: 'a' }] }, SCOPE, { env: 'map' })).toMatchObject({ ok: true, cel: 'true', notes: [] });
    expect(conditionsToCel({ any: [] }, SCOPE, { env: 'map' })).toMatchObject({ ok: true, cel: 'false', notes: [] });
  });
});
