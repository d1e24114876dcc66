/**
 * Policies read from files and folders (`-` for standard input), as the command line reads them; the Node-only
 * half of the library's loading (src/api/load.ts reads strings and objects).
 */
import type { Diagnostic } from '../diagnostics/diagnostic.js';
import type { SourceRegistry } from '../diagnostics/render.js';
import type { Policy } from '../ir/nodes.js';
import { parsePolicyDocs, type ParsePolicyOptions } from '../pipeline.js';
import { loadInputs } from './inputs.js';
import { expandLists } from './lists.js';
import type { SourceDoc } from './source.js';

export interface LoadedFiles {
  policies: Policy[];
  documents: SourceDoc[];
  diagnostics: Diagnostic[];
  sources?: SourceRegistry;
}

export function loadPolicyFiles(paths: readonly string[], opts: ParsePolicyOptions & { stdin?: () => string } = {}): LoadedFiles {
  const { stdin, ...parseOptions } = opts;
  const r = loadInputs(paths, stdin ? { stdin } : {});
  if (!r.ok) return { policies: [], documents: [], diagnostics: r.diagnostics };
  // As the CLI reads them (src/cli/inputs.ts): a List of policies stands for its items.
  const documents = expandLists(r.value.docs);
  const parsed = parsePolicyDocs(documents, parseOptions);
  return { policies: parsed.policies, documents, diagnostics: [...r.diagnostics, ...parsed.diagnostics], sources: r.value.sources };
}
