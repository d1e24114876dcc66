import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { basename, join } from 'node:path';
import { parse as parseYaml } from 'yaml';
import { isJsonObject, type JsonValue } from '../ir/json.js';

/**
 * One golden case folder (DESIGN.md §6):
 *   case.yaml                 description; `expect: {<dialect>: exact | lossy:<code> | unsupported:<code>}`
 *   input.<dialect>.yaml      sources, any subset of dialects
 *   ir.txt                    the canonical IR in the text form
 *   resources/<name>.yaml     objects; <name>.expected.yaml the result, or <name>.error.txt the expected
 *                             diagnostics (one `CODE message` line each); <name>.request.yaml optional request
 *                             fields (operation, oldObject, userInfo, namespaceObject, params, externalData,
 *                             name, namespace)
 *   emit/<dialect>.yaml       what generate writes for each target
 *   diagnostics.txt           expected parse diagnostics, `file:line:col: severity CODE: message`
 *
 * A case with inputs in several dialects states one behaviour in each of them and is checked in every
 * direction: each source parses to its own `ir.<source>.txt` (dialects read the same behaviour into different
 * IR), writes `emit/from-<source>/<target>.yaml` and `diagnostics.<source>.txt`, and every source's IR must give
 * the same expected objects. `expectFrom: {<source>: {<target>: ...}}` overrides `expect` for one direction.
 */
export interface GoldenCase {
  name: string;
  dir: string;
  description: string;
  expect: Record<string, Expectation>;
  /** Per-source overrides of `expect`, for cases with several inputs. */
  expectFrom: Record<string, Record<string, Expectation>>;
  inputs: { dialect: string; file: string }[];
  resources: GoldenResource[];
}

export type Expectation = { kind: 'exact' } | { kind: 'lossy' | 'unsupported'; code: string };

export interface GoldenResource {
  name: string;
  file: string;
  expectedFile: string;
  errorFile: string;
  requestFile: string | undefined;
}

export function parseExpectation(text: string): Expectation | undefined {
  if (text === 'exact') return { kind: 'exact' };
  const m = /^(lossy|unsupported):(TM\d{4})$/.exec(text);
  return m ? { kind: m[1] as 'lossy' | 'unsupported', code: m[2]! } : undefined;
}

function readExpectations(v: JsonValue | undefined, where: string): Record<string, Expectation> | { error: string } {
  const out: Record<string, Expectation> = {};
  if (v === undefined) return out;
  if (!isJsonObject(v)) return { error: `${where} must be a mapping` };
  for (const [d, text] of Object.entries(v)) {
    const e = typeof text === 'string' ? parseExpectation(text) : undefined;
    if (!e) return { error: `${where}.${d} must be exact, lossy:<code> or unsupported:<code>` };
    out[d] = e;
  }
  return out;
}

/** The expectation for translating `source`'s input into `target`. */
export function expectationFor(c: GoldenCase, source: string, target: string): Expectation | undefined {
  return c.expectFrom[source]?.[target] ?? c.expect[target];
}

/** Directions a case checks exactly: `source -> target` pairs between two different input dialects. */
export function exactDirections(c: GoldenCase): { from: string; to: string }[] {
  const sources = c.inputs.map((i) => i.dialect);
  const out: { from: string; to: string }[] = [];
  for (const from of sources) {
    for (const to of sources) {
      if (from !== to && expectationFor(c, from, to)?.kind === 'exact') out.push({ from, to });
    }
  }
  return out;
}

export function listCases(root: string): string[] {
  if (!existsSync(root)) return [];
  return readdirSync(root)
    .filter((n) => statSync(join(root, n)).isDirectory() && existsSync(join(root, n, 'case.yaml')))
    .sort()
    .map((n) => join(root, n));
}

export function readCase(dir: string): GoldenCase | { error: string } {
  let meta: JsonValue;
  try {
    meta = parseYaml(readFileSync(join(dir, 'case.yaml'), 'utf8')) as JsonValue;
  } catch (e) {
    return { error: `${join(dir, 'case.yaml')}: ${e instanceof Error ? e.message : String(e)}` };
  }
  if (!isJsonObject(meta)) return { error: `${join(dir, 'case.yaml')}: expected a mapping` };
  const expect = readExpectations(meta.expect, 'expect');
  if ('error' in expect) return { error: `${join(dir, 'case.yaml')}: ${expect.error}` };
  const expectFrom: Record<string, Record<string, Expectation>> = {};
  if (meta.expectFrom !== undefined) {
    if (!isJsonObject(meta.expectFrom)) return { error: `${join(dir, 'case.yaml')}: expectFrom must map a source dialect to expectations` };
    for (const [source, table] of Object.entries(meta.expectFrom)) {
      const e = readExpectations(table, `expectFrom.${source}`);
      if ('error' in e) return { error: `${join(dir, 'case.yaml')}: ${e.error}` };
      expectFrom[source] = e;
    }
  }
  const inputs = readdirSync(dir)
    .map((f) => /^input\.([a-z]+(?:-[a-z]+)*)\.yaml$/.exec(f))
    .filter((m): m is RegExpExecArray => m !== null)
    .map((m) => ({ dialect: m[1]!, file: join(dir, m[0]) }))
    .sort((a, b) => a.dialect.localeCompare(b.dialect));
  const resDir = join(dir, 'resources');
  const resources: GoldenResource[] = existsSync(resDir)
    ? readdirSync(resDir)
        .filter((f) => f.endsWith('.yaml') && !/\.(expected|request)\.yaml$/.test(f))
        .sort()
        .map((f) => {
          const name = basename(f, '.yaml');
          const requestFile = join(resDir, `${name}.request.yaml`);
          return {
            name,
            file: join(resDir, f),
            expectedFile: join(resDir, `${name}.expected.yaml`),
            errorFile: join(resDir, `${name}.error.txt`),
            requestFile: existsSync(requestFile) ? requestFile : undefined,
          };
        })
    : [];
  return {
    name: basename(dir),
    dir,
    description: typeof meta.description === 'string' ? meta.description : '',
    expect,
    expectFrom,
    inputs,
    resources,
  };
}
