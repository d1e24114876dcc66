/**
 * What one admission check reports: Kyverno's message text and where in the YAML the offending key or value is.
 * index.ts turns it into a TM2004 diagnostic with a span.
 */
import type { YamlPath } from '../../../io/source.js';

export type Where =
  | { kind: 'key'; path: YamlPath }
  | { kind: 'value'; path: YamlPath }
  | { kind: 'string'; path: YamlPath; start: number; end: number };

export interface Issue {
  message: string;
  at: Where;
}

export const atKey = (path: YamlPath): Where => ({ kind: 'key', path });
export const atValue = (path: YamlPath): Where => ({ kind: 'value', path });
export const atString = (path: YamlPath, start: number, end: number): Where => ({ kind: 'string', path, start, end });

/** The first issue of a list of checks run lazily in order: upstream returns at its first error. */
export function firstOf(...checks: (() => Issue | undefined)[]): Issue | undefined {
  for (const check of checks) {
    const found = check();
    if (found !== undefined) return found;
  }
  return undefined;
}
