import { relative } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runConformanceCommand } from '../../src/conformance/command.js';
import { discoverCases } from '../../src/conformance/discover.js';
import { dialectByName } from '../../src/dialects/registry.js';
import { describeShared, REPO_ROOT, sharedPath } from '../support/shared.js';

interface Captured {
  code: number;
  stdout: string;
  stderr: string;
}

async function run(...argv: string[]): Promise<Captured> {
  let stdout = '';
  let stderr = '';
  const cwd = process.cwd();
  // DIR arguments are relative to the repository root, as a user would type them there.
  process.chdir(REPO_ROOT);
  try {
    const code = await runConformanceCommand(argv, { stdout: (s) => (stdout += s), stderr: (s) => (stderr += s) });
    return { code, stdout, stderr };
  } finally {
    process.chdir(cwd);
  }
}

const corpus = (...parts: string[]): string => relative(REPO_ROOT, sharedPath('conformance', ...parts));
const STATUSES = ['passed', 'failed', 'error', 'unsupported', 'skipped'];

describe('conformance command usage', () => {
  it('prints help with exit 0', async () => {
    const r = await run('--help');
    expect(r.code).toBe(0);
    expect(r.stdout).toContain('Usage: transmute conformance DIR...');
    expect(r.stdout).toContain('--via DIALECT');
  });

  it('rejects an unknown option, a missing DIR, a DIR that does not exist and a bad --via with one line and exit 2', async () => {
    for (const argv of [['--bogus', 'x'], [], ['no-such-dir-anywhere'], ['--via'], ['--via', 'Not A Dialect', '.']]) {
      const r = await run(...argv);
      expect(r.code, argv.join(' ')).toBe(2);
      expect(r.stdout, argv.join(' ')).toBe('');
      expect(r.stderr.trimEnd().split('\n'), argv.join(' ')).toHaveLength(1);
      expect(r.stderr).toMatch(/TM7001/);
    }
  });
});

describeShared('conformance command over the corpora', () => {
  const dirs = [corpus('gatekeeper'), corpus('kyverno'), corpus('map')];

  it('--json prints exactly one JSON object that counts every case, and nothing crashes', async () => {
    const r = await run(...dirs, '--json');
    const report = JSON.parse(r.stdout) as Record<string, unknown> & { cases: { id: string; status: string; reason?: string }[] };
    expect(Object.keys(report)).toEqual(['total', 'passed', 'failed', 'error', 'unsupported', 'skipped', 'cannot', 'yet', 'cases']);
    const discovered = discoverCases(dirs, REPO_ROOT).refs.map((c) => c.id);
    expect(report.cases.map((c) => c.id)).toEqual(discovered);
    expect(report.total).toBe(discovered.length);
    for (const status of STATUSES) expect(report[status]).toBe(report.cases.filter((c) => c.status === status).length);
    for (const c of report.cases) {
      expect(STATUSES).toContain(c.status);
      expect(Object.keys(c).sort()).toEqual(c.status === 'passed' ? ['id', 'status'] : ['id', 'reason', 'status']);
    }
    // Every case loads: no malformed-case errors, and no runner crash.
    expect(report.cases.filter((c) => c.status === 'error')).toEqual([]);
    expect(r.code).toBe(report.failed === 0 ? 0 : 1);
    // Skipped only where a manifest says a cluster or external service is needed.
    expect(report.cases.filter((c) => c.status === 'skipped').every((c) => c.id.includes('/kyverno/kyverno-'))).toBe(true);
    if (['gatekeeper', 'kyverno', 'map'].every((name) => !dialectByName(name))) {
      // Before the dialects land: every case that is not skipped or a structured-merge triplet (run by the merge
      // engine alone) is unsupported for want of a dialect or an engine.
      const rest = report.cases.filter((c) => c.status !== 'skipped' && !c.id.includes('/smd-merge/'));
      expect(rest.filter((c) => !(c.status === 'unsupported' && /^no (dialect|engine): /.test(c.reason ?? '')))).toEqual([]);
    }
  });

  it('without --json prints a table and ends with the summary line', async () => {
    const dir = corpus('map', 'k8s-integration');
    const r = await run(dir);
    const lines = r.stdout.trimEnd().split('\n');
    expect(lines[0]).toMatch(/^ID\s+STATUS\s+REASON$/);
    expect(lines).toHaveLength(discoverCases([dir], REPO_ROOT).refs.length + 2);
    expect(lines[1]).toMatch(new RegExp(`^${dir.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}/\\S+\\s+(${STATUSES.join('|')})\\b`));
    expect(lines[lines.length - 1]).toMatch(/^\d+ passed, \d+ failed, \d+ error, \d+ unsupported, \d+ skipped$/);
  });
});
