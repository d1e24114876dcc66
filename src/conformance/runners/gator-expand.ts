/**
 * `gator expand` cases (../shared/conformance/gatekeeper/INDEX.md, "Expansion cases"): a manifest with
 * `runner: "gator-expand"`, an `input/` folder given whole to `gator expand --filename=input/`, and
 * `output/output.yaml` whose documents the printed stream must contain (each equal to one printed resultant,
 * after JSON normalisation; extra printed documents allowed). A manifest `expectedError` (`{contains}`) says
 * gator must fail instead.
 *
 * Like gator, and like the Go tests of the other Gatekeeper cases, the inputs reach Gatekeeper's own checks
 * only (no API server, so no CRD schema).
 */
import { relative } from 'node:path';
import { ok, type Result } from '../../diagnostics/diagnostic.js';
import { gatekeeperDialect } from '../../dialects/gatekeeper/index.js';
import { gatorExpand } from '../../dialects/gatekeeper/expansion/gator.js';
import { isExpansionTemplateDoc } from '../../dialects/gatekeeper/expansion/template.js';
import { dialectFor } from '../../dialects/registry.js';
import { isJsonObject, type JsonObject } from '../../ir/json.js';
import { listInputFiles } from '../../io/inputs.js';
import { expandLists } from '../../io/lists.js';
import type { SourceDoc } from '../../io/source.js';
import { parsePolicyDocs } from '../../pipeline.js';
import { compareObjects, describeDifference } from '../compare.js';
import { caseFiles, malformed, obj, readDocs, str, type CaseBase, type CaseFiles } from '../loaders/common.js';
import { firstError, preparePolicies } from '../policies.js';
import type { CaseResult, GatorExpandCase } from '../types.js';
import type { RunContext } from './context.js';

const ENGINE_ONLY = { stages: 'engine' as const };

function folderDocs(files: CaseFiles, folder: string): Result<SourceDoc[]> {
  let names: string[];
  try {
    names = listInputFiles(`${files.dir}/${folder}`);
  } catch (e) {
    return malformed(`${files.display}/${folder}: ${(e as Error).message}`);
  }
  const docs: SourceDoc[] = [];
  for (const abs of names) {
    const r = readDocs(files, relative(files.dir, abs));
    if (!r.ok) return r;
    docs.push(...r.value);
  }
  return ok(expandLists(docs));
}

export function loadGatorExpandCase(base: CaseBase, files: CaseFiles, manifest: JsonObject): Result<GatorExpandCase> {
  const input = folderDocs(files, 'input');
  if (!input.ok) return input;
  if (input.value.length === 0) return malformed(`${files.display}/input: no documents`);
  const error = obj(manifest.expectedError);
  let expectedDocs: SourceDoc[] = [];
  if (!error) {
    const output = readDocs(caseFiles(files.dir, files.display), 'output/output.yaml');
    if (!output.ok) return output;
    expectedDocs = output.value.filter((d) => isJsonObject(d.value));
  }
  const contains = str(error, 'contains');
  return ok({
    ...base,
    format: 'gator-expand',
    dialect: 'gatekeeper',
    inputDocs: input.value,
    expectedDocs,
    ...(error ? { expectedError: contains !== undefined ? { contains } : {} } : {}),
  });
}

function docName(d: SourceDoc): string {
  const v = d.value as JsonObject;
  const meta = isJsonObject(v.metadata) ? v.metadata : {};
  return `${String(v.kind)}/${String(meta.name)}`;
}

export function runGatorExpandCase(c: GatorExpandCase, ctx: RunContext): CaseResult {
  if (ctx.via !== undefined && ctx.via !== 'gatekeeper') {
    return { status: 'unsupported', class: 'cannot', reason: `ExpansionTemplates are Gatekeeper's own: ${ctx.via} mutates admitted objects, never the resources a workload would create` };
  }
  let stopped: CaseResult | undefined;
  const parsePolicies = (docs: readonly SourceDoc[]) => {
    if (ctx.via === undefined || docs.length === 0) return parsePolicyDocs(docs, ENGINE_ONLY);
    // --via gatekeeper: the mutators are written back by the Gatekeeper generator and read again.
    const prepared = preparePolicies({ id: c.id, dialect: 'gatekeeper', policyDocs: docs, siblingDocs: [], admission: ENGINE_ONLY }, ctx.via, ctx.admitted, ctx.dialects);
    if (prepared.kind === 'stop') stopped = prepared.result;
    return prepared.kind === 'ready' ? prepared : { policies: [], diagnostics: prepared.kind === 'rejected' ? prepared.diagnostics : [] };
  };
  const expansion = gatorExpand(c.inputDocs, {
    dialect: gatekeeperDialect,
    admission: ENGINE_ONLY,
    parsePolicies,
    isPolicy: (doc) => !isExpansionTemplateDoc(doc) && dialectFor(doc) !== undefined,
    env: ctx.runtime ? { runtime: ctx.runtime } : {},
  });
  if (stopped) return stopped;
  if (c.expectedError) {
    if (!expansion.failure) return { status: 'failed', reason: 'expected gator expand to fail, but it expanded' };
    const message = firstError(expansion.diagnostics);
    const want = c.expectedError.contains;
    return want === undefined || message.includes(want) ? { status: 'passed' } : { status: 'failed', reason: `expected an error containing "${want}", got: ${message}` };
  }
  if (expansion.failure) return { status: 'failed', reason: `gator expand failed: ${firstError(expansion.diagnostics)}` };
  const printed = expansion.resultants.map((r) => r.object);
  for (const want of c.expectedDocs) {
    if (printed.some((got) => compareObjects('exact', want.value, got) === undefined)) continue;
    const same = printed.find((got) => docName({ value: got } as SourceDoc) === docName(want));
    const why = same ? describeDifference(compareObjects('exact', want.value, same)!) : `printed: ${printed.map((p) => docName({ value: p } as SourceDoc)).join(', ') || 'nothing'}`;
    return { status: 'failed', reason: `expected ${docName(want)} among the printed resultants; ${why}` };
  }
  return { status: 'passed' };
}
