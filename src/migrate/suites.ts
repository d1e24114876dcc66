/**
 * Rewrites a kyverno-test.yaml for the migrated library. The migrated policy files keep their paths (OUT
 * mirrors DIR), so `policies:` already points at them; what changes is each result entry about a migrated
 * policy's mutate rules, marked as the Kyverno CLI reads a CEL policy's results:
 *
 *     policy: add-label            policy: add-label
 *     rule: add-label        =>    isMutatingPolicy: true        (isMutatingAdmissionPolicy: true for --to map)
 *
 * A CEL policy has no rules, so `rule` goes; `policy` becomes the migrated policy's name (`namespace/name`
 * for a namespaced one). Entries about the rules left as they were (validate, generate, verifyImages), about
 * policies that were not migrated, or naming a rule the policy does not have, are kept as written. Paths that
 * lead outside DIR are rewritten to reach the same files from OUT. Everything else is kept; the suite is
 * written with sorted keys (as `kyverno fix test` writes them), or copied byte for byte when nothing changed.
 */
import { readFileSync } from 'node:fs';
import { dirname, relative, resolve, sep } from 'node:path';
import { isJsonObject, type JsonObject, type JsonValue } from '../ir/json.js';
import type { SourceDoc } from '../io/source.js';
import { toYamlDocuments } from '../io/yaml-dump.js';
import { loadYamlText } from '../io/yaml-load.js';
import { policyChain } from '../dialects/kyverno/test-suite/index.js';
import { existingTargetsEntry } from './existing-rows.js';
import { isInside } from './paths.js';
import { ruleNames, targetOf, type Library, type LibraryFile, type MigratedTarget, type Outcome, type RuleKind, type SourcePolicy, type SuiteOutcome } from './model.js';

/** How a result entry relates to a source policy. `proof`: it tests the migrated mutate rules. */
export interface EntryLink {
  entry: number;
  key: string;
  role: 'proof' | 'left';
  /** Policies before this one in the suite that are not migrated to the same kind (see ProofRow.before). */
  before?: string[];
  /** The entry's index in the migrated suite, when entries were merged before it. */
  migratedEntry?: number;
  /**
   * Migrated entries that hold some of this entry's resources: another entry of the policy expecting more of
   * the same resource (below), or the entry its resources that now expect `pass` moved to (unchanged.ts).
   */
  alsoIn?: number[];
  /** The migrated entry names the targets of a mutate-existing rule where this one names triggers (existing-rows.ts). */
  retargeted?: true;
}

export interface RewrittenSuite {
  file: LibraryFile;
  /** The new text, or undefined to copy the file unchanged. */
  text?: string;
  /** The rewritten test document and the documents after it, from which `text` is written. */
  documents?: { test: JsonObject; rest: JsonValue[] };
  /** The entries rewritten for a migrated policy, by their index in the migrated suite. */
  rewrittenEntries?: number[];
  links: EntryLink[];
  outcome: SuiteOutcome;
}

/** A rewritten suite's text (sorted keys, as `kyverno fix test` writes them). */
export function suiteText(documents: { test: JsonObject; rest: JsonValue[] }): string {
  return toYamlDocuments([documents.test, ...documents.rest], { sortKeys: true });
}

const LIST_FIELDS = ['policies', 'resources', 'targetResources', 'exceptions', 'paramResources', 'clusterResources'];
const FILE_FIELDS = ['variables', 'userinfo', 'context'];
const CEL_FLAGS = ['isMutatingPolicy', 'isMutatingAdmissionPolicy', 'isValidatingPolicy', 'isValidatingAdmissionPolicy', 'isGeneratingPolicy', 'isDeletingPolicy', 'isImageValidatingPolicy'];
const RESULT_FILE_FIELDS = ['patchedResources', 'patchedResource', 'generatedResource', 'cloneSourceResource'];

