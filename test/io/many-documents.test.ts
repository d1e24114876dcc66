/**
 * A file of 200,000 documents loads: collecting them with `push(...docs)` passed each as an argument and
 * overflowed V8's stack, which the reader then reported as "cannot read FILE: Maximum call stack size exceeded".
 */
import { describe, expect, it } from 'vitest';
import { loadInputs } from '../../src/io/inputs.js';

describe('a file of very many documents', () => {
  it('loads every document', () => {
    const r = loadInputs(['-'], { stdin: () => 'a: 1\n---\n'.repeat(200_000) });
    expect(r.diagnostics).toEqual([]);
    expect(r.ok && r.value.docs.length).toBe(200_000);
  }, 30_000);
});
