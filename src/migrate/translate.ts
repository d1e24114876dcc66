/**
 * What each source policy becomes: the existing pipeline (`parsePolicyDocs`, `translate`) run on one
 * translation unit at a time, under `--unsupported error` semantics: a unit with any refused construct is not
 * migrated at all, and every refusal is reported with its place and class.
 *
 * Units: one Kyverno ClusterPolicy / Policy (its mutate rules; the other rules stay in the source, written
 * back as a "residue" policy); or all Gatekeeper mutators of one file, translated together because Gatekeeper
 * runs mutators as one fix-point (the generator proves one ordered pass reaches it, or refuses).
 */
import type { Diagnostic } from '../diagnostics/diagnostic.js';
import type { Span } from '../diagnostics/span.js';
import { isJsonObject, type JsonObject } from '../ir/json.js';
import { admitted, parsePolicyDocs, translate, translateDocumentParts } from '../pipeline.js';
import type { ValidateMode } from '../validate/admit.js';
import { mutates } from './discover.js';
import type { Library, MigratedTarget, MigrateTarget, Outcome, Refusal, SourcePolicy } from './model.js';

function refusalOf(d: Diagnostic, fallback: Refusal['class']): Refusal {
  const span = d.span ? { file: d.span.file, line: d.span.line, col: d.span.col, endLine: d.span.endLine, endCol: d.span.endCol } : undefined;
  return { code: d.code, class: d.unsupported ?? fallback, message: d.message, ...(span ? { span } : {}) };
}

function ruleList(p: SourcePolicy): string {
  return p.rules.map((r) => `${r.name || '(unnamed)'} (${r.kind})`).join(', ');
}

/** The units of the library: Kyverno policies one by one, Gatekeeper mutators by file, in library order. */
export function units(library: Library): SourcePolicy[][] {
  const out: SourcePolicy[][] = [];
  const byFile = new Map<string, SourcePolicy[]>();
  for (const p of library.policies) {
    if (p.dialect === 'kyverno') {
      if (mutates(p)) out.push([p]);
      continue;
    }
    let group = byFile.get(p.file.rel);
    if (!group) {
      group = [];
      byFile.set(p.file.rel, group);
      out.push(group);
    }
    group.push(p);
  }
  return out;
}

/** Whether a diagnostic's place lies in the document of `p`. */
function within(span: Span | undefined, p: SourcePolicy): boolean {
  if (!span || span.file !== p.file.path) return false;
  const doc = p.doc.spanOf([]);
  return span.line >= doc.line && span.line <= doc.endLine;
}

/**
 * The mutate-existing rules, which the admission pipeline does not read: refused here for MAP (it runs only at
 * admission); for MutatingPolicy they are translated from the documents (kyverno-mpol/generate-existing.ts).
 */
function mutateExistingRefusals(p: SourcePolicy, to: MigrateTarget): Refusal[] {
  if (to !== 'map') return [];
  return p.rules
    .filter((r) => r.kind === 'mutate-existing')
    .map((r) => ({ code: 'TM4001', class: 'cannot', message: `MutatingAdmissionPolicy cannot express rule ${r.name}, which mutates existing resources (mutate.targets): it runs only at admission`, span: r.span }));
}

/** The source without its mutate rules, or undefined when only mutate rules were there. */
function residueOf(p: SourcePolicy): JsonObject | undefined {
  if (p.dialect !== 'kyverno' || !isJsonObject(p.doc.value) || !isJsonObject(p.doc.value.spec)) return undefined;
  const keep = p.rules.map((r) => r.kind !== 'mutate' && r.kind !== 'mutate-existing');
  if (!keep.some(Boolean)) return undefined;
  const value = JSON.parse(JSON.stringify(p.doc.value)) as JsonObject;
  const spec = value.spec as JsonObject;
  spec.rules = (spec.rules as JsonObject[]).filter((_, i) => keep[i]);
  return value;
}

