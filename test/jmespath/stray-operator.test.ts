/** Regression (found by npm run fuzz): a lone `=` or `!` made the error-column search crash. */
import { expect, it } from 'vitest';
import { parseJmes } from '../../src/jmespath/parse.js';

it('reports a lone = or ! at its column instead of crashing', () => {
  expect(parseJmes('element0.name =')).toEqual({ ok: false, message: 'Syntax error: unexpected character "="', column: 15 });
  expect(parseJmes('a = b')).toEqual({ ok: false, message: 'Syntax error: unexpected character "="', column: 3 });
  expect(parseJmes('=')).toEqual({ ok: false, message: 'Syntax error: unexpected character "="', column: 1 });
  expect(parseJmes('a != b').ok).toBe(true);
});
