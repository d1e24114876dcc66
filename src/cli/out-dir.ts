/**
 * `translate --out-dir DIR`: one file per translated policy, named after it (`DIR/add-team.yaml`), so a library
 * can be reviewed and applied policy by policy (`kubectl apply -f DIR`). A MutatingAdmissionPolicyBinding goes
 * into the file of the policy it binds, as the two are applied together.
 */
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { diagnostic, type Diagnostic } from '../diagnostics/diagnostic.js';
import { isJsonObject, type JsonObject } from '../ir/json.js';
import { writeFileAtomic } from '../io/write.js';
import { toJson, toYamlDocuments } from '../io/yaml-dump.js';

function nameOf(doc: JsonObject): string {
  const name = isJsonObject(doc.metadata) && typeof doc.metadata.name === 'string' ? doc.metadata.name : '';
  // Written names passed admission (DNS-1123); this only keeps an odd one inside DIR.
  const safe = name.replace(/[^A-Za-z0-9._-]/g, '_');
  return safe === '' || /^\.+$/.test(safe) ? 'unnamed' : safe;
}

function boundPolicy(doc: JsonObject): string | undefined {
  if (typeof doc.kind !== 'string' || !doc.kind.endsWith('Binding') || !isJsonObject(doc.spec)) return undefined;
  return typeof doc.spec.policyName === 'string' ? doc.spec.policyName : undefined;
}

function rawName(doc: JsonObject): string | undefined {
  return isJsonObject(doc.metadata) && typeof doc.metadata.name === 'string' ? doc.metadata.name : undefined;
}

/** The documents grouped into files: file base name → documents, in output order. */
export function outDirFiles(documents: readonly JsonObject[]): Map<string, JsonObject[]> {
  const policyByName = new Map<string, JsonObject>();
  for (const d of documents) {
    const name = rawName(d);
    if (boundPolicy(d) === undefined && name !== undefined && !policyByName.has(name)) policyByName.set(name, d);
  }
  const ownerOf = (d: JsonObject): JsonObject => {
    const bound = boundPolicy(d);
    return (bound !== undefined && policyByName.get(bound)) || d;
  };
  const heads = documents.filter((d) => ownerOf(d) === d);
  const count = new Map<string, number>();
  for (const h of heads) count.set(nameOf(h), (count.get(nameOf(h)) ?? 0) + 1);
  // Two documents of one name (an Assign and an AssignMetadata, say) each get their kind in the file name.
  const base = (d: JsonObject) => (count.get(nameOf(d))! > 1 ? `${nameOf(d)}.${String(d.kind).toLowerCase()}` : nameOf(d));
  const files = new Map<string, JsonObject[]>();
  for (const d of documents) {
    const key = base(ownerOf(d));
    files.set(key, [...(files.get(key) ?? []), d]);
  }
  return files;
}

export function writeOutDir(dir: string, documents: readonly JsonObject[], format: 'yaml' | 'json'): Diagnostic[] {
  try {
    mkdirSync(dir, { recursive: true });
  } catch (e) {
    const err = e as NodeJS.ErrnoException;
    return [diagnostic('TM1004', { phase: 'io', message: `cannot create ${dir}: ${err.code ?? err.message}` })];
  }
  const diagnostics: Diagnostic[] = [];
  for (const [base, docs] of outDirFiles(documents)) {
    const text = format === 'yaml' ? toYamlDocuments(docs) : toJson(docs.length === 1 ? docs[0] : { apiVersion: 'v1', kind: 'List', items: docs }) + '\n';
    diagnostics.push(...writeFileAtomic(join(dir, `${base}.${format}`), text).diagnostics);
  }
  return diagnostics;
}
