/**
 * Finds the conformance cases under the DIR arguments of `transmute conformance`: folders with a
 * `manifest.json`, rows of Gatekeeper's `go-unit-tables/*.json`, `results[]` entries of `kyverno-test.yaml`
 * suites, and structured-merge triplets in `smd-merge/*.json`. Ids keep the user's spelling of DIR as prefix.
 */
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { basename, dirname, resolve } from 'node:path';
import { parseDocument } from 'yaml';
import type { CaseRef } from './types.js';

export interface Discovery {
  refs: CaseRef[];
  /** DIR arguments that do not exist. */
  missing: string[];
}

/** Folders that hold data for the engines, not cases (map/k8s-schema). */
const DATA_FOLDERS = new Set(['k8s-schema']);

export function discoverCases(dirs: readonly string[], cwd: string = process.cwd()): Discovery {
  const refs: CaseRef[] = [];
  const missing: string[] = [];
  const seen = new Set<string>();
  const add = (ref: CaseRef): void => {
    const key = refKey(ref);
    if (seen.has(key)) return;
    seen.add(key);
    refs.push(ref);
  };
  for (const dir of dirs) {
    const abs = resolve(cwd, dir);
    if (!existsSync(abs)) {
      missing.push(dir);
      continue;
    }
    visit(abs, trimSlashes(dir), add);
  }
  return { refs, missing };
}

function visit(abs: string, id: string, add: (ref: CaseRef) => void): void {
  let stat;
  try {
    stat = statSync(abs);
  } catch (e) {
    add({ kind: 'unreadable', id, path: abs, message: (e as Error).message });
    return;
  }
  if (stat.isFile()) {
    visitFile(abs, id, add);
    return;
  }
  if (!stat.isDirectory()) return;
  if (existsSync(resolve(abs, 'manifest.json'))) {
    add({ kind: 'manifest', id, path: abs });
    return;
  }
  if (DATA_FOLDERS.has(basename(abs))) return;
  let names: string[];
  try {
    names = readdirSync(abs).filter((n) => !n.startsWith('.')).sort(byCodeUnit);
  } catch (e) {
    add({ kind: 'unreadable', id, path: abs, message: (e as Error).message });
    return;
  }
  for (const name of names) visit(resolve(abs, name), joinId(id, name), add);
}

function visitFile(abs: string, id: string, add: (ref: CaseRef) => void): void {
  const name = basename(abs);
  const parent = basename(dirname(abs));
  // A manifest given directly stands for its case folder.
  if (name === 'manifest.json') {
    const slash = id.lastIndexOf('/');
    add({ kind: 'manifest', id: slash < 0 ? '.' : id.slice(0, slash), path: dirname(abs) });
    return;
  }
  if (name === 'kyverno-test.yaml') return suiteResults(abs, id, add);
  if (!name.endsWith('.json')) return;
  if (parent === 'go-unit-tables') return tableRows(abs, id, add);
  if (parent === 'smd-merge') return smdTriplets(abs, id, add);
}

function tableRows(abs: string, id: string, add: (ref: CaseRef) => void): void {
  const table = readJson(abs);
  if (!table.ok) return add({ kind: 'unreadable', id, path: abs, message: table.message });
  const rows = (table.value as { cases?: unknown }).cases;
  if (!Array.isArray(rows)) return add({ kind: 'unreadable', id, path: abs, message: 'table has no "cases" list' });
  for (let row = 0; row < rows.length; row++) add({ kind: 'table-row', id: `${id}#${row}`, path: abs, row });
}

function smdTriplets(abs: string, id: string, add: (ref: CaseRef) => void): void {
  const file = readJson(abs);
  if (!file.ok) return add({ kind: 'unreadable', id, path: abs, message: file.message });
  const groups = (file.value as { cases?: unknown }).cases;
  if (!Array.isArray(groups)) return add({ kind: 'unreadable', id, path: abs, message: 'triplet file has no "cases" list' });
  groups.forEach((g: unknown, group) => {
    const triplets = (g as { triplets?: unknown } | null)?.triplets;
    if (!Array.isArray(triplets)) {
      add({ kind: 'unreadable', id: `${id}#${group}`, path: abs, message: `cases[${group}] has no "triplets" list` });
      return;
    }
    for (let triplet = 0; triplet < triplets.length; triplet++) {
      add({ kind: 'smd-triplet', id: `${id}#${group}/${triplet}`, path: abs, group, triplet });
    }
  });
}

function suiteResults(abs: string, id: string, add: (ref: CaseRef) => void): void {
  let results: unknown;
  try {
    const doc = parseDocument(readFileSync(abs, 'utf8'));
    if (doc.errors.length > 0) throw new Error(doc.errors[0]!.message.split('\n')[0]);
    results = (doc.toJS({ maxAliasCount: 1000 }) as { results?: unknown } | null)?.results;
  } catch (e) {
    return add({ kind: 'unreadable', id, path: abs, message: (e as Error).message });
  }
  if (!Array.isArray(results)) return add({ kind: 'unreadable', id, path: abs, message: 'kyverno-test.yaml has no "results" list' });
  for (let result = 0; result < results.length; result++) add({ kind: 'suite-result', id: `${id}#${result}`, path: abs, result });
}

function readJson(abs: string): { ok: true; value: unknown } | { ok: false; message: string } {
  try {
    return { ok: true, value: JSON.parse(readFileSync(abs, 'utf8')) };
  } catch (e) {
    return { ok: false, message: (e as Error).message };
  }
}

function refKey(ref: CaseRef): string {
  switch (ref.kind) {
    case 'manifest':
    case 'unreadable':
      return `${ref.kind}|${ref.path}`;
    case 'table-row':
      return `row|${ref.path}|${ref.row}`;
    case 'suite-result':
      return `suite|${ref.path}|${ref.result}`;
    case 'smd-triplet':
      return `smd|${ref.path}|${ref.group}|${ref.triplet}`;
  }
}

function trimSlashes(dir: string): string {
  const trimmed = dir.replace(/\/+$/, '');
  return trimmed === '' ? '/' : trimmed;
}

function joinId(id: string, name: string): string {
  return id.endsWith('/') ? `${id}${name}` : `${id}/${name}`;
}

/** Locale-independent ordering, so ids come out in the same order on every machine. */
function byCodeUnit(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
