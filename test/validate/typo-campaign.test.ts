/**
 * The typo campaign: for every policy document in ../shared/conformance that a cluster admits today, every
 * schema-governed key (outside free-form regions), renamed by one letter, must be refused under
 * `--validate strict` (TM2008 `strict decoding error: unknown field "<path>"`, pointing at the renamed key; the
 * CLI exits 2). A typo that is silently accepted would change a policy's behaviour without a word: the renamed
 * field would just be dropped.
 *
 * Governed keys are found by walking each document alongside its compact schema (src/validate/schema-table.ts),
 * independently of the validator's own walk: a key is governed when its parent node declares `properties`, does
 * not carry `preserve` (x-kubernetes-preserve-unknown-fields) and has no `additionalProperties`. The keys of
 * additionalProperties maps (labels, annotations, ...) and everything inside preserve-unknown-fields regions
 * (patch bodies, ...) are free-form: a cluster keeps any key there, so a typo there is not a schema error.
 */
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { expect, it } from 'vitest';
import { isMap, isScalar, isSeq, LineCounter, parseDocument, stringify, type Node as YamlNode } from 'yaml';
import { main } from '../../src/cli/main.js';
import type { CliIO } from '../../src/cli/io.js';
import type { Dialect } from '../../src/dialects/dialect.js';
import { dialectFor } from '../../src/dialects/registry.js';
import type { SourceDoc } from '../../src/io/source.js';
import { loadYamlText } from '../../src/io/yaml-load.js';
import { isJsonObject, type JsonObject, type JsonValue } from '../../src/ir/json.js';
import { parsePolicyDocs } from '../../src/pipeline.js';
import { admitDocs } from '../../src/validate/admit.js';
import { OBJECT_META_ROOT, OBJECT_META_TABLE } from '../../src/validate/object-meta.js';
import { schemaFor, type CompactSchemaTable } from '../../src/validate/schema-table.js';
import { describeShared, sharedPath } from '../support/shared.js';
import { tempDir } from '../support/temp.js';

type Path = (string | number)[];

interface Ref {
  table: CompactSchemaTable;
  node: number;
}

interface Subject {
  /** Where the document was first found (the corpus repeats files). */
  file: string;
  dialect: Dialect;
  value: JsonObject;
}

interface Mutation {
  subject: Subject;
  /** Path of the original key. */
  path: Path;
  /** The key after the typo. */
  renamed: string;
  /** The whole document, re-serialized with the renamed key. */
  text: string;
  /**
   * `apiVersion` and `kind` at the root are TypeMeta, not fields: they choose the schema and the dialect. A typo
   * there leaves the document without a kind, which a cluster refuses before any field is decoded ("Object
   * 'Kind' is missing"); transmute refuses it as a document no dialect reads (TM2001), not as TM2008.
   */
  typeMeta: boolean;
}

const META: Ref = { table: OBJECT_META_TABLE, node: OBJECT_META_ROOT };

// ---------------------------------------------------------------------------------------------------------------
// The corpus

function policyFiles(dir: string): string[] {
  const out: string[] = [];
  for (const entry of readdirSync(dir, { withFileTypes: true }).sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0))) {
    const full = join(dir, entry.name);
    if (entry.isDirectory()) out.push(...policyFiles(full));
    else if (/\.(ya?ml|json)$/.test(entry.name)) out.push(full);
  }
  return out;
}

interface Corpus {
  files: number;
  unreadable: number;
  duplicates: number;
  /** Policy documents upstream refuses as they are (the corpus's negative cases): not typo subjects. */
  refusedAsIs: number;
  subjects: Subject[];
}

function collectCorpus(): Corpus {
  const root = sharedPath('conformance');
  const seen = new Set<string>();
  const subjects: Subject[] = [];
  let unreadable = 0;
  let duplicates = 0;
  let refusedAsIs = 0;
  const files = policyFiles(root);
  for (const file of files) {
    const loaded = loadYamlText(file, readFileSync(file, 'utf8'));
    if (!loaded.ok) {
      unreadable++;
      continue;
    }
    for (const doc of loaded.value) {
      const v = doc.value;
      if (!isJsonObject(v) || typeof v.apiVersion !== 'string' || typeof v.kind !== 'string') continue;
      const dialect = dialectFor(doc);
      if (!dialect || !schemaFor(v.apiVersion, v.kind)) continue;
      const key = JSON.stringify(v);
      if (seen.has(key)) {
        duplicates++;
        continue;
      }
      seen.add(key);
      if (admitDocs(dialect, [doc]).diagnostics.some((d) => d.severity === 'error')) {
        refusedAsIs++;
        continue;
      }
      subjects.push({ file: relative(root, file), dialect, value: v });
    }
  }
  return { files: files.length, unreadable, duplicates, refusedAsIs, subjects };
}

