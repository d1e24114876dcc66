import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { parse as parseYaml } from 'yaml';
import { hasErrors, type Diagnostic } from '../diagnostics/diagnostic.js';
import { renderDiagnosticLine } from '../diagnostics/render.js';
import { dialectByName } from '../dialects/registry.js';
import { apply, type ApplyEnv } from '../interpreter/index.js';
import { isJsonObject, jsonEqual, type JsonObject, type JsonValue } from '../ir/json.js';
import type { Policy } from '../ir/nodes.js';
import { parseIrText } from '../ir/parse-text.js';
import { printPolicies } from '../ir/print.js';
import { loadYamlText } from '../io/yaml-load.js';
import { toYaml } from '../io/yaml-dump.js';
import type { AdmissionRequest } from '../k8s/request.js';
import { parsePolicyDocs, translate } from '../pipeline.js';
import { readCase, type GoldenCase, type GoldenResource } from './case.js';

export interface CheckResult {
  /** `parse:<dialect>`, `ir-text`, `apply:<source>:<resource>`, `emit:<dialect>`, `reexec:<dialect>:<resource>`, `roundtrip:<dialect>`. */
  check: string;
  ok: boolean;
  message?: string;
}

export interface CaseResult {
  name: string;
  dir: string;
  checks: CheckResult[];
}

export interface RunOptions {
  /** Rewrite ir.txt, emit/*, diagnostics and expected results from what the code produces now. */
  update?: boolean;
}

function read(file: string): string | undefined {
  return existsSync(file) ? readFileSync(file, 'utf8') : undefined;
}

function write(file: string, text: string): void {
  mkdirSync(dirname(file), { recursive: true });
  writeFileSync(file, text);
}

/** Parses a text in a dialect-agnostic way, as the CLI would (dialect discovered from apiVersion/kind). */
export function parseText(name: string, text: string): { policies: Policy[]; diagnostics: Diagnostic[] } {
  const loaded = loadYamlText(name, text);
  if (!loaded.ok) return { policies: [], diagnostics: loaded.diagnostics };
  const parsed = parsePolicyDocs(loaded.value);
  return { policies: parsed.policies, diagnostics: [...loaded.diagnostics, ...parsed.diagnostics] };
}

function loadResource(res: GoldenResource): { request: AdmissionRequest; env: ApplyEnv } {
  const object = parseYaml(readFileSync(res.file, 'utf8')) as JsonValue;
  const extra = (res.requestFile ? parseYaml(readFileSync(res.requestFile, 'utf8')) : {}) as JsonObject;
  const request: AdmissionRequest = {
    object,
    oldObject: (extra.oldObject as JsonValue | undefined) ?? null,
    operation: (extra.operation as AdmissionRequest['operation'] | undefined) ?? 'CREATE',
    userInfo: (extra.userInfo as AdmissionRequest['userInfo'] | undefined) ?? {},
    namespaceObject: (extra.namespaceObject as JsonObject | undefined) ?? null,
    params: (extra.params as JsonValue | undefined) ?? null,
  };
  const env: ApplyEnv = { trace: false };
  if (isJsonObject(extra.externalData)) env.externalData = extra.externalData as ApplyEnv['externalData'] & object;
  return { request, env };
}

/** What applying gives, in golden-file form: the object as YAML, or the error diagnostics as `CODE message` lines. */
function outcome(policies: Policy[], res: GoldenResource): { object?: JsonValue; errors?: string } {
  const { request, env } = loadResource(res);
  const r = apply(policies, request, env);
  if (!r.allowed) return { errors: r.diagnostics.filter((d) => d.severity === 'error').map((d) => `${d.code} ${d.message}`).join('\n') + '\n' };
  return { object: r.object };
}

function compareOutcome(policies: Policy[], res: GoldenResource, update: boolean): CheckResult['message'] | undefined {
  const got = outcome(policies, res);
  const wantObject = read(res.expectedFile);
  const wantError = read(res.errorFile);
  if (update) {
    if (got.errors !== undefined) write(res.errorFile, got.errors);
    else write(res.expectedFile, toYaml(got.object ?? null));
    return undefined;
  }
  if (got.errors !== undefined) {
    if (wantError === undefined) return `request was denied:\n${got.errors}`;
    return got.errors.trim() === wantError.trim() ? undefined : `expected errors:\n${wantError}\ngot:\n${got.errors}`;
  }
  if (wantObject === undefined) return wantError !== undefined ? `expected the request to fail with:\n${wantError}` : `missing ${basename(res.expectedFile)}`;
  const want = parseYaml(wantObject) as JsonValue;
  return jsonEqual(want, got.object) ? undefined : `expected:\n${wantObject}\ngot:\n${toYaml(got.object ?? null)}`;
}

function renderDiagnostics(diags: readonly Diagnostic[]): string {
  return diags.map(renderDiagnosticLine).join('\n') + (diags.length ? '\n' : '');
}

