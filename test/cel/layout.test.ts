import { describe, expect, it } from 'vitest';
import { parse } from '../../src/cel/index.js';
import { layoutCel } from '../../src/cel/layout.js';

/** The AST without positions: what the expression means. */
function shape(text: string): unknown {
  const r = parse(text);
  if (!r.ok) throw new Error(`${text}: ${r.diagnostics[0]?.message}`);
  return JSON.parse(JSON.stringify(r.value, (k, v: unknown) => (k === 'start' || k === 'end' || k === 'namePos' ? undefined : v)));
}

const LONG = `has(object.spec) ? (((object.apiVersion == "v1") && (object.kind == "Pod")) ? (has(object.spec.containers) ? ((object.spec.containers.exists(c1, has(c1.name) && (c1.name == "log-shipper")) ? [JSONPatch{op: "move", from: "/spec/containers/" + string(object.spec.containers.transformList(i2, c1, has(c1.name) && (c1.name == "log-shipper"), i2)[0]), path: "/spec/containers/0"}] : [JSONPatch{op: "add", path: "/spec/containers/0", value: {"name": "log-shipper", "image": "a ? b : c + d"}}]) + (object.spec.containers.exists(c1, has(c1.name) && (c1.name == "log-shipper")) ? [JSONPatch{op: "add", path: "/spec/containers/0/image", value: "x"}] : [])) : [JSONPatch{op: "add", path: "/spec/containers", value: [{"name": "log-shipper", "image": "x"}]}]) : []) : [JSONPatch{op: "add", path: "/spec", value: {"containers": [{"name": "log-shipper", "image": "x"}]}}]`;

describe('CEL layout', () => {
  it('keeps a short expression on one line', () => {
    expect(layoutCel('object.spec.replicas + 1')).toBe('object.spec.replicas + 1');
  });

  it('breaks a long conditional into branches, and means the same', () => {
    const out = layoutCel(LONG);
    expect(out.split('\n').length).toBeGreaterThan(5);
    expect(out.split('\n').every((l) => l.length <= 140)).toBe(true);
    expect(out).toContain('"a ? b : c + d"');
    expect(shape(out)).toEqual(shape(LONG));
  });

  it('lays out the arguments of a method of a parenthesized receiver, after a call with short arguments too', () => {
    const range = '(object.spec.containers == null ? [] : object.spec.containers)';
    for (const e of [
      `${range}.transformList(i2, e1, e1 != null, [JSONPatch{op: "add", path: "/spec/containers/" + string(i2) + "/imagePullPolicy", value: "Always"}]).flatten()`,
      `${range}.transformList(i2, e1, e1 != null, i2).transformList(k3, j4, true, [JSONPatch{op: "add", path: "/spec/containers/" + string(k3) + "/imagePullPolicy", value: "Always"}]).flatten()`,
    ]) {
      const out = layoutCel(e);
      expect(out.split('\n')[0]).toMatch(/^\(object\.spec\.containers == null \? \[\] : object\.spec\.containers\)\.transformList\(/);
      expect(out.split('\n').length).toBeGreaterThan(4);
      expect(shape(out)).toEqual(shape(e));
    }
  });

  it('never splits inside string literals', () => {
    const e = `"${'x ? y : z + '.repeat(20)}" + "tail"`;
    expect(shape(layoutCel(e))).toEqual(shape(e));
  });
});
