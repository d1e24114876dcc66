/**
 * The library under DIR: every file (hidden folders included, as the kyverno/policies repository keeps its
 * suites in `.kyverno-test/`; `.git` excluded), sorted by path; the kyverno-test.yaml suites; and the policy
 * documents, each classified as a source of the migration (Kyverno ClusterPolicy / Policy, Gatekeeper
 * mutators) with its rules, or as another policy that is copied as it is.
 */
import { readdirSync, readFileSync, realpathSync, statSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { diagnostic, type Diagnostic } from '../diagnostics/diagnostic.js';
import { dialectByName } from '../dialects/registry.js';
import { isJsonObject, type JsonObject } from '../ir/json.js';
import type { SourceDoc } from '../io/source.js';
import { loadYamlText } from '../io/yaml-load.js';
import type { Library, LibraryFile, OtherPolicy, RuleInfo, RuleKind, SourcePolicy } from './model.js';

export const SUITE_FILE = 'kyverno-test.yaml';
const YAML_EXTENSIONS = ['.yaml', '.yml', '.json'];
const SKIPPED_DIRS = new Set(['.git']);

/** Every file under `dir`, relative, `/`-separated, sorted by code unit at each level; symlink cycles cut. */
export function listFiles(dir: string): string[] {
  const out: string[] = [];
  const seen = new Set<string>();
  const walk = (abs: string, rel: string): void => {
    const real = realpathSync(abs);
    if (seen.has(real)) return;
    seen.add(real);
    for (const name of readdirSync(abs).sort((a, b) => (a < b ? -1 : a > b ? 1 : 0))) {
      const child = join(abs, name);
      const childRel = rel === '' ? name : `${rel}/${name}`;
      let stat;
      try {
        stat = statSync(child);
      } catch {
        continue; // a dangling symlink
      }
      if (stat.isDirectory()) {
        if (!SKIPPED_DIRS.has(name)) walk(child, childRel);
      } else if (stat.isFile()) out.push(childRel);
    }
  };
  walk(dir, '');
  return out;
}

function str(o: JsonObject | undefined, key: string): string | undefined {
  return o && typeof o[key] === 'string' ? (o[key] as string) : undefined;
}

function metadata(doc: SourceDoc): JsonObject | undefined {
  return isJsonObject(doc.value) && isJsonObject(doc.value.metadata) ? doc.value.metadata : undefined;
}

function startOf(doc: SourceDoc) {
  const s = doc.spanOf([]);
  return { file: s.file, line: s.line, col: s.col, endLine: s.line, endCol: s.col };
}

/** What each `spec.rules[i]` of a Kyverno policy does. */
export function kyvernoRules(doc: SourceDoc): RuleInfo[] {
  const spec = isJsonObject(doc.value) && isJsonObject(doc.value.spec) ? doc.value.spec : {};
  const rules = Array.isArray(spec.rules) ? spec.rules : [];
  return rules.map((raw, i): RuleInfo => {
    const r = isJsonObject(raw) ? raw : {};
    const name = str(r, 'name') ?? '';
    const present = (k: string) => r[k] !== undefined && r[k] !== null;
    let kind: RuleKind = 'unknown';
    let span = doc.spanOf(['spec', 'rules', i]);
    if (present('mutate')) {
      const targets = isJsonObject(r.mutate) && Array.isArray(r.mutate.targets) && r.mutate.targets.length > 0;
      kind = targets ? 'mutate-existing' : 'mutate';
      if (targets) span = doc.spanOf(['spec', 'rules', i, 'mutate', 'targets']);
    } else if (present('validate')) kind = 'validate';
    else if (present('generate')) kind = 'generate';
    else if (present('verifyImages')) kind = 'verifyImages';
    return { name, kind, span };
  });
}

const POLICY_GROUPS = ['kyverno.io', 'policies.kyverno.io', 'admissionregistration.k8s.io', 'mutations.gatekeeper.sh'];

/** A policy of a language migrate does not read (ValidatingPolicy, MutatingAdmissionPolicy...): left as it is. */
function isOtherPolicy(doc: SourceDoc): boolean {
  const v = doc.value;
  if (!isJsonObject(v) || typeof v.apiVersion !== 'string' || typeof v.kind !== 'string') return false;
  const group = v.apiVersion.includes('/') ? v.apiVersion.slice(0, v.apiVersion.indexOf('/')) : '';
  return POLICY_GROUPS.includes(group) && /Policy$/.test(v.kind);
}

/**
 * Reads DIR. Returns undefined (with the diagnostic) when DIR is not a readable folder; files that are not
 * YAML are kept as `other` files, YAML that does not load is kept too and reported as a warning.
 */
export function discover(dir: string): { library: Library } | { error: Diagnostic } {
  let rels: string[];
  try {
    if (!statSync(dir).isDirectory()) return { error: diagnostic('TM7001', { phase: 'cli', message: `${dir}: not a folder` }) };
    rels = listFiles(dir);
  } catch (e) {
    const err = e as NodeJS.ErrnoException;
    return { error: diagnostic('TM1004', { phase: 'io', message: `${dir}: ${err.code === 'ENOENT' ? 'no such file or folder' : (err.code ?? err.message)}` }) };
  }
  const kyverno = dialectByName('kyverno')!;
  const gatekeeper = dialectByName('gatekeeper')!;
  const files: LibraryFile[] = [];
  const policies: SourcePolicy[] = [];
  const others: OtherPolicy[] = [];
  const warnings: Diagnostic[] = [];
  for (const rel of rels) {
    const file: LibraryFile = { rel, path: join(dir, rel), abs: resolve(dir, rel), role: 'other' };
    files.push(file);
    const name = rel.slice(rel.lastIndexOf('/') + 1);
    if (!YAML_EXTENSIONS.some((ext) => name.endsWith(ext))) continue;
    let text: string;
    try {
      text = readFileSync(file.abs, 'utf8');
    } catch (e) {
      warnings.push(diagnostic('TM1004', { phase: 'io', severity: 'warning', message: `${file.path}: ${(e as Error).message}; not read` }));
      continue;
    }
    const loaded = loadYamlText(file.path, text.charCodeAt(0) === 0xfeff ? text.slice(1) : text);
    if (!loaded.ok) {
      const first = loaded.diagnostics.find((d) => d.severity === 'error') ?? loaded.diagnostics[0];
      warnings.push(diagnostic('TM1001', { phase: 'io', severity: 'warning', message: `${file.path} does not load as YAML (${first?.message ?? 'unknown error'}); copied unchanged`, span: first?.span }));
      continue;
    }
    file.docs = loaded.value;
    if (name === SUITE_FILE) {
      file.role = 'suite';
      continue;
    }
    for (const doc of loaded.value) {
      const md = metadata(doc);
      const kind = isJsonObject(doc.value) && typeof doc.value.kind === 'string' ? doc.value.kind : '';
      const policyName = str(md, 'name') ?? '';
      const base = { file, doc, kind, name: policyName, span: startOf(doc) };
      if (kyverno.recognizes(doc)) {
        const namespace = kind === 'Policy' ? (str(md, 'namespace') ?? 'default') : undefined;
        policies.push({ ...base, key: `${rel}#${doc.index}`, dialect: 'kyverno', ...(namespace !== undefined ? { namespace } : {}), rules: kyvernoRules(doc) });
        file.role = 'policies';
      } else if (gatekeeper.recognizes(doc)) {
        policies.push({ ...base, key: `${rel}#${doc.index}`, dialect: 'gatekeeper', rules: [{ name: '', kind: 'mutate', span: base.span }] });
        file.role = 'policies';
      } else if (isOtherPolicy(doc)) others.push(base);
    }
  }
  return { library: { dir, files, policies, others, warnings } };
}

/** Whether the policy has a rule that mutates (at admission or existing objects). */
export function mutates(p: SourcePolicy): boolean {
  return p.rules.some((r) => r.kind === 'mutate' || r.kind === 'mutate-existing');
}