/** The kind of the rule a result entry names (autogen names stand for their Pod rule, as in the CLI). */
function ruleKindOf(p: SourcePolicy, rule: string | undefined): RuleKind | 'absent' {
  if (p.dialect === 'gatekeeper' || rule === undefined || rule === '') return 'mutate';
  for (const name of ruleNames(rule)) {
    const r = p.rules.find((x) => x.name === name);
    if (r) return r.kind;
  }
  return 'absent';
}

function resourcesOf(e: JsonObject): string[] {
  const list = Array.isArray(e.resources) ? e.resources.filter((x): x is string => typeof x === 'string') : [];
  if (typeof e.resource === 'string') list.push(e.resource);
  return [...list].sort();
}

function patchedOf(e: JsonObject): string | undefined {
  const v = e.patchedResources ?? e.patchedResource;
  return typeof v === 'string' ? v : undefined;
}

/** The expected result (`result`, or the legacy `status`). */
function resultOf(e: JsonObject): string {
  const v = e.result ?? e.status;
  return typeof v === 'string' ? v : '';
}

function setResult(e: JsonObject, result: string): void {
  if (result === '') return;
  if (e.result === undefined && e.status !== undefined) e.status = result;
  else e.result = result;
}

/**
 * Entries about several rules of one policy naming one resource with different lists beside it: the CEL
 * policy answers once per resource, so where one expects `pass` and another `skip` (the second rule skipped,
 * the first patched), the resource leaves the `skip` entry, and an entry left with none is merged into the
 * entry holding its resources (`into`). Only entries listing `resources` are changed. Returns, per entry that
 * lost resources, the entries now holding them (by index in `results`).
 */
function settleOverlaps(results: readonly JsonValue[], marked: ReadonlyMap<number, Marked>, into: Map<number, number>): Map<number, Set<number>> {
  const byResource = new Map<string, number[]>();
  for (const [i, { target }] of marked) {
    const e = results[i] as JsonObject;
    if (into.has(i) || !Array.isArray(e.resources) || e.resource !== undefined) continue;
    for (const r of resourcesOf(e)) {
      const key = JSON.stringify([target.ref, e.kind ?? '', e.namespace ?? '', r]);
      byResource.set(key, [...(byResource.get(key) ?? []), i]);
    }
  }
  const moved = new Map<number, Set<number>>();
  for (const [key, entries] of byResource) {
    const holder = entries.find((i) => resultOf(results[i] as JsonObject) === 'pass');
    if (holder === undefined) continue;
    const resource = (JSON.parse(key) as string[])[3]!;
    for (const i of entries) {
      const e = results[i] as JsonObject;
      if (resultOf(e) !== 'skip') continue;
      e.resources = (e.resources as JsonValue[]).filter((x) => x !== resource);
      (moved.get(i) ?? moved.set(i, new Set()).get(i)!).add(holder);
    }
  }
  for (const [i, holders] of moved) {
    if ((results[i] as JsonObject & { resources: JsonValue[] }).resources.length === 0) into.set(i, [...holders][0]!);
  }
  return moved;
}

/** An entry to rewrite: the outcome of the source it names, and the migrated policy it names now. */
interface Marked {
  outcome: Extract<Outcome, { status: 'translated' }>;
  target: MigratedTarget;
  /** The entry is about a mutate-existing rule. */
  existing: boolean;
}

/** A policy's result from its rules' results, as Kyverno reduces them: error, fail, pass, skip. */
function combine(results: readonly string[]): string {
  for (const r of ['error', 'fail', 'pass', 'skip']) if (results.includes(r)) return r;
  return results[0] ?? '';
}

