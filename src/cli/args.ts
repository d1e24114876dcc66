import { parseArgs, type ParseArgsConfig } from 'node:util';
import { diagnostic, type Diagnostic } from '../diagnostics/diagnostic.js';

export type Options = NonNullable<ParseArgsConfig['options']>;

export type Parsed<T> = { ok: true; values: T; positionals: string[] } | { ok: false; diagnostic: Diagnostic };

/**
 * `-o=json` as `-o json`. node:util's parseArgs takes `--output=json` but reads `-o=json` as the value `=json`;
 * kubectl and the Kyverno CLI (pflag) accept both spellings, so users type both.
 */
export function splitShortEquals(argv: readonly string[], options: Options): string[] {
  const takesValue = new Set(Object.values(options).flatMap((o) => (o.type === 'string' && o.short ? [o.short] : [])));
  const out: string[] = [];
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i]!;
    if (a === '--') {
      out.push(...argv.slice(i));
      break;
    }
    const m = /^-([^-=])=(.*)$/s.exec(a);
    if (m && takesValue.has(m[1]!)) out.push(`-${m[1]}`, m[2]!);
    else out.push(a);
  }
  return out;
}

/** Strict argument parsing: an unknown flag or a missing value is a usage error (TM7001), not a crash. */
export function parse<T>(argv: string[], options: Options, allowPositionals = false): Parsed<T> {
  try {
    const r = parseArgs({ args: splitShortEquals(argv, options), options, allowPositionals, strict: true });
    return { ok: true, values: r.values as T, positionals: r.positionals };
  } catch (e) {
    const message = e instanceof Error ? e.message.replace(/\. To specify a positional.*$/s, '') : String(e);
    return { ok: false, diagnostic: diagnostic('TM7001', { phase: 'cli', message }) };
  }
}

/** A flag that may be given several times, or as a comma-free list of values after one flag. */
export function many(v: string | string[] | undefined): string[] {
  if (v === undefined) return [];
  return Array.isArray(v) ? v : [v];
}