// ---------------------------------------------------------------------------------------------------------------
// Governed keys: the document walked alongside its schema

function governedKeys(value: JsonValue, ref: Ref, path: Path, out: { path: Path; declared: readonly string[] }[]): void {
  const s = ref.table.nodes[ref.node]!;
  if (isJsonObject(value)) {
    // additionalProperties `false` would forbid unknown keys just as well; structural schemas never use it.
    const governed = s.properties !== undefined && !s.preserve && (s.additionalProperties === undefined || s.additionalProperties === false);
    const declared = Object.keys(s.properties ?? {});
    for (const [key, child] of Object.entries(value)) {
      if (governed) out.push({ path: [...path, key], declared });
      // `metadata` at the root is ObjectMeta, whatever the CRD's schema says of it (`type: object`).
      // Declared fields are walked into even below a preserve-unknown-fields node: their own schema still holds.
      const declaredNode = s.properties?.[key];
      const node = declaredNode ?? (typeof s.additionalProperties === 'number' ? s.additionalProperties : undefined);
      const sub = path.length === 0 && key === 'metadata' ? META : node !== undefined ? { table: ref.table, node } : undefined;
      if (sub) governedKeys(child, sub, [...path, key], out);
    }
  } else if (Array.isArray(value) && s.items !== undefined) {
    value.forEach((item, i) => governedKeys(item, { table: ref.table, node: s.items! }, [...path, i], out));
  }
}

// ---------------------------------------------------------------------------------------------------------------
// The typo

function shiftLetter(ch: string, by: 1 | -1): string {
  const base = ch >= 'a' && ch <= 'z' ? 97 : 65;
  return String.fromCharCode(base + ((ch.charCodeAt(0) - base + by + 26) % 26));
}

/** The key with its last letter replaced by the next one (or, on a collision, the previous one). */
function typo(key: string, taken: (candidate: string) => boolean): string | undefined {
  let at = -1;
  for (let i = key.length - 1; i >= 0; i--) {
    if (/[A-Za-z]/.test(key[i]!)) {
      at = i;
      break;
    }
  }
  if (at < 0) return undefined;
  for (const by of [1, -1] as const) {
    const candidate = key.slice(0, at) + shiftLetter(key[at]!, by) + key.slice(at + 1);
    if (!taken(candidate)) return candidate;
  }
  return undefined;
}

function at(value: JsonValue, path: Path): JsonValue {
  let v = value;
  for (const seg of path) v = (v as Record<string | number, JsonValue>)[seg]!;
  return v;
}

/** A deep copy of `value` with the key at `path` renamed, every other key kept in place. */
function renamed(value: JsonObject, path: Path, to: string): JsonObject {
  const copy = JSON.parse(JSON.stringify(value)) as JsonObject; // no shared subtrees, so no YAML aliases
  const parentPath = path.slice(0, -1);
  const from = path[path.length - 1] as string;
  const parent = at(copy, parentPath) as JsonObject;
  const entries = Object.entries(parent);
  for (const k of Object.keys(parent)) delete parent[k];
  for (const [k, v] of entries) parent[k === from ? to : k] = v;
  return copy;
}

/** YAML that kubectl (go-yaml, YAML 1.1) reads back as the same JSON: `yes`, `on`, `0755` and such stay strings. */
function toYaml(value: JsonValue): string {
  return stringify(value, { version: '1.1', lineWidth: 0, aliasDuplicateObjects: false });
}

/** `spec.rules[0].mutate`, as field.Path prints it. */
function printPath(path: Path): string {
  let out = '';
  for (const seg of path) out += typeof seg === 'number' ? `[${seg}]` : out === '' ? seg : `.${seg}`;
  return out;
}

