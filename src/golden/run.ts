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
import { createRuntime } from '../runtime/create.js';
import { deriveRuntime, type Runtime } from '../runtime/runtime.js';
import { parsePolicyDocs, translate } from '../pipeline.js';
import { expectationFor, readCase, type GoldenCase, type GoldenResource } from './case.js';

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
  /** The runtime every resource is applied with (a case's external data is added to it); default: createRuntime(). */
  runtime?: Runtime;
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

function loadResource(res: GoldenResource, runtime: Runtime): { request: AdmissionRequest; env: ApplyEnv } {
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
  // The request's own name and namespace, as kube-apiserver sends them (Kyverno's CLI leaves request.name unset).
  if (typeof extra.name === 'string') request.name = extra.name;
  if (typeof extra.namespace === 'string') request.namespace = extra.namespace;
  const externalData = isJsonObject(extra.externalData) ? (extra.externalData as NonNullable<Runtime['externalData']>) : undefined;
  return { request, env: { trace: false, runtime: externalData ? deriveRuntime(runtime, { externalData }) : runtime } };
}

/** What applying gives, in golden-file form: the object as YAML, or the error diagnostics as `CODE message` lines. */
function outcome(policies: Policy[], res: GoldenResource, runtime: Runtime): { object?: JsonValue; errors?: string } {
  const { request, env } = loadResource(res, runtime);
  const r = apply(policies, request, env);
  if (!r.allowed) return { errors: r.diagnostics.filter((d) => d.severity === 'error').map((d) => `${d.code} ${d.message}`).join('\n') + '\n' };
  return { object: r.object };
}

