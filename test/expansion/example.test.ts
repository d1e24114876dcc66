/** The bundled expansion example (examples/expansion, a step of `npm run demo`) prints the Pod with its sidecar. */
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { run } from '../cli/support.js';

const example = join(dirname(fileURLToPath(import.meta.url)), '..', '..', 'examples', 'expansion');

describe('examples/expansion', () => {
  it('expands the Deployment into its Pod, mutated as a generated resource', async () => {
    const r = await run(['expand', example]);
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    expect(r.stdout).toContain('kind: Pod\n');
    expect(r.stdout).toContain('  name: web-pod\n  namespace: shop\n');
    expect(r.stdout).toContain('  - image: fluent/fluent-bit:3.1\n    name: log-shipper\n');
    expect(r.stdout).toContain('    owner: shop-team\n');
  });
});
