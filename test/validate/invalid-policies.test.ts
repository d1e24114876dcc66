/**
 * A corpus of invalid policies (test/fixtures/invalid-policies/<family>/), each a realistic policy with exactly
 * one mistake. The first lines of each file say what a cluster would answer:
 *
 *   # expect: LINE:COL CODE MESSAGE
 *
 * MESSAGE is the start of the diagnostic's message (upstream's wording: kube-apiserver's field errors, the
 * engine's webhook text); written as `...TEXT` it is a distinctive substring found anywhere in the message (for
 * messages upstream prints with Go values transmute cannot reproduce, or that upstream wraps in more context).
 * Every fixture is run through the CLI as `transmute ir -p FILE`, which must refuse it with exit code 2 and a
 * `FILE:LINE:COL: error CODE: MESSAGE` line on stderr.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { run } from '../cli/support.js';
import { REPO_ROOT } from '../support/shared.js';
import { tempDir } from '../support/temp.js';

const ROOT = join(REPO_ROOT, 'test/fixtures/invalid-policies');
const FAMILIES = ['kyverno', 'cel', 'gatekeeper'] as const;

interface Expectation {
  line: number;
  col: number;
  code: string;
  /** The message's start, or (substring) text found anywhere in it. */
  text: string;
  substring: boolean;
}

function expectationOf(file: string): Expectation {
  const source = readFileSync(file, 'utf8');
  const found = /^# expect: (\d+):(\d+) (TM\d{4}) (.+)$/m.exec(source);
  if (!found) throw new Error(`${file}: no "# expect: LINE:COL CODE MESSAGE" comment`);
  const [, line, col, code, message] = found;
  const substring = message!.startsWith('...');
  return { line: Number(line), col: Number(col), code: code!, text: substring ? message!.slice(3) : message!, substring };
}

function fixturesOf(family: string): string[] {
  return readdirSync(join(ROOT, family))
    .filter((name) => name.endsWith('.yaml'))
    .sort()
    .map((name) => join(ROOT, family, name));
}

describe('invalid policies are refused as a cluster would refuse them', () => {
  for (const family of FAMILIES) {
    describe(family, () => {
      const files = fixturesOf(family);

      it('has at least 22 fixtures', () => {
        expect(files.length).toBeGreaterThanOrEqual(22);
      });

      for (const file of files) {
        const name = file.slice(ROOT.length + 1);
        it(name, async () => {
          const want = expectationOf(file);
          const r = await run(['ir', '-p', file]);
          expect(r.code).toBe(2);
          const prefix = `${file}:${want.line}:${want.col}: error ${want.code}: `;
          if (want.substring) {
            const line = r.stderr.split('\n').find((l) => l.startsWith(prefix));
            expect(line, `no diagnostic ${prefix}… in:\n${r.stderr}`).toBeDefined();
            expect(line!.slice(prefix.length)).toContain(want.text);
          } else {
            expect(r.stderr).toContain(prefix + want.text);
          }
        });
      }
    });
  }

  it('covers MutatingPolicy and MutatingAdmissionPolicy with at least 8 fixtures each', () => {
    const kinds = fixturesOf('cel').map((f) => /^kind: (\S+)$/m.exec(readFileSync(f, 'utf8'))![1]!);
    const mpol = kinds.filter((k) => k === 'MutatingPolicy' || k === 'NamespacedMutatingPolicy').length;
    const map = kinds.filter((k) => k === 'MutatingAdmissionPolicy' || k === 'MutatingAdmissionPolicyBinding').length;
    expect(mpol).toBeGreaterThanOrEqual(8);
    expect(map).toBeGreaterThanOrEqual(8);
  });
});

/** A fixture with its one mistake undone: the same policy is accepted, so the fixture fails for the stated reason. */
const FIXED: { fixture: string; from: string; to: string }[] = [
  { fixture: 'kyverno/01-unknown-field-kind.yaml', from: '          kind:\n', to: '          kinds:\n' },
  { fixture: 'kyverno/13-jsonpatch-path-no-slash.yaml', from: 'path: spec/hostAliases', to: 'path: /spec/hostAliases' },
  { fixture: 'kyverno/17-precondition-bad-operator.yaml', from: 'operator: Is', to: 'operator: Equals' },
  { fixture: 'kyverno/10-kinds-missing.yaml', from: '      - resources:\n', to: '      - resources:\n          kinds:\n          - ConfigMap\n' },
  { fixture: 'cel/map-03-variable-name.yaml', from: 'name: cost-center', to: 'name: costCenter' },
  { fixture: 'cel/mpol-04-evaluation-modes-disabled.yaml', from: 'enabled: false', to: 'enabled: true' },
  { fixture: 'cel/mpol-12-undeclared-identifier.yaml', from: ': objet.', to: ': object.' },
  { fixture: 'gatekeeper/assignimage-01-nothing.yaml', from: 'parameters: {}', to: 'parameters:\n    assignDomain: registry.corp.example.com' },
  { fixture: 'gatekeeper/modifyset-02-operation-enum.yaml', from: 'operation: add', to: 'operation: merge' },
  { fixture: 'gatekeeper/assign-02-location-syntax.yaml', from: '[name:*.security', to: '[name:*].security' },
];

describe('the fixtures with their mistake fixed are accepted', () => {
  for (const { fixture, from, to } of FIXED) {
    it(fixture, async () => {
      // Without the comment header, which may quote the mistake.
      const source = readFileSync(join(ROOT, fixture), 'utf8').replace(/^#.*\n/gm, '');
      expect(source).toContain(from);
      const fixed = source.replace(from, to);
      const dir = tempDir('invalid-policies', { 'policy.yaml': fixed });
      const r = await run(['ir', '-p', join(dir, 'policy.yaml')]);
      expect(r.stderr).not.toMatch(/error TM\d{4}/);
      expect(r.code).toBe(0);
    });
  }
});
