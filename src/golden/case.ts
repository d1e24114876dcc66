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
 *                             fields (operation, oldObject, userInfo, namespaceObject, params, externalData)
 *   emit/<dialect>.yaml       what generate writes for each target
 *   diagnostics.txt           expected parse diagnostics, `file:line:col: severity CODE: message`
 */
export interface GoldenCase {
  name: string;
  dir: string;
  description: string;
  expect: Record<string, Expectation>;
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
  const expect: Record<string, Expectation> = {};
  if (isJsonObject(meta.expect)) {
    for (const [d, v] of Object.entries(meta.expect)) {
      const e = typeof v === 'string' ? parseExpectation(v) : undefined;
      if (!e) return { error: `${join(dir, 'case.yaml')}: expect.${d} must be exact, lossy:<code> or unsupported:<code>` };
      expect[d] = e;
    }
  }
  const inputs = readdirSync(dir)
    .map((f) => /^input\.([a-z]+)\.yaml$/.exec(f))
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
    inputs,
    resources,
  };
}
