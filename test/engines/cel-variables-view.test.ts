/**
 * `variables` of an expression that reads it only by plain selections is a view without a Proxy
 * (src/engines/cel-variables-view.ts). Differential test: each expression over a scope that looks variables
 * up by name (the view, or the proxy where the view does not apply) against the same scope offering `vars`
 * only (one accessor per variable, the reference): the same value or the same error, the same reads.
 */
import { describe, expect, it } from 'vitest';
import { createCelEngine } from '../../src/engines/cel.js';
import type { ExprScope } from '../../src/interpreter/engines.js';
import { evalFailure } from '../../src/interpreter/failure.js';
import type { JsonValue } from '../../src/ir/json.js';

const origin = { file: 't.yaml', line: 1, col: 1, endLine: 1, endCol: 2, dialect: 'map' };
const object: JsonValue = { kind: 'Pod', apiVersion: 'v1', metadata: { name: 'p', labels: { tier: 'backend' } }, spec: { containers: [{ name: 'a' }, { name: 'b' }] } };

const VARIABLES: Record<string, () => JsonValue> = {
  tier: () => 'backend',
  multi: () => true,
  n: () => 3,
  none: () => null,
  list: () => ['x', 'y'],
  map: () => ({ k: 'v', nested: { deep: 1 } }),
  broken: () => {
    throw evalFailure('TM3004', 'boom', origin);
  },
  $params: () => ({ secret: 1 }),
};

/** A scope with lookup (what the interpreter gives), counting reads. */
function byName(reads: string[]): ExprScope {
  return {
    object,
    oldObject: null,
    request: { operation: 'CREATE', object },
    params: null,
    namespaceObject: null,
    get vars(): Record<string, JsonValue> {
      throw new Error('the engine should look variables up by name');
    },
    lookup(name: string) {
      if (!Object.hasOwn(VARIABLES, name)) return undefined;
      const compute = VARIABLES[name]!;
      return {
        get value() {
          reads.push(name);
          return compute();
        },
      };
    },
  };
}

/** The same variables as `vars` only, each an accessor (the reference). */
function byVars(reads: string[]): ExprScope {
  const vars: Record<string, JsonValue> = {};
  for (const [name, compute] of Object.entries(VARIABLES)) {
    Object.defineProperty(vars, name, {
      enumerable: true,
      get: () => {
        reads.push(name);
        return compute();
      },
    });
  }
  return { object, oldObject: null, request: { operation: 'CREATE', object }, params: null, namespaceObject: null, vars };
}

function run(text: string, scopeOf: (reads: string[]) => ExprScope): { outcome: unknown; reads: string[] } {
  const compiled = createCelEngine().compile({ text, origin });
  if (!compiled.ok) throw new Error(compiled.diagnostics[0]!.message);
  const reads: string[] = [];
  const scope = scopeOf(reads);
  const r = compiled.fn(scope);
  // Twice: a view is made per evaluation.
  expect(compiled.fn(scope)).toEqual(r);
  return { outcome: r.ok ? { value: r.value } : { error: r.diagnostic.message }, reads };
}

const EXPRESSIONS = [
  'variables.tier',
  'variables.tier + "/map"',
  'variables.tier == "backend" ? variables.n : 0',
  'variables.multi && variables.tier == "none"',
  'variables.none == null',
  'variables.list[1] + variables.list[0]',
  'variables.map.k',
  'variables.map.nested.deep + 1',
  'variables.map.?k.orValue("none")',
  'variables.map.missing',
  'object.spec.containers.map(c, c.name + variables.tier)',
  'object.spec.containers.exists(c, variables.broken == c.name)',
  'variables.broken == 1',
  'true || variables.broken == 1',
  'variables.missing',
  'variables.tier.size() + variables.n',
  '[JSONPatch{op: "add", path: "/metadata/labels/tier", value: variables.tier + "-x"}]',
  'Object{metadata: Object.metadata{labels: {"tier-seen": variables.tier}}}',
  // Keep the proxy: has(), optional selection, names CEL selects through ops.select.
  'has(variables.broken) && has(variables.tier) && !has(variables.missing)',
  'variables.?tier.orValue("x") + variables.?missing.orValue("y")',
  'variables.constructor',
  'variables.toString',
  'variables.tier + variables.toString',
];

describe('CEL `variables` view', () => {
  it('reads as the reference does: value or error, and the reads', () => {
    for (const text of EXPRESSIONS) {
      const view = run(text, byName);
      const reference = run(text, byVars);
      expect(view, text).toEqual(reference);
    }
  });

  it('keeps `variables` a map: whole uses and reserved names are not seen through it', () => {
    expect(run('variables.tier', byName).outcome).toEqual({ value: 'backend' });
    expect(run('variables.broken', byName).outcome).toEqual({ error: expect.stringContaining('composited variable "broken" fails to evaluate: boom') });
    expect(run('variables.missing', byName).outcome).toEqual({ error: expect.stringContaining('no such key: missing') });
  });
});
