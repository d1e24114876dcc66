import { expect, it } from 'vitest';
import * as api from '../src/index.js';

it('pins the public export list', () => {
  expect(Object.keys(api).sort()).toEqual(['apply', 'dialectByName', 'dialects', 'loadPolicies', 'optimize', 'parse', 'printPolicies', 'test', 'translate']);
});
