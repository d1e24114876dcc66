/**
 * JSON text of containers whose type is known (src/lowering/jmes-cel/json-text.ts typedJson): request.userInfo
 * and its groups, multiselect hashes of typed values, nested up to three levels. The CEL must give Kyverno's
 * text itself, with no guard failing (the generic encoder fails on a list inside a map: the kyverno/policies
 * record-creation-details annotation, `{{ request.userInfo.{groups: groups, username: username} | to_string(@) }}`,
 * failed every request of a user with groups). Maps need ext.Lists sort(): the 1.32 target keeps its note.
 */
import { describe, expect, it } from 'vitest';
import { jmesToCel } from '../../../src/lowering/jmes-cel/index.js';
import { DOCS } from './docs.js';
import { celActivation, jmesContext, runCel, runJmes, SCOPE, TARGETS } from './harness.js';

const TYPED_CONTAINERS = [
  'to_string(request.userInfo.groups)',
  'request.userInfo.{groups: groups, username: username} | to_string(@)',
  'to_string(request.userInfo)',
  "to_string({g: request.userInfo.groups, n: {u: request.userInfo.username, op: request.operation}, none: request.object.spec.none})",
  'to_string([request.userInfo.groups, [request.userInfo.username]])',
  'to_string(request.userInfo.groups[?starts_with(@, `"system:"`)])',
];

describe('JSON text of typed containers', () => {
  for (const { name, target } of TARGETS) {
    const sorts = name !== 'map 1.32';
    for (const expr of TYPED_CONTAINERS) {
      const mapsInside = !expr.includes('to_string(request.userInfo.groups') && !expr.startsWith('to_string([');
      it(`${name}: ${expr} gives Kyverno's text${mapsInside && !sorts ? ' or its noted guard' : ''}`, () => {
        const c = jmesToCel(expr, SCOPE, target);
        if (!c.ok) throw new Error(`refused (${c.class}): ${c.why}`);
        for (const d of DOCS) {
          const kyverno = runJmes(expr, jmesContext(d));
          const cel = runCel(c.cel, target, celActivation(d));
          expect(kyverno.ok, `${d.name}: ${JSON.stringify(kyverno)}`).toBe(true);
          if (mapsInside && !sorts) expect(cel.ok ? cel : cel.message, d.name).toEqual(cel.ok ? kyverno : expect.stringContaining('transmute: '));
          else expect(cel, `${d.name}\nCEL: ${c.cel}`).toEqual(kyverno);
        }
      });
    }
  }
});
