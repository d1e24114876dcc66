/**
 * Generation back to MutatingPolicy is not implemented: every policy is reported unsupported (TM4001) with
 * its origin, so a translation never silently produces nothing.
 */
import { spanOfOrigin } from '../../diagnostics/span.js';
import { diagnostic } from '../../diagnostics/diagnostic.js';
import type { Policy } from '../../ir/nodes.js';
import type { GenerateOptions, GenerateResult } from '../dialect.js';
import { DIALECT } from './model.js';

export function generateMpol(policies: readonly Policy[], opts: GenerateOptions = {}): GenerateResult {
  const severity = opts.unsupported === 'ignore' || opts.unsupported === 'warn' ? 'warning' : 'error';
  const diagnostics = policies.map((p) =>
    diagnostic('TM4001', {
      phase: 'emit',
      dialect: DIALECT,
      severity,
      message: `policy "${p.id}": generating Kyverno MutatingPolicy is not supported`,
      span: spanOfOrigin(p.origin),
    }),
  );
  return { documents: [], text: '', diagnostics };
}
