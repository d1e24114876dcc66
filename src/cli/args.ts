import { parseArgs, type ParseArgsConfig } from 'node:util';
import { diagnostic, type Diagnostic } from '../diagnostics/diagnostic.js';

export type Options = NonNullable<ParseArgsConfig['options']>;

export type Parsed<T> = { ok: true; values: T; positionals: string[] } | { ok: false; diagnostic: Diagnostic };

/** Strict argument parsing: an unknown flag or a missing value is a usage error (TM7001), not a crash. */
export function parse<T>(argv: string[], options: Options, allowPositionals = false): Parsed<T> {
  try {
    const r = parseArgs({ args: argv, options, allowPositionals, strict: true });
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