function compareOutcome(policies: Policy[], res: GoldenResource, update: boolean, runtime: Runtime): CheckResult['message'] | undefined {
  const got = outcome(policies, res, runtime);
  const wantObject = read(res.expectedFile);
  const wantError = read(res.errorFile);
  if (update) {
    // An expectation that already holds is left as written (hand-written objects keep their order and comments).
    if (got.errors !== undefined) {
      if (wantError?.trim() !== got.errors.trim()) write(res.errorFile, got.errors);
    } else if (wantObject === undefined || !jsonEqual(parseYaml(wantObject) as JsonValue, got.object)) write(res.expectedFile, toYaml(got.object ?? null));
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
  const runtime = opts.runtime ?? createRuntime();
  const checks: CheckResult[] = [];
  const check = (name: string, message: string | undefined) => checks.push(message === undefined ? { check: name, ok: true } : { check: name, ok: false, message });
  // One input keeps the short layout (ir.txt, emit/<target>.yaml); several inputs get a file per source.
  const multi = c.inputs.length > 1;
  const irFileOf = (source: string) => join(c.dir, multi ? `ir.${source}.txt` : 'ir.txt');
  const diagFileOf = (source: string) => join(c.dir, multi ? `diagnostics.${source}.txt` : 'diagnostics.txt');
  const emitFileOf = (source: string, target: string) => (multi ? join(c.dir, 'emit', `from-${source}`, `${target}.yaml`) : join(c.dir, 'emit', `${target}.yaml`));
  const directionOf = (source: string, target: string) => (multi ? `${source}->${target}` : target);

  // 1. Every input parses to its canonical IR (or to exactly the expected diagnostics).
  const parsedBy: { source: string; policies: Policy[] }[] = [];
  for (const input of c.inputs) {
    const text = readFileSync(input.file, 'utf8');
    const parsed = parseText(basename(input.file), text);
    const rendered = renderDiagnostics(parsed.diagnostics);
    const diagFile = diagFileOf(input.dialect);
    const wantDiags = read(diagFile);
    if (update && (parsed.diagnostics.length > 0 || wantDiags !== undefined)) write(diagFile, rendered);
    else if (wantDiags !== undefined || parsed.diagnostics.length > 0) {
      check(`diagnostics:${input.dialect}`, rendered === (wantDiags ?? '') ? undefined : `expected ${basename(diagFile)}:\n${wantDiags ?? '(none)\n'}got:\n${rendered}`);
    }
    if (hasErrors(parsed.diagnostics)) continue;
    const irFile = irFileOf(input.dialect);
    const printed = printPolicies(parsed.policies);
    if (update) write(irFile, printed);
    else check(`parse:${input.dialect}`, printed === read(irFile) ? undefined : `expected ${basename(irFile)}:\n${read(irFile) ?? '(missing)\n'}got:\n${printed}`);
    parsedBy.push({ source: input.dialect, policies: parsed.policies });
  }

  // 2. Each text form reads back to itself; a case with no input is described by its ir.txt alone.
  const irFiles = c.inputs.length > 0 ? c.inputs.map((i) => ({ source: i.dialect, file: irFileOf(i.dialect) })) : [{ source: 'ir.txt', file: join(c.dir, 'ir.txt') }];
  for (const { source, file } of irFiles) {
    const irText = read(file);
    if (irText === undefined) continue;
    const fromText = parseIrText(basename(file), irText);
    const name = multi ? `ir-text:${source}` : 'ir-text';
    if (!fromText.ok) check(name, renderDiagnostics(fromText.diagnostics));
    else {
      check(name, printPolicies(fromText.value) === irText ? undefined : `${basename(file)} does not read back to itself:\n${printPolicies(fromText.value)}`);
      if (c.inputs.length === 0) parsedBy.push({ source, policies: fromText.value });
    }
  }

  // 3. Interpretation gives the expected objects, the same for every source.
  for (const { source, policies } of parsedBy) {
    for (const res of c.resources) check(`apply:${source}:${res.name}`, compareOutcome(policies, res, update && source === parsedBy[0]!.source, runtime));
  }

  // 4. Each source into each target: emitted text, re-execution of the emitted form, stable round trip.
  for (const { source, policies } of parsedBy) {
    const targets = new Set([...Object.keys(c.expect), ...Object.keys(c.expectFrom[source] ?? {})]);
    for (const target of [...targets].sort()) {
      const expectation = expectationFor(c, source, target)!;
      const name = directionOf(source, target);
      const emitFile = emitFileOf(source, target);
      const shown = emitFile.slice(c.dir.length + 1);
      if (!dialectByName(target)) {
        check(`emit:${name}`, `no dialect named "${target}"`);
        continue;
      }
      const generated = translate(policies, target, 'error');
      const codes = generated.diagnostics.map((d) => d.code);
      if (expectation.kind === 'unsupported') {
        check(`emit:${name}`, codes.includes(expectation.code as Diagnostic['code']) ? undefined : `expected ${expectation.code}, got ${codes.join(', ') || 'no diagnostic'}`);
        continue;
      }
      if (hasErrors(generated.diagnostics)) {
        check(`emit:${name}`, `generation failed:\n${renderDiagnostics(generated.diagnostics)}`);
        continue;
      }
      if (expectation.kind === 'lossy' && !codes.includes(expectation.code as Diagnostic['code'])) {
        check(`emit:${name}`, `expected lossy ${expectation.code}, got ${codes.join(', ') || 'no diagnostic'}`);
        continue;
      }
      if (update) write(emitFile, generated.text);
      else check(`emit:${name}`, generated.text === read(emitFile) ? undefined : `expected ${shown}:\n${read(emitFile) ?? '(missing)\n'}got:\n${generated.text}`);
      const reparsed = parseText(shown, generated.text);
      if (hasErrors(reparsed.diagnostics)) {
        check(`reexec:${name}`, `the emitted ${target} does not parse:\n${renderDiagnostics(reparsed.diagnostics)}`);
        continue;
      }
      if (expectation.kind === 'exact') {
        for (const res of c.resources) check(`reexec:${name}:${res.name}`, compareOutcome(reparsed.policies, res, false, runtime));
      }
      const again = translate(reparsed.policies, target, 'error');
      check(`roundtrip:${name}`, again.text === generated.text ? undefined : `generate(parse(emit)) differs:\n${again.text}`);
    }
  }
  return { name: c.name, dir: c.dir, checks };
}

export function runCaseDir(dir: string, opts: RunOptions = {}): CaseResult {
  const c = readCase(dir);
  if ('error' in c) return { name: basename(dir), dir, checks: [{ check: 'case', ok: false, message: c.error }] };
  return runCase(c, opts);
}
