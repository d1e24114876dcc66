/** `translate --name`: the one translated policy renamed, and the bindings that refer to it kept in step. */
import type { GenerateResult } from './dialect.js';
import { isJsonObject, type JsonObject } from '../ir/json.js';
import { toYamlDocuments } from '../io/yaml-dump.js';

const kindOf = (d: unknown): string => (isJsonObject(d) && typeof d.kind === 'string' ? d.kind : '');
const nameOf = (d: unknown): string => (isJsonObject(d) && isJsonObject(d.metadata) && typeof d.metadata.name === 'string' ? d.metadata.name : '');

export function renamePolicy(result: GenerateResult, name: string): GenerateResult | { error: string } {
  const policies = result.documents.filter((d) => !kindOf(d).endsWith('Binding'));
  if (policies.length !== 1) {
    return { error: `--name names one policy, but this translation writes ${policies.length}: ${policies.map((p) => `${kindOf(p)} ${nameOf(p)}`).join(', ')}` };
  }
  const old = nameOf(policies[0]);
  const documents = result.documents.map((d) => {
    if (!isJsonObject(d)) return d;
    const copy = structuredClone(d) as JsonObject;
    const meta = copy.metadata as JsonObject;
    if (d === policies[0]) meta.name = name;
    else if (isJsonObject(copy.spec) && copy.spec.policyName === old) {
      // A MAP binding: it refers to the policy by name, and is named after it.
      copy.spec.policyName = name;
      if (typeof meta.name === 'string' && meta.name.startsWith(old)) meta.name = `${name}${meta.name.slice(old.length)}`;
    }
    return copy;
  });
  return { ...result, documents, text: toYamlDocuments(documents as JsonObject[]) };
}
