/** The command line with Gatekeeper mutators: errors inside a location string, annotations. */
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { POD, run, tempFiles } from '../../cli/support.js';

const BAD_LOCATION = `apiVersion: mutations.gatekeeper.sh/v1
kind: Assign
metadata:
  name: bad-location
spec:
  applyTo:
  - groups: [""]
    versions: ["v1"]
    kinds: ["Pod"]
  location: "spec.containers[name: foo]/image"
  parameters:
    assign:
      value: nginx
`;

const ADD_LABEL = `apiVersion: mutations.gatekeeper.sh/v1
kind: AssignMetadata
metadata:
  name: owner
spec:
  location: metadata.labels.owner
  parameters:
    assign:
      value: platform
`;

describe('transmute apply with Gatekeeper mutators', () => {
  it('reports an invalid location at the offending character inside the string, exit code 2', async () => {
    const dir = tempFiles({ 'bad.yaml': BAD_LOCATION, 'pod.yaml': POD });
    const r = await run(['apply', '-p', join(dir, 'bad.yaml'), '-r', join(dir, 'pod.yaml')]);
    expect(r.code).toBe(2);
    // Line 10 is the location; column 40 is the `/` (the string opens at column 13).
    expect(r.stderr).toContain(`${join(dir, 'bad.yaml')}:10:40: error TM2003: invalid location format`);
    expect(r.stderr).toContain('got: ERROR: "/"');
    const lines = r.stderr.split('\n');
    const caret = lines.findIndex((l) => /^\s*\^/.test(l));
    expect(caret).toBeGreaterThan(0);
    expect(lines[caret]!.indexOf('^')).toBe(lines[caret - 1]!.indexOf('/'));
    expect(r.stdout).toBe('');
  });

  it('adds the two mutation annotations with --mutation-annotations', async () => {
    const dir = tempFiles({ 'm.yaml': ADD_LABEL, 'pod.yaml': POD });
    const r = await run(['apply', '-p', join(dir, 'm.yaml'), '-r', join(dir, 'pod.yaml'), '--mutation-annotations']);
    expect(r.code).toBe(0);
    expect(r.stdout).toContain('owner: platform');
    expect(r.stdout).toContain('gatekeeper.sh/mutations: AssignMetadata//owner:1');
    expect(r.stdout).toMatch(/gatekeeper\.sh\/mutation-id: [0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/);
    const plain = await run(['apply', '-p', join(dir, 'm.yaml'), '-r', join(dir, 'pod.yaml')]);
    expect(plain.stdout).not.toContain('gatekeeper.sh/');
  });
});