export function rewriteSuite(library: Library, file: LibraryFile, outcomes: ReadonlyMap<string, Outcome>, outDir: string): RewrittenSuite {
  const problems: string[] = [];
  const copy = (why?: string): RewrittenSuite => ({ file, links: [], outcome: { rel: file.rel, rewritten: 0, merged: 0, problems: why ? [why] : problems } });
  const test = file.docs?.[0]?.value;
  if (!isJsonObject(test) || !Array.isArray(test.results)) return copy(`${file.path} has no "results" list; copied unchanged`);

  const dirAbs = resolve(library.dir);
  const suiteDir = dirname(file.abs);
  const outSuiteDir = resolve(outDir, dirname(file.rel));
  const byRel = new Map(library.files.map((f) => [f.rel, f]));
  const sources = new Map<SourceDoc, SourcePolicy>(library.policies.map((p) => [p.doc, p]));
  const value = JSON.parse(JSON.stringify(test)) as JsonObject;
  let changed = false;

  /** The same file seen from the suite's place in OUT: unchanged inside DIR, re-pointed outside it. */
  const repoint = (path: JsonValue | undefined, where: string): JsonValue | undefined => {
    if (typeof path !== 'string' || path.includes('://')) return path;
    const abs = resolve(suiteDir, path);
    if (isInside(abs, dirAbs)) return path;
    const next = relative(outSuiteDir, abs).split(sep).join('/');
    problems.push(`${where} ${path} is outside ${library.dir}: the migrated suite reads it from there (${next})`);
    changed = true;
    return next;
  };
  for (const key of LIST_FIELDS) {
    const v = value[key];
    if (typeof v === 'string') value[key] = repoint(v, key)!;
    else if (Array.isArray(v)) value[key] = v.map((x) => repoint(x, key) ?? x);
  }
  for (const key of FILE_FIELDS) if (typeof value[key] === 'string') value[key] = repoint(value[key], key)!;

  // The policy documents the suite loads, in its order (the CLI applies them in that order).
  const docs: SourceDoc[] = [];
  const policyPaths = typeof test.policies === 'string' ? [test.policies] : Array.isArray(test.policies) ? test.policies : [];
  for (const p of policyPaths) {
    if (typeof p !== 'string') continue;
    const abs = resolve(suiteDir, p);
    if (isInside(abs, dirAbs)) {
      const f = byRel.get(relative(dirAbs, abs).split(sep).join('/'));
      if (f?.docs) docs.push(...f.docs);
      else if (!f) problems.push(`policies: ${p} is not a file under ${library.dir}`);
      continue;
    }
    try {
      const loaded = loadYamlText(abs, readFileSync(abs, 'utf8'));
      if (loaded.ok) docs.push(...loaded.value);
    } catch {
      problems.push(`policies: ${p} cannot be read`);
    }
  }

  const links: EntryLink[] = [];
  const results = value.results as JsonValue[];
  /** Entries to rewrite, by index: the migrated policy they name. */
  const marked = new Map<number, Marked>();
  results.forEach((entry, i) => {
    if (!isJsonObject(entry)) return;
    for (const key of RESULT_FILE_FIELDS) if (typeof entry[key] === 'string') entry[key] = repoint(entry[key], `results[${i}].${key}`)!;
    if (typeof entry.policy !== 'string' || CEL_FLAGS.some((k) => entry[k] === true)) return; // already about a CEL policy
    const chain = policyChain(docs, entry.policy);
    const doc = chain?.filter((d) => !(isJsonObject(d.value) && typeof d.value.kind === 'string' && d.value.kind.endsWith('Binding'))).pop();
    const source = doc ? sources.get(doc) : undefined;
    const outcome = source ? outcomes.get(source.key) : undefined;
    if (!source || outcome?.status !== 'translated') return;
    const rule = typeof entry.rule === 'string' ? entry.rule : undefined;
    const kind = ruleKindOf(source, rule);
    // A mutate-existing rule migrated to a MutatingPolicy is tested as that policy too.
    if (kind !== 'mutate' && kind !== 'absent' && !(kind === 'mutate-existing' && outcome.flag === 'isMutatingPolicy')) {
      links.push({ entry: i, key: source.key, role: 'left' });
      return;
    }
    const before = (chain ?? [])
      .filter((d) => d !== doc && isJsonObject(d.value) && !String(d.value.kind ?? '').endsWith('Binding'))
      .filter((d) => {
        const s = sources.get(d);
        return s ? outcomes.get(s.key)?.status !== 'translated' : !(isJsonObject(d.value) && d.value.kind === outcome.target.kind);
      })
      .map((d) => {
        const v = d.value as JsonObject;
        const md = isJsonObject(v.metadata) ? v.metadata : {};
        return `${String(v.kind)} ${typeof md.namespace === 'string' ? `${md.namespace}/` : ''}${String(md.name ?? '')}`;
      });
    links.push({ entry: i, key: source.key, role: 'proof', ...(before.length > 0 ? { before } : {}) });
    if (kind !== 'absent') marked.set(i, { outcome, target: targetOf(outcome, rule), existing: kind === 'mutate-existing' }); // a rule the policy does not have: kept, it fails in both suites
  });

  // A CEL policy answers once per resource: entries about several rules of one policy and the same resources
  // become one entry, expecting what the policy as a whole does (error, else fail, else pass, else skip).
  const groups = new Map<string, number[]>();
  for (const [i, { target }] of marked) {
    const e = results[i] as JsonObject;
    const key = JSON.stringify([target.ref, e.kind ?? '', e.namespace ?? '', resourcesOf(e)]);
    groups.set(key, [...(groups.get(key) ?? []), i]);
  }
  const into = new Map<number, number>(); // merged entry -> the entry it was merged into
  for (const members of groups.values()) {
    const patched = [...new Set(members.map((i) => patchedOf(results[i] as JsonObject)).filter((x): x is string => x !== undefined))];
    const combined = combine(members.map((i) => resultOf(results[i] as JsonObject)));
    for (const i of members) setResult(results[i] as JsonObject, combined);
    if (members.length < 2 || patched.length > 1) continue; // different expected objects: kept apart
    const head = results[members[0]!] as JsonObject;
    if (patched[0] !== undefined && patchedOf(head) === undefined) head[head.patchedResource !== undefined || head.status !== undefined ? 'patchedResource' : 'patchedResources'] = patched[0];
    for (const i of members.slice(1)) into.set(i, members[0]!);
  }
  const moved = settleOverlaps(results, marked, into);
  for (const [i, { outcome, target, existing }] of marked) {
    const entry = results[i] as JsonObject;
    // Read from DIR: the entry and the suite as written there.
    const targets = existing && !into.has(i) ? existingTargetsEntry((test.results as JsonValue[])[i] as JsonObject, test, suiteDir) : undefined;
    if (targets !== undefined) {
      for (const link of links) if (link.entry === i) link.retargeted = true;
      entry.kind = targets.kind;
      entry.resources = targets.resources;
      delete entry.resource;
      delete entry.namespace;
    }
    delete entry.rule;
    entry.policy = target.ref;
    entry[outcome.flag] = true;
    changed = true;
  }
  // The rewritten list, and where each original entry is in it.
  const kept: JsonValue[] = [];
  const at = new Map<number, number>();
  results.forEach((entry, i) => {
    if (into.has(i)) return;
    at.set(i, kept.length);
    kept.push(entry);
  });
  for (const link of links) {
    const to = at.get(into.get(link.entry) ?? link.entry)!;
    if (to !== link.entry) link.migratedEntry = to;
    const holders = moved.get(link.entry);
    if (holders) link.alsoIn = [...holders].map((h) => at.get(h)!);
  }
  value.results = kept;
  const outcome: SuiteOutcome = { rel: file.rel, rewritten: marked.size, merged: into.size, problems };
  if (!changed) return { file, links, outcome };
  // Documents after the first are not part of the test; they are kept as they were.
  const rest = (file.docs ?? []).slice(1).map((d) => d.value);
  const documents = { test: value, rest };
  const rewrittenEntries = [...new Set([...marked.keys()].map((i) => at.get(into.get(i) ?? i)!))].sort((a, b) => a - b);
  return { file, text: suiteText(documents), documents, rewrittenEntries, links, outcome };
}
