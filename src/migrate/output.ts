/**
 * Writing OUT: never into DIR, never half-written. Everything is written into a fresh temporary folder next
 * to OUT (same file system), checked there (the migrated suites run from it), then renamed into place. An
 * existing OUT is replaced only when it is empty or a previous `transmute migrate` output (it holds
 * MARKER); the old one is moved aside first and removed once the new one is in place.
 */
import { randomBytes } from 'node:crypto';
import { existsSync, lstatSync, mkdirSync, readdirSync, realpathSync, renameSync, rmdirSync, rmSync, writeFileSync } from 'node:fs';
import { basename, dirname, join, resolve } from 'node:path';
import { toJson, toYamlDocuments } from '../io/yaml-dump.js';
import type { Library, LibraryFile, Outcome, SourcePolicy } from './model.js';
import { isInside } from './paths.js';

/** The report of the run that wrote OUT; its presence marks OUT as replaceable by the next run. */
export const MARKER = '.transmute-migrate.json';

/** The real path of `p`, which need not exist: the nearest existing ancestor resolved, the rest appended. */
function realPathOf(p: string): string {
  const abs = resolve(p);
  const rest: string[] = [];
  for (let at = abs; ; at = dirname(at)) {
    try {
      return join(realpathSync(at), ...rest.reverse());
    } catch {
      if (dirname(at) === at) return abs;
      rest.push(basename(at));
    }
  }
}

/** Why OUT cannot be written, or undefined. */
export function checkOutDir(dir: string, out: string): string | undefined {
  const realDir = realPathOf(dir);
  const realOut = realPathOf(out);
  if (realOut === realDir) return `--out-dir ${out} is DIR itself; migrate never writes into DIR`;
  if (isInside(realOut, realDir)) return `--out-dir ${out} is inside DIR ${dir}; migrate never writes into DIR`;
  if (isInside(realDir, realOut)) return `--out-dir ${out} contains DIR ${dir}; migrate would replace it`;
  if (!existsSync(out)) return undefined;
  if (!lstatSync(out).isDirectory()) return `--out-dir ${out} exists and is not a folder`;
  const entries = readdirSync(out);
  if (entries.length > 0 && !entries.includes(MARKER)) return `--out-dir ${out} is a folder that is neither empty nor an earlier output of transmute migrate (no ${MARKER}); remove it or choose another`;
  return undefined;
}

/** The text of a policy file in OUT, or undefined when no policy of it was migrated (copied unchanged). */
export function policyFileText(file: LibraryFile, library: Library, outcomes: ReadonlyMap<string, Outcome>): string | undefined {
  const sources = new Map<unknown, SourcePolicy>(library.policies.filter((p) => p.file === file).map((p) => [p.doc, p]));
  let changed = false;
  const values: unknown[] = [];
  for (const doc of file.docs ?? []) {
    const source = sources.get(doc);
    const outcome = source ? outcomes.get(source.key) : undefined;
    if (outcome?.status === 'translated') {
      changed = true;
      values.push(...outcome.documents);
      if (outcome.residue) values.push(outcome.residue);
    } else values.push(doc.value);
  }
  if (!changed) return undefined;
  if (file.rel.endsWith('.json')) return `${values.map((v) => toJson(v)).join('\n---\n')}\n`;
  return toYamlDocuments(values);
}

/** A staged output tree: write files into it, then `commit` or `discard`. */
export class Staging {
  readonly temp: string;
  private readonly out: string;

  constructor(out: string) {
    this.out = resolve(out);
    mkdirSync(dirname(this.out), { recursive: true });
    // mkdir (not mkdtemp, which makes it 0700) so that OUT gets the mode any new folder gets.
    this.temp = join(dirname(this.out), `.${basename(this.out)}.migrate-${randomBytes(6).toString('hex')}`);
    mkdirSync(this.temp);
  }

  write(rel: string, content: string | Buffer): void {
    const path = join(this.temp, ...rel.split('/'));
    mkdirSync(dirname(path), { recursive: true });
    writeFileSync(path, content);
  }

  path(rel: string): string {
    return join(this.temp, ...rel.split('/'));
  }

  /** Puts the staged tree at OUT (replacing an empty or earlier migrate output). */
  commit(): void {
    if (!existsSync(this.out)) {
      renameSync(this.temp, this.out);
      return;
    }
    if (readdirSync(this.out).length === 0) {
      rmdirSync(this.out);
      renameSync(this.temp, this.out);
      return;
    }
    const old = join(dirname(this.out), `.${basename(this.out)}.old-${randomBytes(6).toString('hex')}`);
    renameSync(this.out, old);
    try {
      renameSync(this.temp, this.out);
    } catch (e) {
      renameSync(old, this.out);
      throw e;
    }
    rmSync(old, { recursive: true, force: true });
  }

  discard(): void {
    rmSync(this.temp, { recursive: true, force: true });
  }
}
