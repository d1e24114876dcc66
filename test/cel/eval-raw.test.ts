/**
 * evalJsonRaw: evalJson's value alone, or its failure as a RawFailure carrying the same result, for programs
 * that build their JSON directly (generated), those that do not (reference), and constants.
 */
import { describe, expect, it } from 'vitest';
import { compile, MAP_VARIABLES } from '../../src/cel/index.js';
import { RawFailure } from '../../src/cel/program.js';

const object = { metadata: { name: 'p', labels: { a: 'b' } }, spec: { containers: [{ name: 'c', image: 'nginx' }] } };

describe('evalJsonRaw', () => {
  const expressions = [
    'Object{metadata: Object.metadata{labels: {"x": object.metadata.name}}}',
    '[JSONPatch{op: "add", path: "/metadata/labels/y", value: object.metadata.name + "-1"}]',
    'object.metadata.name == "p"',
    'object.spec.containers.map(c, c.image)',
    'object.metadata.missing.field',
    '[JSONPatch{op: "add", path: "/x", value: object.nope}]',
    '1 / 0',
    '[]',
  ];
  for (const expr of expressions) {
    it(`gives evalJson's value or failure: ${expr}`, () => {
      const p = compile(expr, { variables: MAP_VARIABLES });
      if (!p.ok) throw new Error(p.diagnostics[0]!.message);
      const act = { object, oldObject: null, params: null, namespaceObject: null, request: null, variables: {}, authorizer: null, 'authorizer.requestResource': null };
      const full = p.value.evalJson(act);
      const raw = p.value.evalJsonRaw(act);
      if (full.ok) expect(raw).toEqual(full.value);
      else {
        expect(raw).toBeInstanceOf(RawFailure);
        expect((raw as RawFailure).result.error).toBe(full.error);
      }
    });
  }
});
