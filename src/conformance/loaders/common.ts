/** Reading helpers shared by the loaders: every failure is a TM7003 "conformance case malformed" value. */
import { readFileSync } from 'node:fs';
import { basename, dirname, resolve } from 'node:path';
import { diagnostic, fail, ok, type Result } from '../../diagnostics/diagnostic.js';
import { renderDiagnosticLine } from '../../diagnostics/render.js';
import { isJsonObject, type JsonObject, type JsonValue } from '../../ir/json.js';
import type { SourceDoc } from '../../io/source.js';
import { loadYamlText } from '../../io/yaml-load.js';

export function malformed<T>(message: string): Result<T> {
  return fail(diagnostic('TM7003', { phase: 'io', message }));
}

/** What every case carries, whatever its format: its id, folder, corpus and where it was taken from. */
export interface CaseBase {
  id: string;
  path: string;
  corpus: string;
  source: string;
}

/** Where a case's files are read from and how their names are shown (the id's spelling of the folder). */
export interface CaseFiles {
  dir: string;
  display: string;
  /** The path a file the case names as `name` (relative to `dir`) is read from; `resolve(dir, name)` when absent. */
  readFrom?: (dir: string, name: string) => string;
  /** How the case's YAML was written: `1.2` for objects transcribed from Go tests (see LoadOptions.yamlVersion). */
  yamlVersion?: '1.1' | '1.2';
}

export function caseFiles(dir: string, display: string): CaseFiles {
  return { dir, display };
}

/** Where the case's file `name` is read from. */
function caseFilePath(files: CaseFiles, name: string): string {
  return files.readFrom ? files.readFrom(files.dir, name) : resolve(files.dir, name);
}

export function readJson(files: CaseFiles, name: string): Result<JsonValue> {
  let text: string;
  try {
    text = readFileSync(caseFilePath(files, name), 'utf8');
  } catch (e) {
    return malformed(`${files.display}/${name}: ${(e as Error).message}`);
  }
  try {
    return ok(JSON.parse(text) as JsonValue);
  } catch (e) {
    return malformed(`${files.display}/${name}: ${(e as Error).message}`);
  }
}

export function readManifest(files: CaseFiles): Result<JsonObject> {
  const m = readJson(files, 'manifest.json');
  if (!m.ok) return m;
  if (!isJsonObject(m.value)) return malformed(`${files.display}/manifest.json: not a JSON object`);
  return ok(m.value);
}

/** Every document of a YAML or JSON file of the case, with file names shown as `<display>/<name>`. */
export function readDocs(files: CaseFiles, name: string): Result<SourceDoc[]> {
  let text: string;
  try {
    text = readFileSync(caseFilePath(files, name), 'utf8');
  } catch (e) {
    return malformed(`${files.display}/${name}: ${(e as Error).message}`);
  }
  const docs = loadYamlText(`${files.display}/${name}`, text, files.yamlVersion ? { yamlVersion: files.yamlVersion } : {});
  if (!docs.ok) return malformed(docs.diagnostics.map((d) => renderDiagnosticLine(d)).join('; '));
  return docs;
}

/** The single object of a file (its first document), which must be a mapping. */
export function readObject(files: CaseFiles, name: string): Result<JsonObject> {
  const docs = readDocs(files, name);
  if (!docs.ok) return docs;
  const first = docs.value[0];
  if (!first || !isJsonObject(first.value)) return malformed(`${files.display}/${name}: expected one YAML mapping`);
  return ok(first.value);
}

/** A document built by the runner (a Kyverno unit case's patch wrapped in a policy), loaded like a file. */
export function synthesizedDocs(value: JsonValue, display: string): Result<SourceDoc[]> {
  const docs = loadYamlText(display, JSON.stringify(value, null, 2));
  if (!docs.ok) return malformed(docs.diagnostics.map((d) => renderDiagnosticLine(d)).join('; '));
  return docs;
}

/** `corpus` and `source` from the folder names above a case (`.../<corpus>/<source>/<case>`). */
export function placeOf(caseDir: string): { corpus: string; source: string } {
  const source = basename(dirname(caseDir));
  return { corpus: basename(dirname(dirname(caseDir))), source };
}

export function str(obj: JsonObject | undefined, key: string): string | undefined {
  const v = obj?.[key];
  return typeof v === 'string' ? v : undefined;
}

export function obj(value: JsonValue | undefined): JsonObject | undefined {
  return isJsonObject(value) ? value : undefined;
}

export function list(value: JsonValue | undefined): JsonValue[] {
  return Array.isArray(value) ? value : [];
}

export function strings(value: JsonValue | undefined): string[] {
  return list(value).filter((v): v is string => typeof v === 'string');
}

export function metadataOf(o: JsonValue | undefined): JsonObject {
  return obj(obj(o)?.metadata) ?? {};
}
