/**
 * Reads a kaptest manifest and the files it names (pfnet/kaptest internal/tester: manifest.go `TestManifests`
 * and `IsValid`, loader.go `LoadPolicies` / `LoadResources`). Files are resolved against the manifest's folder,
 * as kaptest chdirs there. Whole-manifest problems (unreadable files, a missing `policies` list, an unsupported
 * `version`) are diagnostics with the place in the manifest; a malformed test entry is kept with its problems
 * so that only that test fails.
 */
import { folderOf, readDocsShown, type RelativeFiles } from '../../../io/relative-files.js';
import { posix } from 'node:path';
import { diagnostic, fail, ok, type Diagnostic, type Result } from '../../../diagnostics/diagnostic.js';
import type { Span } from '../../../diagnostics/span.js';
import { defineOwn, isJsonObject, type JsonObject, type JsonValue } from '../../../ir/json.js';
import type { SourceDoc, YamlPath } from '../../../io/source.js';
import type { Expectation, KaptestManifest, KaptestUserInfo, MapTestCase, MapTestSuite, ObjectRef, ParamRef, ResourceDoc, VapTestSuite } from './model.js';
import { pushAll } from '../../../util/arrays.js';

/** The manifest name `kaptest init` writes into `<policy>.test/` (init.go rootManifestName). */
export const KAPTEST_FILE_NAME = 'kaptest.yaml';
const SUPPORTED_VERSIONS = ['v1alpha1'];
const EXPECTATIONS: readonly Expectation[] = ['mutate', 'skip', 'error'];

type Files = RelativeFiles;

function displayName(files: Files, name: string): string {
  // `policy.test/../policy.yaml` reads better as `policy.yaml`.
  return files.display === '' || files.display === '.' ? posix.normalize(name) : posix.normalize(`${files.display}/${name}`);
}

function readDocs(files: Files, name: string, span?: Span): Result<SourceDoc[]> {
  return readDocsShown(files, name, displayName(files, name), span);
}

/** True when a YAML mapping looks like a kaptest manifest (any file name is allowed upstream). */
export function looksLikeKaptest(value: JsonValue | undefined): boolean {
  return isJsonObject(value) && (Array.isArray(value.mapTestSuites) || Array.isArray(value.vapTestSuites)) && value.kind === undefined;
}

/**
 * Loads the manifest at `path`; `display` is how the user reached it and names the manifest and its files in
 * rows and diagnostics.
 */
