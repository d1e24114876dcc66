/**
 * The `-p POLICY...` reading of the commands that only read policies (ir, translate): the validation mode,
 * the input budget, standard input named once, every policy document read and parsed.
 */
import type { Diagnostic } from '../diagnostics/diagnostic.js';
import { SourceRegistry } from '../diagnostics/render.js';
import type { Policy } from '../ir/nodes.js';
import type { SourceDoc } from '../io/source.js';
import { parsePolicyDocs } from '../pipeline.js';
import { many } from './args.js';
import { maxInputBytes, readCliInputs, stdinNamedTwice, type ReaderFlags } from './inputs.js';
import type { CliIO } from './io.js';
import { validateMode } from './validate-flag.js';

export interface PolicyInputs {
  docs: SourceDoc[];
  policies: Policy[];
  diagnostics: Diagnostic[];
  sources: SourceRegistry;
}

/** The policies the `-p` options name, or the usage error of the reading flags. */
export function readPolicyArgs(f: ReaderFlags & { policy?: string[] }, io: CliIO): PolicyInputs | { usage: string } {
  const mode = validateMode(f.validate);
  if (typeof mode !== 'string') return { usage: mode.error };
  const budget = maxInputBytes(f['max-input-size']);
  if (typeof budget !== 'number') return { usage: budget.error };
  const twice = stdinNamedTwice({ '-p': f.policy });
  if (twice) return { usage: twice };
  const sources = new SourceRegistry(budget);
  const inputs = readCliInputs(many(f.policy), io, sources, { lists: true, nonEmpty: 'policy documents', policies: true });
  const parsed = inputs.ok ? parsePolicyDocs(inputs.docs, { mode }) : { policies: [], diagnostics: [] };
  return { docs: inputs.docs, policies: parsed.policies, diagnostics: [...inputs.diagnostics, ...parsed.diagnostics], sources };
}
