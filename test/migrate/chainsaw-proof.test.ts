/**
 * A library's chainsaw tests prove migrations (src/migrate/prove-chainsaw.ts): a test that applies a migrated
 * policy's file is replayed from DIR and from OUT, where the file holds the MutatingPolicy; a test the replay
 * does not run, or that fails on the source, gives no row: the policy is then proven, if at all, by the
 * library's example objects (prove-samples.ts), here the test's own manifests.
 */
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { MigrateReport } from '../../src/migrate/report.js';
import { run } from '../cli/support.js';
import { ADD_TEAM_POLICY, ADD_TEAM_READY, labelledPod, WEB_POD } from '../support/chainsaw-fixtures.js';
import { tempDir } from '../support/temp.js';

function chainsawTest(extra = ''): string {
  return `apiVersion: chainsaw.kyverno.io/v1alpha1
kind: Test
metadata:
  name: add-team
spec:
  steps:
  - try:
    - apply:
        file: ../add-team.yaml
    - assert:
        file: ready.yaml
  - try:
    - apply:
        file: pod.yaml
    - assert:
        file: expected.yaml
${extra}`;
}

async function migrated(expectedTeam: string, extra = ''): Promise<MigrateReport['policies'][number]> {
  const root = tempDir('migrate-chainsaw', {
    'lib/add-team.yaml': ADD_TEAM_POLICY,
    'lib/.chainsaw-test/chainsaw-test.yaml': chainsawTest(extra),
    'lib/.chainsaw-test/ready.yaml': ADD_TEAM_READY,
    'lib/.chainsaw-test/pod.yaml': WEB_POD,
    'lib/.chainsaw-test/expected.yaml': labelledPod(expectedTeam),
  });
  const r = await run(['migrate', join(root, 'lib'), '--out-dir', join(root, 'out'), '--json']);
  const report = JSON.parse(r.stdout) as MigrateReport;
  const policy = report.policies.find((p) => p.source.name === 'add-team' && p.source.kind === 'ClusterPolicy' && p.migrated !== undefined);
  expect(policy, r.stderr).toBeDefined();
  return policy!;
}

describe('migrate proves with chainsaw tests', () => {
  it('a test that passes from DIR and from OUT proves the migration', async () => {
    const p = await migrated('platform');
    expect(p.status).toBe('proven');
    expect(p.rows).toEqual([
      expect.objectContaining({
        resource: '(chainsaw test)',
        original: expect.objectContaining({ status: 'passed', policy: 'add-team' }),
        migrated: expect.objectContaining({ status: 'passed', policy: 'add-team' }),
      }),
    ]);
  });

  it('a test whose step template lies outside DIR reads it there from OUT too (the migration leaves it as it is)', async () => {
    const root = tempDir('migrate-chainsaw-template', {
      'templates/ready.yaml': `apiVersion: chainsaw.kyverno.io/v1alpha1\nkind: StepTemplate\nmetadata:\n  name: ready\nspec:\n  try:\n  - assert:\n      file: ($file)\n`,
      'tests/lib/add-team.yaml': ADD_TEAM_POLICY,
      'tests/lib/.chainsaw-test/chainsaw-test.yaml': chainsawTest().replace(
        '    - assert:\n        file: ready.yaml\n',
        '  - use:\n      template: ../../../templates/ready.yaml\n      with:\n        bindings:\n        - name: file\n          value: ready.yaml\n',
      ),
      'tests/lib/.chainsaw-test/ready.yaml': ADD_TEAM_READY,
      'tests/lib/.chainsaw-test/pod.yaml': WEB_POD,
      'tests/lib/.chainsaw-test/expected.yaml': labelledPod('platform'),
    });
    const r = await run(['migrate', join(root, 'tests', 'lib'), '--out-dir', join(root, 'out'), '--json']);
    const report = JSON.parse(r.stdout) as MigrateReport;
    const p = report.policies.find((x) => x.source.name === 'add-team' && x.migrated !== undefined)!;
    expect(p.rows, r.stderr).toEqual([
      expect.objectContaining({
        resource: '(chainsaw test)',
        original: expect.objectContaining({ status: 'passed' }),
        migrated: expect.objectContaining({ status: 'passed' }),
      }),
    ]);
    expect(p.status).toBe('proven');
  });

  it('a test that fails on the source proves nothing: the example objects are all that is compared', async () => {
    const p = await migrated('other');
    expect(p.rows.filter((r) => r.sample !== true)).toEqual([]);
    expect(p.rows.map((r) => r.resource)).toEqual(['Pod/web', 'Pod/web']);
    expect(p.status).toBe('proven');
  });

  it('a test the replay does not run proves nothing: the example objects are all that is compared', async () => {
    const p = await migrated('platform', '    - script:\n        content: kubectl get pods\n');
    expect(p.rows.filter((r) => r.sample !== true)).toEqual([]);
    expect(p.rows).toHaveLength(2);
  });
});
