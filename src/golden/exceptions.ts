import { existsSync, readFileSync } from 'node:fs';
import { parse as parseYaml } from 'yaml';
import { isJsonObject } from '../ir/json.js';
import type { CaseResult } from './run.js';

/**
 * A known divergence: the check that fails, why, and what would fix it. A listed check is expected to fail and
 * still counts as a failure in pass rates; a listed check that passes is reported as a stale exception.
 */
export interface GoldenException {
  case: string;
  check: string;
  reason: string;
  fix: string;
}

export function loadExceptions(file: string): GoldenException[] | { error: string } {
  if (!existsSync(file)) return [];
  const doc = parseYaml(readFileSync(file, 'utf8')) as unknown;
  const list = isJsonObject(doc) ? doc.exceptions : undefined;
  if (list === undefined || list === null) return [];
  if (!Array.isArray(list)) return { error: `${file}: "exceptions" must be a list` };
  const out: GoldenException[] = [];
  for (const [i, e] of list.entries()) {
    if (!isJsonObject(e) || typeof e.case !== 'string' || typeof e.check !== 'string' || typeof e.reason !== 'string' || typeof e.fix !== 'string') {
      return { error: `${file}: exceptions[${i}] needs string fields case, check, reason and fix` };
    }
    out.push({ case: e.case, check: e.check, reason: e.reason, fix: e.fix });
  }
  return out;
}

export type Verdict = { status: 'passed' } | { status: 'failed'; messages: string[] } | { status: 'known'; messages: string[] };

/** The verdict for one case under the exceptions list. */
export function verdict(result: CaseResult, exceptions: readonly GoldenException[]): Verdict {
  const listed = exceptions.filter((e) => e.case === result.name);
  const messages: string[] = [];
  let known = false;
  for (const c of result.checks) {
    const exception = listed.find((e) => e.check === c.check);
    if (c.ok && exception) messages.push(`${c.check}: passes but is listed in golden/exceptions.yaml; remove the stale exception`);
    else if (!c.ok && exception) known = true;
    else if (!c.ok) messages.push(`${c.check}: ${c.message ?? 'failed'}`);
  }
  for (const e of listed) if (!result.checks.some((c) => c.check === e.check)) messages.push(`${e.check}: listed in golden/exceptions.yaml but no such check ran`);
  if (messages.length > 0) return { status: 'failed', messages };
  return known ? { status: 'known', messages: listed.map((e) => `${e.check}: known divergence: ${e.reason}`) } : { status: 'passed' };
}
