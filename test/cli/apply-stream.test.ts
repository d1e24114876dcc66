/**
 * Issue 13, "constant memory in the number of documents": `apply` checks every resource document first, then
 * parses them again one at a time and keeps only the printed output. What it prints must not change.
 */
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { jsonList } from '../../src/cli/commands/apply.js';
import { toJson } from '../../src/io/yaml-dump.js';
import { POLICY, run, tempFiles } from './support.js';

const pod = (name: string): string => `apiVersion: v1\nkind: Pod\nmetadata:\n  name: ${name}\n  namespace: team\nspec:\n  containers:\n  - name: app\n    image: nginx\n`;

describe('apply over many resources', () => {
  it('prints a List exactly as toJson prints it, from the items printed one by one', () => {
    const items = [{ a: 1, b: { c: ['x', 'y\nz'] } }, null, { empty: {}, list: [] }];
    expect(jsonList(items.map((i) => toJson(i)))).toBe(toJson({ apiVersion: 'v1', kind: 'List', items }));
    expect(jsonList([])).toBe(toJson({ apiVersion: 'v1', kind: 'List', items: [] }));
  });

  it('prints every resource in order, in each output format', async () => {
    const dir = tempFiles({ 'policy.yaml': POLICY, 'pods.yaml': Array.from({ length: 50 }, (_, i) => pod(`p${i}`)).join('---\n') });
    const args = ['apply', '-p', join(dir, 'policy.yaml'), '-r', join(dir, 'pods.yaml')];
    const yaml = await run([...args, '-o', 'yaml']);
    expect(yaml.code).toBe(0);
    expect(yaml.stdout.split('---\n')).toHaveLength(50);
    expect(yaml.stdout.match(/team: platform/g)).toHaveLength(50);
    const json = JSON.parse((await run([...args, '-o', 'json'])).stdout) as { kind: string; items: { metadata: { name: string } }[] };
    expect(json.kind).toBe('List');
    expect(json.items.map((i) => i.metadata.name)).toEqual(Array.from({ length: 50 }, (_, i) => `p${i}`));
    const patch = JSON.parse((await run([...args, '-o', 'patch'])).stdout) as { resource: unknown }[];
    expect(patch[7]!.resource).toEqual({ apiVersion: 'v1', kind: 'Pod', namespace: 'team', name: 'p7' });
  });

  it('writes nothing when a document after the first is not readable', async () => {
    const dir = tempFiles({ 'policy.yaml': POLICY, 'pods.yaml': `${pod('a')}---\n${pod('b')}---\nkind: [\n` });
    const r = await run(['apply', '-p', join(dir, 'policy.yaml'), '-r', join(dir, 'pods.yaml')]);
    expect(r.code).toBe(2);
    expect(r.stdout).toBe('');
    expect(r.stderr).toContain('error TM1001');
  });
});
