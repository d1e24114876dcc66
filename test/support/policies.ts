/** Policies from YAML text through the normal pipeline, for tests: any load or parse diagnostic is an error. */
import type { Policy } from '../../src/ir/nodes.js';
import { loadYamlText } from '../../src/io/yaml-load.js';
import { parsePolicyDocs } from '../../src/pipeline.js';

export function policiesOf(file: string, text: string): Policy[] {
  const docs = loadYamlText(file, text);
  if (!docs.ok) throw new Error(docs.diagnostics.map((d) => d.message).join('\n'));
  const parsed = parsePolicyDocs(docs.value);
  if (parsed.diagnostics.length > 0) throw new Error(`${parsed.diagnostics.map((d) => d.message).join('\n')}\n${text}`);
  return parsed.policies;
}
