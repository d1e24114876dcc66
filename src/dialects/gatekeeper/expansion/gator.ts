/**
 * `gator expand` (pkg/gator/expand, cmd/gator/expand) over documents already read: ExpansionTemplates are
 * admitted and installed, mutators (and Kyverno/MAP policies) parsed, Namespaces indexed; then every document
 * (any resource can be a generator, templates and mutators included) is first mutated as an `Original` object,
 * then expanded. Only the resultants are returned, sorted as gator prints them: by name + apiVersion + kind,
 * descending. The first failure stops the run, as it stops gator.
 */
import { diagnostic, hasErrors, type Diagnostic } from '../../../diagnostics/diagnostic.js';
import type { ApplyEnv } from '../../../interpreter/index.js';
import { isJsonObject, type JsonObject } from '../../../ir/json.js';
import type { Policy } from '../../../ir/nodes.js';
import type { SourceDoc } from '../../../io/source.js';
import { admitDocs, type AdmitOptions } from '../../../validate/admit.js';
import type { Dialect } from '../../dialect.js';
import { DIALECT } from '../fields.js';
import { interpreterMutator, splitPolicies } from './mutate.js';
import { namespaceIndex } from './namespace.js';
import { ExpansionSystem, type Resultant } from './system.js';
import { isExpansionTemplateDoc, readExpansionTemplate } from './template.js';
import { stringAt } from './unstructured.js';
import { compareUtf8 } from '../../../util/bytes.js';

export interface GatorExpandOptions {
  /** How the Gatekeeper dialect admits the templates (its `validate` hook and the CRD schema). */
  dialect: Dialect;
  admission?: AdmitOptions;
  /** Parses the policy documents (mutators, Kyverno, MAP): pipeline.parsePolicyDocs, or a translation of them. */
  parsePolicies: (docs: readonly SourceDoc[]) => { policies: Policy[]; diagnostics: Diagnostic[] };
  /** Whether some dialect reads the document as a policy. */
  isPolicy: (doc: SourceDoc) => boolean;
  env?: ApplyEnv;
}

export interface GatorExpansion {
  /** Sorted as gator prints them; empty when `failure` is set. */
  resultants: Resultant[];
  diagnostics: Diagnostic[];
  /** `input`: templates or policies refused; `expansion`: a generator could not be mutated or expanded. */
  failure?: 'input' | 'expansion';
}

function byteCompare(a: string, b: string): number {
  return compareUtf8(a, b);
}

/** sortUnstructs: name + apiVersion + kind, descending (a stable sort where gator's is not). */
export function sortResultants<T extends { object: JsonObject }>(items: T[]): T[] {
  const key = (o: JsonObject) => stringAt(o, ['metadata', 'name']) + stringAt(o, ['apiVersion']) + stringAt(o, ['kind']);
  return items.sort((a, b) => byteCompare(key(b.object), key(a.object)));
}

function expansionError(doc: SourceDoc, message: string, missingNamespace: string | undefined): Diagnostic {
  const related = missingNamespace !== undefined ? [{ message: `the Namespace "${missingNamespace}" was not given: gator needs it for namespaceSelector matches (give it among the inputs)` }] : [];
  return diagnostic('TM3011', { phase: 'eval', dialect: DIALECT, message, span: doc.spanOf([]), related });
}

export function gatorExpand(docs: readonly SourceDoc[], opts: GatorExpandOptions): GatorExpansion {
  const diagnostics: Diagnostic[] = [];
  const templateDocs = docs.filter(isExpansionTemplateDoc);
  const policyDocs = docs.filter((d) => !isExpansionTemplateDoc(d) && opts.isPolicy(d));

  const admitted = admitDocs(opts.dialect, templateDocs, opts.admission);
  diagnostics.push(...admitted.diagnostics);
  const parsed = opts.parsePolicies(policyDocs);
  diagnostics.push(...parsed.diagnostics);
  if (hasErrors(diagnostics)) return { resultants: [], diagnostics, failure: 'input' };

  const mutate = interpreterMutator(splitPolicies(parsed.policies), opts.env);
  const system = new ExpansionSystem(mutate);
  for (const doc of admitted.admitted) {
    const read = readExpansionTemplate(doc);
    diagnostics.push(...read.diagnostics);
    if (!read.ok) return { resultants: [], diagnostics, failure: 'input' };
    const err = system.upsertTemplate(read.value);
    if (err !== null) {
      const message = `error upserting template ${read.value.name}: ${err}`;
      diagnostics.push(diagnostic('TM2004', { phase: 'parse', dialect: DIALECT, message, span: doc.spanOf(['spec']) }));
      return { resultants: [], diagnostics, failure: 'input' };
    }
  }

  const namespaces = namespaceIndex(docs.map((d) => d.value));
  const resultants: Resultant[] = [];
  for (const doc of docs) {
    if (!isJsonObject(doc.value)) continue;
    const name = stringAt(doc.value, ['metadata', 'name']);
    const { namespace, missing } = namespaces.namespaceFor(doc.value);
    const base = mutate({ object: doc.value, namespace, username: '', source: 'Original' });
    if (!base.ok) {
      diagnostics.push(expansionError(doc, `error mutating base resource ${name}: ${base.error}`, missing));
      return { resultants: [], diagnostics, failure: 'expansion' };
    }
    const expanded = system.expand({ object: base.value, namespace, username: '', source: 'Original' });
    if (!expanded.ok) {
      diagnostics.push(expansionError(doc, `error expanding resource ${name}: ${expanded.error}`, missing));
      return { resultants: [], diagnostics, failure: 'expansion' };
    }
    resultants.push(...expanded.value);
  }
  return { resultants: sortResultants(resultants), diagnostics };
}