/** The 1-based line of the key at `path` in `text`, found with the `yaml` package's own parser. */
function keyLine(text: string, path: Path): number | undefined {
  const lines = new LineCounter();
  const doc = parseDocument(text, { version: '1.1', lineCounter: lines });
  let node: YamlNode | null | undefined = doc.contents as YamlNode | null;
  for (let i = 0; i < path.length; i++) {
    const seg = path[i]!;
    if (typeof seg === 'number') {
      if (!isSeq(node)) return undefined;
      node = node.items[seg] as YamlNode | undefined;
      continue;
    }
    if (!isMap(node)) return undefined;
    const pair = node.items.find((p) => isScalar(p.key) && String(p.key.value) === seg);
    if (!pair) return undefined;
    if (i === path.length - 1) {
      const key = pair.key as YamlNode;
      return key.range ? lines.linePos(key.range[0]).line : undefined;
    }
    node = pair.value as YamlNode | null;
  }
  return undefined;
}

// ---------------------------------------------------------------------------------------------------------------
// The campaign

interface Campaign {
  corpus: Corpus;
  mutations: Mutation[];
  /** Governed keys no one-letter typo could rename (every candidate taken). */
  untypable: string[];
  /** Documents whose YAML re-serialization did not read back as the same value (the campaign would be void). */
  roundTripFailures: string[];
  buildMs: number;
}

let memo: Campaign | undefined;

function campaign(): Campaign {
  if (memo) return memo;
  const started = performance.now();
  const corpus = collectCorpus();
  const mutations: Mutation[] = [];
  const untypable: string[] = [];
  const roundTripFailures: string[] = [];
  for (const subject of corpus.subjects) {
    // The control: the document itself, re-serialized, still reads back identical and is still admitted.
    const control = loadYamlText(subject.file, toYaml(subject.value));
    if (!control.ok || control.value.length !== 1 || JSON.stringify(control.value[0]!.value) !== JSON.stringify(subject.value) || admitDocs(subject.dialect, control.value).diagnostics.some((d) => d.severity === 'error')) {
      roundTripFailures.push(subject.file);
      continue;
    }
    const schema = schemaFor(subject.value.apiVersion as string, subject.value.kind as string)!;
    const keys: { path: Path; declared: readonly string[] }[] = [];
    governedKeys(subject.value, { table: schema.table, node: schema.kind.root }, [], keys);
    for (const { path, declared } of keys) {
      const siblings = Object.keys(at(subject.value, path.slice(0, -1)) as JsonObject);
      const key = path[path.length - 1] as string;
      const to = typo(key, (c) => siblings.includes(c) || declared.includes(c));
      if (to === undefined) {
        untypable.push(`${subject.file}: ${printPath(path)}`);
        continue;
      }
      mutations.push({ subject, path, renamed: to, text: toYaml(renamed(subject.value, path, to)), typeMeta: path.length === 1 && (key === 'apiVersion' || key === 'kind') });
    }
  }
  memo = { corpus, mutations, untypable, roundTripFailures, buildMs: performance.now() - started };
  return memo;
}

/** Why a mutation was not refused as it should be; undefined when it was. */
function checkRefused(m: Mutation, docs: readonly SourceDoc[]): string | undefined {
  const where = `${m.subject.file}: ${printPath(m.path)} -> ${m.renamed}`;
  if (m.typeMeta) {
    // Refused as the CLI refuses it: no dialect reads the document (TM2001), so no policy comes of it.
    const parsed = parsePolicyDocs(docs, { mode: 'strict' });
    if (!parsed.diagnostics.some((d) => d.code === 'TM2001' && d.severity === 'error') || parsed.policies.length > 0) {
      return `${where}: a document without its ${String(m.path[0])} was not refused as TM2001 (${parsed.diagnostics.map((d) => `${d.code} ${d.message}`).join(' | ')})`;
    }
    return undefined;
  }
  const doc = docs[0]!;
  if (dialectFor(doc) !== m.subject.dialect) return `${where}: the dialect changed (${dialectFor(doc)?.name ?? 'none'})`;
  const { admitted, diagnostics } = admitDocs(m.subject.dialect, docs, { mode: 'strict' });
  const mutatedPath = [...m.path.slice(0, -1), m.renamed];
  const expected = `strict decoding error: unknown field "${printPath(mutatedPath)}"`;
  const found = diagnostics.find((d) => d.code === 'TM2008' && d.message === expected);
  if (admitted.length > 0 || !found) {
    const got = diagnostics.map((d) => `${d.code} ${d.message}`).join(' | ') || 'no diagnostics';
    return `${where}: ${admitted.length > 0 ? 'ADMITTED' : 'refused without the expected TM2008'} (${got})`;
  }
  const line = keyLine(m.text, mutatedPath);
  if (line === undefined || found.span?.line !== line) return `${where}: TM2008 at line ${found.span?.line ?? '?'}, the renamed key is on line ${line ?? '?'}`;
  return undefined;
}

