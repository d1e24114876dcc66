import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { irDialect } from '../../src/dialects/ir/index.js';
import { generateIrSchema } from '../../src/ir/schema-gen.js';
import { randomPolicy, rng } from './arbitrary.js';
import { checkAgainstSchema } from './schema-check.js';
import { sourceDocs } from './support.js';

const nodesFile = fileURLToPath(new URL('../../src/ir/nodes.ts', import.meta.url));
const schemaFile = fileURLToPath(new URL('../../src/ir/schema.json', import.meta.url));
const committed = JSON.parse(readFileSync(schemaFile, 'utf8')) as Record<string, unknown>;

describe('IR JSON Schema', () => {
  it('is in sync with src/ir/nodes.ts', () => {
    const fresh = generateIrSchema(nodesFile);
    expect(JSON.stringify(committed, null, 2), 'src/ir/schema.json is stale: run `npm run schema`').toBe(JSON.stringify(fresh, null, 2));
  });

  it('describes policies as the parser builds them', () => {
    const text = readFileSync(new URL('./fixtures/every-construct.yaml', import.meta.url), 'utf8');
    const { policies, diagnostics } = irDialect.parse(sourceDocs('every-construct.yaml', text));
    expect(diagnostics).toEqual([]);
    expect(checkAgainstSchema(committed, JSON.parse(JSON.stringify({ policies })))).toEqual([]);
  });

  it('describes random policies and rejects broken ones', () => {
    const random = rng(3);
    for (let i = 0; i < 50; i++) {
      const policies = [randomPolicy(random)];
      expect(checkAgainstSchema(committed, JSON.parse(JSON.stringify({ policies })))).toEqual([]);
    }
    const broken = JSON.parse(JSON.stringify({ policies: [randomPolicy(random)] }));
    broken.policies[0].semantics.order = 'chaotic';
    expect(checkAgainstSchema(committed, broken)).not.toEqual([]);
    delete broken.policies[0].semantics.order;
    expect(checkAgainstSchema(committed, broken).join()).toMatch(/missing order/);
  });

  it('uses enums for literal unions, oneOf for discriminated unions, and leaves optional fields out of required', () => {
    const defs = committed.$defs as Record<string, Record<string, unknown>>;
    expect(defs.PathRoot).toEqual({ description: expect.any(String), type: 'string', enum: ['object', 'oldObject', 'request', 'params', 'namespaceObject', 'vars'] });
    expect((defs.Op!.oneOf as unknown[]).length).toBe(10);
    expect(defs.Semantics!.required).toEqual(['order']);
    expect(committed.$schema).toBe('https://json-schema.org/draft/2020-12/schema');
  });
});
