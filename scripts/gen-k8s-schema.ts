/**
 * Generates src/merge/ssa/builtin-schema.json, the compact SMD schema of every built-in Kubernetes type and
 * the index of built-in kinds, from client-go's applyconfigurations schema (the shared corpus's
 * k8s-schema/smd-schema-builtin.yaml, Apache-2.0). Re-run per Kubernetes minor:
 *
 *   npx tsx scripts/gen-k8s-schema.ts [path/to/smd-schema-builtin.yaml]
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { renderDiagnostic } from '../src/diagnostics/index.js';
import { encodeCompactSchema } from '../src/merge/ssa/compact-schema.js';
import { parseSmdSchemaYaml } from '../src/merge/ssa/schema-load.js';
import { builtinKindIndex } from '../src/merge/ssa/builtin-kinds.js';

const repo = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const input = process.argv[2] ?? resolve(process.env.TRANSMUTE_SHARED ?? resolve(repo, '../shared'), 'conformance/map/k8s-schema/smd-schema-builtin.yaml');
const output = resolve(repo, 'src/merge/ssa/builtin-schema.json');

const text = readFileSync(input, 'utf8');
const parsed = parseSmdSchemaYaml(text, input);
if (!parsed.ok) {
  for (const d of parsed.diagnostics) console.error(renderDiagnostic(d));
  process.exit(1);
}
const schema = parsed.value;
const names = schema.typeNames();
const kinds = builtinKindIndex(schema);
const compact = encodeCompactSchema(
  schema,
  names,
  kinds,
  'client-go applyconfigurations/internal schemaYAML via conformance/map/k8s-schema/smd-schema-builtin.yaml (Apache-2.0)',
);
const json = JSON.stringify(compact);
writeFileSync(output, json + '\n');
console.log(`${output}: ${names.length} types, ${Object.keys(kinds).length} kinds, ${json.length} bytes`);
