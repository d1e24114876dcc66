/**
 * `transmute migrate`: a policy library and its kyverno-test.yaml suites, migrated together to Kyverno's CEL
 * MutatingPolicy (or MutatingAdmissionPolicy), each migration proven by running the original and the
 * rewritten suites. Steps, one module each: discover.ts (what is under DIR), translate.ts (each source policy
 * through the pipeline), suites.ts (the rewritten suites), output.ts (OUT, staged and renamed into place),
 * unchanged.ts (`skip` entries of policies that run and change nothing expect `pass`), prove.ts (both suites
 * run as `transmute test` runs them), prove-chainsaw.ts (the library's chainsaw tests replayed on both),
 * prove-samples.ts (for what no test checks: the library's example objects admitted through both),
 * report.ts (the verdict per source policy).
 */
import { readFileSync } from 'node:fs';
import { discover } from './discover.js';
import type { MigrateTarget } from './model.js';
import { checkOutDir, MARKER, policyFileText, Staging } from './output.js';
import { prove } from './prove.js';
import { proveByChainsaw } from './prove-chainsaw.js';
import { proveBySamples } from './prove-samples.js';
import { buildReport, renderJson, type MigrateReport } from './report.js';
import { rewriteSuite } from './suites.js';
import { translateLibrary } from './translate.js';
import { settleUnchanged } from './unchanged.js';
import type { ValidateMode } from '../validate/admit.js';

export interface MigrateOptions {
  dir: string;
  outDir: string;
  to: MigrateTarget;
  apiVersion?: string;
  /** How the source policies are admitted (`--validate`); strict by default. */
  validate?: ValidateMode;
}

/** A report, or why nothing was written (bad input: exit 2). */
export type MigrateRun = { ok: true; report: MigrateReport } | { ok: false; error: string };

export function migrate(opts: MigrateOptions): MigrateRun {
  const found = discover(opts.dir);
  if ('error' in found) return { ok: false, error: found.error.message };
  const bad = checkOutDir(opts.dir, opts.outDir);
  if (bad) return { ok: false, error: bad };
  const { library } = found;
  const outcomes = translateLibrary(library, opts.to, opts.apiVersion, opts.validate);
  const suites = library.files.filter((f) => f.role === 'suite').map((f) => rewriteSuite(library, f, outcomes, opts.outDir));
  const rewritten = new Map(suites.map((s) => [s.file.rel, s.text]));

  let staging: Staging;
  try {
    staging = new Staging(opts.outDir);
  } catch (e) {
    return { ok: false, error: `cannot write ${opts.outDir}: ${(e as NodeJS.ErrnoException).code ?? (e as Error).message}` };
  }
  try {
    for (const file of library.files) {
      const text = file.role === 'suite' ? rewritten.get(file.rel) : file.role === 'policies' ? policyFileText(file, library, outcomes) : undefined;
      staging.write(file.rel, text ?? readFileSync(file.abs));
    }
    for (const [rel, text] of settleUnchanged(suites, (rel) => staging.path(rel))) staging.write(rel, text);
    const proofs = prove(suites, (rel) => staging.path(rel), opts.outDir);
    const migrated = new Set([...outcomes].filter(([, o]) => o.status !== 'refused' && o.status !== 'left').map(([k]) => k));
    for (const [key, rows] of proveByChainsaw(library, migrated, (rel) => staging.path(rel), opts.outDir)) proofs.set(key, [...(proofs.get(key) ?? []), ...rows]);
    // What no test checks, the library's example objects may: both policies admit them, the results compared.
    for (const [key, rows] of proveBySamples(library, outcomes, proofs, opts.outDir)) proofs.set(key, rows);
    const report = buildReport({
      library,
      outcomes,
      proofs,
      suites: suites.map((s) => s.outcome),
      outDir: opts.outDir,
      to: opts.to,
      ...(opts.apiVersion ? { apiVersion: opts.apiVersion } : {}),
    });
    staging.write(MARKER, renderJson(report));
    staging.commit();
    return { ok: true, report };
  } catch (e) {
    staging.discard();
    return { ok: false, error: `cannot write ${opts.outDir}: ${(e as NodeJS.ErrnoException).code ?? (e as Error).message}` };
  }
}

export { renderJson, renderText, reportExit, type MigrateReport } from './report.js';
export { MIGRATE_TARGETS, type MigrateTarget } from './model.js';
