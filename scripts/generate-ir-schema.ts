/** `npm run schema`: regenerates src/ir/schema.json from src/ir/nodes.ts (test/ir/schema.test.ts checks it is current). */
import { writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { generateIrSchema } from '../src/ir/schema-gen.js';

const nodes = fileURLToPath(new URL('../src/ir/nodes.ts', import.meta.url));
const out = fileURLToPath(new URL('../src/ir/schema.json', import.meta.url));

const schema = generateIrSchema(nodes);
writeFileSync(out, `${JSON.stringify(schema, null, 2)}\n`);
console.log(`wrote ${out} (${Object.keys(schema.$defs as object).length} definitions)`);
