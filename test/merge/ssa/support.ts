import { readFileSync } from 'node:fs';
import { parse } from 'yaml';
import type { JsonValue } from '../../../src/ir/json.js';
import { parseSmdSchemaYaml, type Schema } from '../../../src/merge/ssa/index.js';
import { HAS_SHARED, sharedPath } from '../../support/shared.js';

/** Freezes a JSON value in place so that any write into it throws (tests run in strict mode). */
export function deepFreeze<T extends JsonValue>(v: T): T {
  if (v !== null && typeof v === 'object') {
    for (const child of Object.values(v)) deepFreeze(child as JsonValue);
    Object.freeze(v);
  }
  return v;
}

let builtin: Schema | undefined;

/** client-go's SMD schema of every built-in type, from the shared corpus (loaded once). */
export function builtinSchema(): Schema {
  if (builtin === undefined) {
    const r = parseSmdSchemaYaml(readFileSync(sharedPath('conformance/map/k8s-schema/smd-schema-builtin.yaml'), 'utf8'));
    if (!r.ok) throw new Error(r.diagnostics.map((d) => d.message).join('\n'));
    builtin = r.value;
  }
  return builtin;
}

/** A YAML file of a conformance case. */
export function caseFile(caseDir: string, file: string): JsonValue {
  return parse(readFileSync(sharedPath('conformance/map', caseDir, file), 'utf8')) as JsonValue;
}

export function caseManifest(caseDir: string): { expect: { errorContains?: string } } {
  return JSON.parse(readFileSync(sharedPath('conformance/map', caseDir, 'manifest.json'), 'utf8'));
}

export { HAS_SHARED };
