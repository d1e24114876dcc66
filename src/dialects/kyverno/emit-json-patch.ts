/**
 * `patchesJson6902` text as a Kyverno user writes it: a YAML list of operations in a block string. Kyverno
 * substitutes variables in the text first and parses it afterwards (mutate/patch/patchJSON6902.go), so a
 * computed value is written as a bare `{{ }}` hole (its JSON text becomes YAML flow) or, for strings, inside
 * double quotes; literal values are escaped so their `{{` survive substitution.
 */
import type { JsonValue } from '../../ir/json.js';
import { toYaml } from '../../io/yaml-dump.js';
import { escapeLiteral, hole } from './emit-text.js';

export type PatchValue =
  | { kind: 'literal'; json: JsonValue }
  /** A JMESPath expression; `string` when it yields a string (written quoted), otherwise spliced as JSON. */
  | { kind: 'computed'; expr: string; string: boolean };

export interface PatchStep {
  op: 'add' | 'remove' | 'replace' | 'move' | 'copy' | 'test';
  path: string;
  from?: string;
  value?: PatchValue;
}

function valueLines(v: PatchValue): string[] {
  if (v.kind === 'computed') return [`  value: ${v.string ? `"${hole(v.expr)}"` : hole(v.expr)}`];
  const text = toYaml(escapeLiteral(v.json)).replace(/\n$/, '');
  const lines = text.split('\n');
  const scalar = !(v.json !== null && typeof v.json === 'object' && (Array.isArray(v.json) ? v.json.length > 0 : Object.keys(v.json).length > 0));
  if (scalar && lines.length === 1) return [`  value: ${lines[0]}`];
  return ['  value:', ...lines.map((l) => (l === '' ? '' : `    ${l}`))];
}

function inline(s: string): string {
  return toYaml(s).replace(/\n$/, '');
}

/** The block text of a list of steps. */
export function jsonPatchText(steps: readonly PatchStep[]): string {
  const lines: string[] = [];
  for (const s of steps) {
    lines.push(`- op: ${s.op}`);
    lines.push(`  path: ${inline(s.path)}`);
    if (s.from !== undefined) lines.push(`  from: ${inline(s.from)}`);
    if (s.value) lines.push(...valueLines(s.value));
  }
  return lines.join('\n') + '\n';
}
