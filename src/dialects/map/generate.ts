/** MAP generation is not written yet: every policy is reported unsupported (TM4001) rather than emitted wrong. */
import { diagnostic } from '../../diagnostics/diagnostic.js';
import type { Policy } from '../../ir/nodes.js';
import type { GenerateOptions, GenerateResult } from '../dialect.js';

export function generateMap(policies: readonly Policy[], opts: GenerateOptions = {}): GenerateResult {
  const severity = opts.unsupported === 'ignore' ? 'info' : opts.unsupported === 'warn' ? 'warning' : 'error';
  return {
    documents: [],
    text: '',
    diagnostics: policies.map((p) =>
      diagnostic('TM4001', { phase: 'emit', dialect: 'map', severity, message: `policy ${p.id}: generating MutatingAdmissionPolicy is not supported yet`, span: p.origin }),
    ),
  };
}