export function loadKaptest(path: string, display: string = path): Result<KaptestManifest> {
  const { files, name } = folderOf(path, display);
  const docs = readDocs(files, name);
  if (!docs.ok) return docs;
  const doc = docs.value[0];
  if (!doc || !isJsonObject(doc.value)) return fail(diagnostic('TM1005', { phase: 'io', message: `${display}: expected one YAML mapping (a kaptest manifest)`, span: doc?.spanOf([]) }));
  const m = doc.value;
  const at = (p: YamlPath): Span => doc.spanOf(p);
  const invalid = (code: 'TM2002' | 'TM2005' | 'TM7003', p: YamlPath, message: string): Result<KaptestManifest> =>
    fail(diagnostic(code, { phase: 'io', message: `invalid manifest: ${message}`, span: at(p) }));

  // manifest.go IsValid. Older manifests (kaptest before the `migrate` command) have no version: accepted.
  if (m.version !== undefined && !(typeof m.version === 'string' && SUPPORTED_VERSIONS.includes(m.version))) {
    return invalid('TM2002', ['version'], `unsupported version ${JSON.stringify(m.version)}, supported versions: [${SUPPORTED_VERSIONS.join(', ')}]`);
  }
  const policyFiles = stringList(m.policies);
  const resourceFiles = stringList(m.resources);
  if (policyFiles === undefined) return invalid('TM2002', ['policies'], 'policies must be a list of file paths');
  if (resourceFiles === undefined) return invalid('TM2002', ['resources'], 'resources must be a list of file paths');
  if (policyFiles.length === 0) return invalid('TM2005', ['policies'], 'at least one policies is required');
  if (resourceFiles.length === 0) return invalid('TM2005', ['resources'], 'at least one resources is required');
  const mapSuites = m.mapTestSuites ?? [];
  const vapSuites = m.vapTestSuites ?? [];
  if (!Array.isArray(mapSuites)) return invalid('TM2002', ['mapTestSuites'], 'mapTestSuites must be a list');
  if (!Array.isArray(vapSuites)) return invalid('TM2002', ['vapTestSuites'], 'vapTestSuites must be a list');
  if (mapSuites.length === 0 && vapSuites.length === 0) return invalid('TM2005', [], 'at least one vapTestSuites or mapTestSuites is required');

  const warnings: Diagnostic[] = [];
  const policies: SourceDoc[] = [];
  for (let i = 0; i < policyFiles.length; i++) {
    const r = readDocs(files, policyFiles[i]!, at(['policies', i]));
    if (!r.ok) return r;
    pushAll(warnings, r.diagnostics);
    pushAll(policies, r.value);
  }
  const resources: ResourceDoc[] = [];
  for (let i = 0; i < resourceFiles.length; i++) {
    const r = readDocs(files, resourceFiles[i]!, at(['resources', i]));
    if (!r.ok) return r;
    pushAll(warnings, r.diagnostics);
    // LoadResources skips what does not decode to an object (an empty document, a list).
    for (const d of r.value) if (isJsonObject(d.value)) resources.push({ value: d.value, doc: d });
  }

  const mapTestSuites: MapTestSuite[] = [];
  for (let i = 0; i < mapSuites.length; i++) {
    const s = readMapSuite(doc, i);
    if (typeof s === 'string') return invalid('TM2002', ['mapTestSuites', i], s);
    mapTestSuites.push(s);
  }
  const vapTestSuites: VapTestSuite[] = vapSuites.map((s, i) => {
    const suite = isJsonObject(s) ? s : {};
    const tests = Array.isArray(suite.tests) ? suite.tests : [];
    return {
      label: `vapTestSuites[${i}]`,
      policy: typeof suite.policy === 'string' ? suite.policy : '',
      tests: tests.map((_, j) => ({ label: `vapTestSuites[${i}].tests[${j}]` })),
    };
  });
  return ok({ file: display, dir: files.dir, policies, resources, mapTestSuites, vapTestSuites }, warnings);
}

function stringList(v: JsonValue | undefined): string[] | undefined {
  if (v === undefined || v === null) return [];
  if (!Array.isArray(v) || !v.every((x) => typeof x === 'string')) return undefined;
  return v as string[];
}

function readMapSuite(doc: SourceDoc, i: number): MapTestSuite | string {
  const value = (doc.value as JsonObject).mapTestSuites as JsonValue[];
  const s = value[i];
  if (!isJsonObject(s)) return `mapTestSuites[${i}] must be a mapping with policy and tests`;
  if (typeof s.policy !== 'string' || s.policy === '') return `mapTestSuites[${i}].policy is required`;
  if (s.binding !== undefined && typeof s.binding !== 'string') return `mapTestSuites[${i}].binding must be a string`;
  if (s.tests !== undefined && s.tests !== null && !Array.isArray(s.tests)) return `mapTestSuites[${i}].tests must be a list`;
  const tests = Array.isArray(s.tests) ? s.tests : [];
  const base: YamlPath = ['mapTestSuites', i];
  return {
    label: `mapTestSuites[${i}]`,
    span: doc.spanOf(base),
    policy: s.policy,
    ...(typeof s.binding === 'string' && s.binding !== '' ? { binding: s.binding } : {}),
    tests: tests.map((t, j) => readTestCase(doc, [...base, 'tests', j], t)),
  };
}

