import { readFileSync } from 'node:fs';
import { expect, it } from 'vitest';
import { KYVERNO_CUSTOM_FUNCTION_NAMES, KYVERNO_FUNCTIONS } from '../../src/jmespath/index.js';
import { describeShared, sharedPath } from '../support/shared.js';

describeShared('Kyverno custom function list', () => {
  it('registers every function of the reference list with its arity', () => {
    const lines = readFileSync(sharedPath('reference/jmespath_custom_functions.txt'), 'utf8').split('\n').filter((l) => l.trim() !== '');
    const reference = lines.map((l) => {
      const m = /^(\w+)\(([^)]*)\)/.exec(l)!;
      const args = m[2]!.trim() === '' ? [] : m[2]!.split(',').map((a) => a.trim());
      return { name: m[1]!, args };
    });
    // The reference lists 51 names: Kyverno's 50 additions plus its replacement of the built-in `sum`.
    expect(reference.length).toBeGreaterThanOrEqual(50);
    expect([...KYVERNO_CUSTOM_FUNCTION_NAMES].sort()).toEqual(reference.map((r) => r.name).sort());
    for (const r of reference) {
      const spec = KYVERNO_FUNCTIONS.get(r.name);
      expect(spec, r.name).toBeDefined();
      expect(spec!.args.length, r.name).toBe(r.args.length);
      r.args.forEach((types, i) => {
        const declared = types.split('|').map((t) => (t === 'bool' ? 'boolean' : t));
        expect([...spec!.args[i]!].sort(), `${r.name} argument ${i + 1}`).toEqual(declared.sort());
      });
    }
  });
});