/** Translates one unit; every member gets an outcome. */
function translateUnit(unit: readonly SourcePolicy[], to: MigrateTarget, apiVersion: string | undefined, validate: ValidateMode): Map<string, Outcome> {
  const refusals = new Map<string, Refusal[]>(unit.map((p) => [p.key, mutateExistingRefusals(p, to)]));
  const notes = new Map<string, Refusal[]>(unit.map((p) => [p.key, []]));
  const owner = (span: Span | undefined): SourcePolicy[] => {
    const own = unit.filter((p) => within(span, p));
    return own.length > 0 ? own : [...unit];
  };
  const seen = new Set<string>();
  const record = (d: Diagnostic, cls: Refusal['class']): void => {
    // An autogen rule repeats its Pod rule's diagnostics at the same place: each is reported once.
    const id = JSON.stringify([d.code, d.message, d.span ?? null]);
    if (seen.has(id)) return;
    seen.add(id);
    const target = d.severity === 'error' ? refusals : notes;
    for (const p of owner(d.span)) target.get(p.key)!.push(refusalOf(d, cls));
  };

  const parsed = parsePolicyDocs(unit.map((p) => p.doc), { mode: validate });
  for (const d of parsed.diagnostics) record(d, 'invalid');
  let documents: JsonObject[] = [];
  let ruleOf: ReadonlyMap<JsonObject, string> = new Map();
  if (!parsed.diagnostics.some((d) => d.severity === 'error')) {
    // kyverno-mpol writes mutate-existing rules too; for MAP they are refused above (mutateExistingRefusals).
    const parts = to === 'kyverno-mpol' ? translateDocumentParts(unit.map((p) => p.doc), parsed.policies, to, 'error', apiVersion) : undefined;
    const result = parts !== undefined ? parts.result : admitted(translate(parsed.policies, to, 'error', apiVersion), to);
    if (parts !== undefined) ruleOf = parts.existing.ruleOf;
    const refusedSomething = result.diagnostics.some((d) => d.code === 'TM4001');
    const mutatesExisting = unit.some((p) => p.rules.some((r) => r.kind === 'mutate-existing'));
    for (const d of result.diagnostics) {
      if (d.code === 'TM4005' && refusedSomething) continue; // "nothing could be translated" repeats the refusals
      // The admission pipeline's "writes nothing" when the mutate rules all mutate existing resources.
      if (d.code === 'TM4005' && d.severity === 'warning' && mutatesExisting) continue;
      record(d, 'yet');
    }
    documents = result.documents.filter(isJsonObject);
  }

  const out = new Map<string, Outcome>();
  const all = unit.flatMap((p) => refusals.get(p.key)!);
  const policyDocs = documents.filter((d) => typeof d.kind === 'string' && !d.kind.endsWith('Binding'));
  // The admission rules make one policy; each mutate-existing rule one of its own (generate-existing.ts).
  const admissionDocs = policyDocs.filter((d) => !ruleOf.has(d));
  if (all.length === 0 && (policyDocs.length === 0 || admissionDocs.length > 1)) {
    const why =
      policyDocs.length === 0
        ? 'the translation writes no policy (the mutate rules change nothing)'
        : `the translation writes ${admissionDocs.length} policies for the admission rules of one source; migrate maps them to one policy`;
    for (const p of unit) refusals.get(p.key)!.push({ code: 'TM4001', class: 'yet', message: why, span: p.span });
  }
  const refused = unit.some((p) => refusals.get(p.key)!.length > 0);
  // A policy the pipeline saw without rules (its mutate rules all mutate existing resources) "writes nothing":
  // the admission pipeline's view, not the migration's.
  const writesNothing = (n: Refusal): boolean => n.code === 'TM4003' && n.message.endsWith('writes nothing; no policy emitted');
  unit.forEach((p, i) => {
    notes.set(p.key, notes.get(p.key)!.filter((n) => !writesNothing(n)));
    if (refused) {
      // A Gatekeeper group stands or falls together: each member lists every refusal of the group.
      const own = unit.length > 1 ? unit.flatMap((q) => refusals.get(q.key)!) : refusals.get(p.key)!;
      out.set(p.key, { status: 'refused', refusals: own, notes: notes.get(p.key)! });
      return;
    }
    const residue = residueOf(p);
    const byRule = policyDocs.length > 1 ? Object.fromEntries(policyDocs.filter((d) => ruleOf.has(d)).map((d) => [ruleOf.get(d)!, targetOfDocument(d)])) : undefined;
    out.set(p.key, {
      status: 'translated',
      documents: i === 0 ? documents : [],
      ...(residue ? { residue } : {}),
      target: targetOfDocument(admissionDocs[0] ?? policyDocs[0]!),
      ...(byRule !== undefined ? { ruleTargets: byRule } : {}),
      flag: to === 'map' ? 'isMutatingAdmissionPolicy' : 'isMutatingPolicy',
      ...(unit.length > 1 ? { group: unit.map((q) => `${q.kind}/${q.name}`), groupKeys: unit.map((q) => q.key) } : {}),
      notes: notes.get(p.key)!,
    });
  });
  return out;
}

function targetOfDocument(doc: JsonObject): MigratedTarget {
  const md = isJsonObject(doc.metadata) ? doc.metadata : {};
  const name = typeof md.name === 'string' ? md.name : '';
  const namespace = typeof md.namespace === 'string' ? md.namespace : undefined;
  return { kind: String(doc.kind), name, ...(namespace !== undefined ? { namespace } : {}), ref: namespace !== undefined ? `${namespace}/${name}` : name };
}

/** The outcome of every source policy of the library, by key. */
export function translateLibrary(library: Library, to: MigrateTarget, apiVersion?: string, validate: ValidateMode = 'strict'): Map<string, Outcome> {
  const out = new Map<string, Outcome>();
  for (const p of library.policies) {
    if (!mutates(p)) out.set(p.key, { status: 'left', reason: `no mutate rule (rules: ${ruleList(p) || 'none'})` });
  }
  for (const unit of units(library)) for (const [key, outcome] of translateUnit(unit, to, apiVersion, validate)) out.set(key, outcome);
  return out;
}