function count<T>(items: readonly T[], by: (t: T) => string): Record<string, number> {
  const out: Record<string, number> = {};
  for (const t of items) out[by(t)] = (out[by(t)] ?? 0) + 1;
  return Object.fromEntries(Object.entries(out).sort(([a], [b]) => (a < b ? -1 : 1)));
}

const CLI_SAMPLE_EVERY = 50;

describeShared('typo campaign: a one-letter typo in any schema-governed key is refused under --validate strict', () => {
  it('refuses every mutation of every admitted conformance policy, pointing at the renamed key', () => {
    const started = performance.now();
    const c = campaign();
    expect(c.roundTripFailures).toEqual([]);
    expect(c.untypable).toEqual([]);

    // The checker is not vacuous: a "mutation" that changed nothing (the admitted document itself) fails it.
    const first = c.mutations.find((m) => !m.typeMeta)!;
    const unchanged = loadYamlText(first.subject.file, toYaml(first.subject.value));
    expect(unchanged.ok && checkRefused(first, unchanged.value)).toMatch(/ADMITTED/);

    const failures: string[] = [];
    let refused = 0;
    for (const m of c.mutations) {
      const loaded = loadYamlText(`${m.subject.file}#typo`, m.text);
      if (!loaded.ok || loaded.value.length !== 1) {
        failures.push(`${m.subject.file}: ${printPath(m.path)}: the mutated YAML does not load`);
        continue;
      }
      const why = checkRefused(m, loaded.value);
      if (why) failures.push(why);
      else refused++;
    }

    const tried = c.mutations.length;
    const ms = Math.round(performance.now() - started);
    console.log(
      `[typo-campaign] ${c.corpus.subjects.length} documents (from ${c.corpus.files} files; ${c.corpus.duplicates} duplicates and ${c.corpus.refusedAsIs} documents upstream refuses as they are skipped, ${c.corpus.unreadable} unreadable files), ` +
        `${tried} mutations tried, ${refused} refused (${c.mutations.filter((m) => m.typeMeta).length} of them apiVersion/kind typos refused as TM2001); ` +
        `documents by dialect ${JSON.stringify(count(c.corpus.subjects, (s) => s.dialect.name))}, ` +
        `mutations by dialect ${JSON.stringify(count(c.mutations, (m) => m.subject.dialect.name))}; ${ms} ms (${Math.round(c.buildMs)} ms collecting and mutating)`,
    );
    expect(failures.slice(0, 25), `${failures.length} mutations changed behaviour silently or were misreported`).toEqual([]);
    expect(refused).toBe(tried);
    expect(tried).toBeGreaterThan(1000);
  });

  it(`the CLI exits 2 on every ${CLI_SAMPLE_EVERY}th mutation (ir -p FILE, strict by default)`, async () => {
    const c = campaign();
    const dir = tempDir('typo');
    const sample = c.mutations.filter((_, i) => i % CLI_SAMPLE_EVERY === 0);
    const failures: string[] = [];
    for (const [i, m] of sample.entries()) {
      const file = join(dir, `typo-${i}.yaml`);
      writeFileSync(file, m.text);
      let stderr = '';
      const io: CliIO = { stdout: () => undefined, stderr: (t) => void (stderr += t), stdin: () => '', isTTY: false };
      const code = await main(['ir', '-p', file], io);
      const where = `${m.subject.file}: ${printPath(m.path)} -> ${m.renamed}`;
      const expected = m.typeMeta ? 'error TM2001' : `error TM2008: strict decoding error: unknown field "${printPath([...m.path.slice(0, -1), m.renamed])}"`;
      if (code !== 2) failures.push(`${where}: exit ${code}`);
      else if (!stderr.includes(expected)) failures.push(`${where}: exit 2 without "${expected}": ${stderr.slice(0, 300)}`);
    }
    console.log(`[typo-campaign] CLI: ${sample.length} of ${c.mutations.length} mutations run through \`transmute ir\`, ${sample.length - failures.length} exited 2 with the expected diagnostic`);
    expect(failures).toEqual([]);
    expect(sample.length).toBeGreaterThan(0);
  });
});