export function runCase(c: GoldenCase, opts: RunOptions = {}): CaseResult {
  const update = Boolean(opts.update);
  const checks: CheckResult[] = [];
  const check = (name: string, message: string | undefined) => checks.push(message === undefined ? { check: name, ok: true } : { check: name, ok: false, message });
  const irFile = join(c.dir, 'ir.txt');
  const diagFile = join(c.dir, 'diagnostics.txt');

  // 1. Every input parses to the canonical IR (or to exactly the expected diagnostics).
  const parsedBy: { source: string; policies: Policy[] }[] = [];
  for (const input of c.inputs) {
    const text = readFileSync(input.file, 'utf8');
    const parsed = parseText(basename(input.file), text);
    const rendered = renderDiagnostics(parsed.diagnostics);
    const wantDiags = read(diagFile);
    if (update && (parsed.diagnostics.length > 0 || wantDiags !== undefined)) write(diagFile, rendered);
    else if (wantDiags !== undefined || parsed.diagnostics.length > 0) {
      check(`diagnostics:${input.dialect}`, rendered === (wantDiags ?? '') ? undefined : `expected diagnostics:\n${wantDiags ?? '(none)\n'}got:\n${rendered}`);
    }
    if (hasErrors(parsed.diagnostics)) continue;
    const printed = printPolicies(parsed.policies);
    if (update) write(irFile, printed);
    else check(`parse:${input.dialect}`, printed === read(irFile) ? undefined : `expected ir.txt:\n${read(irFile) ?? '(missing)\n'}got:\n${printed}`);
    parsedBy.push({ source: input.dialect, policies: parsed.policies });
  }

  // 2. The text form reads back to itself, and the IR it describes behaves like the inputs.
  const irText = read(irFile);
  if (irText !== undefined) {
    const fromText = parseIrText('ir.txt', irText);
    if (!fromText.ok) check('ir-text', renderDiagnostics(fromText.diagnostics));
    else {
      check('ir-text', printPolicies(fromText.value) === irText ? undefined : `ir.txt does not read back to itself:\n${printPolicies(fromText.value)}`);
      if (parsedBy.length === 0) parsedBy.push({ source: 'ir.txt', policies: fromText.value });
    }
  }

  // 3. Interpretation gives the expected objects.
  for (const { source, policies } of parsedBy) {
    for (const res of c.resources) check(`apply:${source}:${res.name}`, compareOutcome(policies, res, update && source === parsedBy[0]!.source));
  }

  // 4. Each target: emitted text, re-execution of the emitted form, stable round trip.
  const base = parsedBy[0]?.policies;
  if (base) {
    for (const [dialect, expectation] of Object.entries(c.expect)) {
      const emitFile = join(c.dir, 'emit', `${dialect}.yaml`);
      if (!dialectByName(dialect)) {
        check(`emit:${dialect}`, `no dialect named "${dialect}"`);
        continue;
      }
      const generated = translate(base, dialect, 'error');
      const codes = generated.diagnostics.map((d) => d.code);
      if (expectation.kind === 'unsupported') {
        check(`emit:${dialect}`, codes.includes(expectation.code as Diagnostic['code']) ? undefined : `expected ${expectation.code}, got ${codes.join(', ') || 'no diagnostic'}`);
        continue;
      }
      if (hasErrors(generated.diagnostics)) {
        check(`emit:${dialect}`, `generation failed:\n${renderDiagnostics(generated.diagnostics)}`);
        continue;
      }
      if (expectation.kind === 'lossy' && !codes.includes(expectation.code as Diagnostic['code'])) {
        check(`emit:${dialect}`, `expected lossy ${expectation.code}, got ${codes.join(', ') || 'no diagnostic'}`);
        continue;
      }
      if (update) write(emitFile, generated.text);
      else check(`emit:${dialect}`, generated.text === read(emitFile) ? undefined : `expected emit/${dialect}.yaml:\n${read(emitFile) ?? '(missing)\n'}got:\n${generated.text}`);
      const reparsed = parseText(`emit/${dialect}.yaml`, generated.text);
      if (hasErrors(reparsed.diagnostics)) {
        check(`reexec:${dialect}`, `the emitted ${dialect} does not parse:\n${renderDiagnostics(reparsed.diagnostics)}`);
        continue;
      }
      if (expectation.kind === 'exact') {
        for (const res of c.resources) check(`reexec:${dialect}:${res.name}`, compareOutcome(reparsed.policies, res, false));
      }
      const again = translate(reparsed.policies, dialect, 'error');
      check(`roundtrip:${dialect}`, again.text === generated.text ? undefined : `generate(parse(emit)) differs:\n${again.text}`);
    }
  }
  return { name: c.name, dir: c.dir, checks };
}

export function runCaseDir(dir: string, opts: RunOptions = {}): CaseResult {
  const c = readCase(dir);
  if ('error' in c) return { name: basename(dir), dir, checks: [{ check: 'case', ok: false, message: c.error }] };
  return runCase(c, opts);
}
