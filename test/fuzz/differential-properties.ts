/** The differential properties as fast-check properties, by the name `npm run fuzz -- --only NAME` takes. */
import fc from 'fast-check';
import { celBindings, celExpression } from './cel-gen.js';
import { celAgrees, jmesAgrees } from './differential.js';
import { jmesData, jmesExpression } from './jmespath-gen.js';

export const DIFFERENTIALS: Record<string, () => fc.IPropertyWithHooks<[string, unknown]>> = {
  'cel-diff': () => fc.property(celExpression, celBindings, (expr, x) => celAgrees(expr, x)),
  'jmespath-diff': () => fc.property(jmesExpression, jmesData, (expr, data) => jmesAgrees(expr, data)),
};
