/**
 * Turns a discovered `CaseRef` into a typed case, choosing the loader from the manifest's shape (so a case
 * folder works wherever it sits) and, for manifest-less data, from the file it lives in.
 */
import { readFileSync } from 'node:fs';
import { basename, dirname } from 'node:path';
import type { Result } from '../../diagnostics/diagnostic.js';
import type { JsonValue } from '../../ir/json.js';
import type { CaseRef, ConformanceCase } from '../types.js';
import { caseFiles, malformed, obj, placeOf, readManifest, str } from './common.js';
import { loadGatekeeperCase } from './gatekeeper.js';
import { loadGatorExpandCase } from '../runners/gator-expand.js';
import { loadChainsawCase } from './kyverno-chainsaw.js';
import { loadKyvernoCliCase } from './kyverno-cli.js';
import { loadKyvernoSuiteResult } from './kyverno-suite.js';
import { loadKyvernoUnitCase } from './kyverno-unit.js';
import { loadMapCase } from './map.js';
import { smdTripletCase, tableRowCase } from './tables.js';

/** Parsed JSON data files shared by the rows and triplets of one run (each file is read once). */
export class LoadCache {
  private readonly json = new Map<string, { ok: true; value: JsonValue } | { ok: false; message: string }>();

  readJson(path: string): { ok: true; value: JsonValue } | { ok: false; message: string } {
    let hit = this.json.get(path);
    if (!hit) {
      try {
        hit = { ok: true, value: JSON.parse(readFileSync(path, 'utf8')) as JsonValue };
      } catch (e) {
        hit = { ok: false, message: (e as Error).message };
      }
      this.json.set(path, hit);
    }
    return hit;
  }
}

export function loadCase(ref: CaseRef, cache: LoadCache = new LoadCache()): Result<ConformanceCase> {
  switch (ref.kind) {
    case 'unreadable':
      return malformed(`${ref.id}: ${ref.message}`);
    case 'manifest':
      return loadManifestCase(ref.id, ref.path);
    case 'table-row': {
      const table = cache.readJson(ref.path);
      if (!table.ok) return malformed(`${ref.id}: ${table.message}`);
      return tableRowCase({ id: ref.id, path: ref.path, ...filePlace(ref.path) }, table.value, ref.row);
    }
    case 'smd-triplet': {
      const file = cache.readJson(ref.path);
      if (!file.ok) return malformed(`${ref.id}: ${file.message}`);
      return smdTripletCase({ id: ref.id, path: ref.path, ...filePlace(ref.path) }, file.value, ref.group, ref.triplet);
    }
    case 'suite-result': {
      const fileId = ref.id.slice(0, ref.id.lastIndexOf('#'));
      const slash = fileId.lastIndexOf('/');
      const display = slash < 0 ? '.' : fileId.slice(0, slash);
      const files = caseFiles(dirname(ref.path), display);
      return loadKyvernoSuiteResult({ id: ref.id, path: ref.path, ...suitePlace(ref.path) }, files, basename(ref.path), ref.result);
    }
  }
}

function loadManifestCase(id: string, dir: string): Result<ConformanceCase> {
  const files = caseFiles(dir, id);
  const manifest = readManifest(files);
  if (!manifest.ok) return manifest;
  const m = manifest.value;
  const base = { id, path: dir, ...placeOf(dir) };
  if (str(m, 'runner') === 'gator-expand') return loadGatorExpandCase(base, files, m);
  if (str(obj(m.files), 'mutators')) return loadGatekeeperCase(base, files, m);
  if (obj(m.expect) && obj(m.request)) return loadMapCase(base, files, m);
  switch (str(m, 'source')) {
    case 'kyverno-cli':
      return loadKyvernoCliCase(base, files, m);
    case 'kyverno-chainsaw':
    case 'kyverno-chainsaw-mpol-to-map':
      return loadChainsawCase(base, files, m);
    case 'kyverno-unit':
      return loadKyvernoUnitCase(base, files, m);
    default:
      return malformed(`${id}/manifest.json: not a known manifest format (no files.mutators, request/expect or kyverno source)`);
  }
}

/** `.../<corpus>/<source>/<file>.json` */
function filePlace(path: string): { corpus: string; source: string } {
  return { corpus: basename(dirname(dirname(path))), source: basename(dirname(path)) };
}

/** `.../kyverno/suites/<suite...>/kyverno-test.yaml`: the corpus is the folder above `suites`. */
function suitePlace(path: string): { corpus: string; source: string } {
  const parts = path.split(/[\\/]/);
  const at = parts.lastIndexOf('suites');
  return at > 0 ? { corpus: parts[at - 1]!, source: 'suites' } : filePlace(path);
}