function readTestCase(doc: SourceDoc, path: YamlPath, value: JsonValue): MapTestCase {
  const label = `${String(path[0])}[${String(path[1])}].tests[${String(path[3])}]`;
  const tc: MapTestCase = { label, span: doc.spanOf(path), userInfo: {}, disableNameOverwrite: false, problems: [] };
  const problem = (p: YamlPath, message: string): void => void tc.problems.push({ message, span: doc.spanOf([...path, ...p]) });
  if (!isJsonObject(value)) {
    problem([], 'a test must be a mapping');
    return tc;
  }
  const ref = (key: 'object' | 'oldObject' | 'expectObject'): ObjectRef | undefined => {
    const v = value[key];
    if (v === undefined || v === null) return undefined;
    const r = readObjectRef(doc, [...path, key], v);
    if (typeof r === 'string') problem([key], `${key}: ${r}`);
    return typeof r === 'string' ? undefined : r;
  };
  const object = ref('object');
  const oldObject = ref('oldObject');
  const expectObject = ref('expectObject');
  if (object) tc.object = object;
  if (oldObject) tc.oldObject = oldObject;
  if (expectObject) tc.expectObject = expectObject;
  if (value.param !== undefined && value.param !== null) {
    const p = value.param;
    if (!isJsonObject(p) || typeof p.name !== 'string' || p.name === '' || (p.namespace !== undefined && typeof p.namespace !== 'string')) {
      problem(['param'], 'param: name is required (and namespace, when given, must be a string)');
    } else {
      const param: ParamRef = { name: p.name, span: doc.spanOf([...path, 'param']) };
      if (typeof p.namespace === 'string' && p.namespace !== '') param.namespace = p.namespace;
      tc.param = param;
    }
  }
  const expect = value.expect;
  if (expect === undefined || expect === null || expect === '') problem([], 'expect is required: mutate, skip or error');
  else if (typeof expect !== 'string' || !EXPECTATIONS.includes(expect as Expectation)) problem(['expect'], `expect: unsupported value ${JSON.stringify(expect)} for a MutatingAdmissionPolicy test: supported values: mutate, skip, error`);
  else tc.expect = expect as Expectation;
  if (!tc.object && !tc.oldObject && !tc.problems.some((x) => /^(object|oldObject):/.test(x.message))) problem([], 'object or oldObject must be given and valid');
  if (tc.expect === 'mutate' && !tc.expectObject && !tc.problems.some((x) => x.message.startsWith('expectObject:'))) problem([], 'expectObject must be given when mutate expected');
  const user = readUserInfo(value.userInfo);
  if (typeof user === 'string') problem(['userInfo'], `userInfo: ${user}`);
  else tc.userInfo = user;
  if (value.disableNameOverwrite !== undefined && value.disableNameOverwrite !== null) {
    if (typeof value.disableNameOverwrite !== 'boolean') problem(['disableNameOverwrite'], 'disableNameOverwrite must be true or false');
    else tc.disableNameOverwrite = value.disableNameOverwrite;
  }
  return tc;
}

/** NameWithGVK.IsValid: kind and name must be set; group, version and namespace are optional strings. */
function readObjectRef(doc: SourceDoc, path: YamlPath, v: JsonValue): ObjectRef | string {
  if (!isJsonObject(v)) return 'must be a mapping with kind and name';
  for (const k of ['group', 'version', 'kind', 'namespace', 'name']) {
    if (v[k] !== undefined && v[k] !== null && typeof v[k] !== 'string') return `${k} must be a string`;
  }
  if (typeof v.kind !== 'string' || v.kind === '' || typeof v.name !== 'string' || v.name === '') return 'kind and name are required';
  const r: ObjectRef = { kind: v.kind, name: v.name, span: doc.spanOf(path) };
  if (typeof v.group === 'string' && v.group !== '') r.group = v.group;
  if (typeof v.version === 'string' && v.version !== '') r.version = v.version;
  if (typeof v.namespace === 'string' && v.namespace !== '') r.namespace = v.namespace;
  return r;
}

function readUserInfo(v: JsonValue | undefined): KaptestUserInfo | string {
  if (v === undefined || v === null) return {};
  if (!isJsonObject(v)) return 'must be a mapping (name, groups, extra)';
  const out: KaptestUserInfo = {};
  if (v.name !== undefined && v.name !== null) {
    if (typeof v.name !== 'string') return 'name must be a string';
    out.name = v.name;
  }
  if (v.groups !== undefined && v.groups !== null) {
    if (!Array.isArray(v.groups) || !v.groups.every((g) => typeof g === 'string')) return 'groups must be a list of strings';
    out.groups = v.groups as string[];
  }
  if (v.extra !== undefined && v.extra !== null) {
    if (!isJsonObject(v.extra)) return 'extra must be a map of string lists';
    const extra: JsonObject = {};
    for (const k of Object.keys(v.extra)) {
      const x = v.extra[k];
      if (!Array.isArray(x) || !x.every((s) => typeof s === 'string')) return `extra.${k} must be a list of strings`;
      defineOwn(extra, k, x);
    }
    out.extra = extra as Record<string, string[]>;
  }
  return out;
}
