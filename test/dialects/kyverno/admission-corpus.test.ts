/**
 * Zero false rejections: every Kyverno ClusterPolicy / Policy document of the shared conformance corpus that
 * upstream admits must pass kyvernoAdmissionChecks.
 *
 * The corpus manifests do not record which policy applications upstream expects to fail (INDEX.md describes a
 * chainsaw `policy` op the same way whatever the upstream `expect`), so the expected rejections are listed here,
 * taken from the upstream chainsaw tests named by each manifest's `origin_test`: the steps that apply the file
 * with `expect: check: ($error != null): true` and never apply it successfully afterwards.
 */
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { expect, it } from 'vitest';
import { kyvernoAdmissionChecks } from '../../../src/dialects/kyverno/admission/index.js';
import { isJsonObject } from '../../../src/ir/json.js';
import { loadYamlText } from '../../../src/io/yaml-load.js';
import { describeShared, sharedPath } from '../../support/shared.js';

const ROOT = sharedPath('conformance', 'kyverno');

/** case directory → policy files upstream rejects (and does not admit later in the same test). */
const EXPECTED_REJECTIONS: Record<string, string[]> = {
  // ClusterPolicy mutating PersistentVolumeClaims the background service account may not update (auth check).
  'test__conformance__chainsaw__mutate__clusterpolicy__standard__existing__validation__auth-check__cpol_2ce3a75f': ['policy.yaml'],
  'test__conformance__chainsaw__mutate__clusterpolicy__standard__existing__validation__auth-check__cpol_695099d1': ['policy.yaml'],
  // mutateExistingOnPolicyUpdate without targets.
  'test__conformance__chainsaw__mutate__clusterpolicy__standard__existing__validation__mutate-existing-_a4af98c1': ['policy-no-targets.yaml'],
  'test__conformance__chainsaw__mutate__clusterpolicy__standard__existing__validation__mutate-existing-_e68b7080': ['policy-no-targets.yaml'],
  // target.* variables in a target's own resource spec.
  'test__conformance__chainsaw__mutate__clusterpolicy__standard__existing__validation__target-variable-_7d17628e': ['policy-bad.yaml'],
  'test__conformance__chainsaw__mutate__clusterpolicy__standard__existing__validation__target-variable-validation': ['policy-bad.yaml'],
};

function* files(dir: string): Generator<string> {
  for (const name of readdirSync(dir).sort()) {
    const p = join(dir, name);
    if (statSync(p).isDirectory()) yield* files(p);
    else if (/\.(ya?ml|json)$/.test(name) && name !== 'manifest.json') yield p;
  }
}

/** Files a chainsaw case only asserts on (partial objects, not policies to admit). */
function assertOnly(dir: string): Set<string> {
  const manifest = join(dir, 'manifest.json');
  const out = new Set<string>();
  if (!existsSync(manifest)) return out;
  const m = JSON.parse(readFileSync(manifest, 'utf8')) as { ops?: { op: string; file?: string }[] };
  const applied = new Set((m.ops ?? []).filter((o) => o.op !== 'assert' && o.op !== 'error').map((o) => o.file));
  for (const o of m.ops ?? []) if ((o.op === 'assert' || o.op === 'error') && o.file !== undefined && !applied.has(o.file)) out.add(o.file);
  return out;
}

describeShared('kyverno admission checks over the conformance corpus', () => {
  it('admits every policy upstream admits (0 false rejections)', () => {
    let checked = 0;
    let excluded = 0;
    const rejected: string[] = [];
    for (const file of files(ROOT)) {
      const rel = relative(ROOT, file);
      const parts = rel.split('/');
      const caseDir = parts.length >= 3 ? parts[1]! : '';
      const base = parts[parts.length - 1]!;
      if (assertOnly(join(ROOT, parts[0]!, caseDir)).has(base)) continue;
      const loaded = loadYamlText(file, readFileSync(file, 'utf8'));
      if (!loaded.ok) continue;
      for (const doc of loaded.value) {
        const v = doc.value;
        if (!isJsonObject(v) || !['kyverno.io/v1', 'kyverno.io/v2beta1'].includes(v.apiVersion as string)) continue;
        if (v.kind !== 'ClusterPolicy' && v.kind !== 'Policy') continue;
        if (!isJsonObject(v.spec) || !Array.isArray(v.spec.rules)) continue;
        if (EXPECTED_REJECTIONS[caseDir]?.includes(base)) {
          excluded++;
          continue;
        }
        checked++;
        for (const d of kyvernoAdmissionChecks(doc)) rejected.push(`${rel}#${doc.index}: ${d.message}`);
      }
    }
    console.log(`admission-corpus: ${checked} policy documents checked, ${excluded} expected rejections excluded, ${rejected.length} rejected`);
    expect(rejected).toEqual([]);
    expect(checked).toBeGreaterThan(100);
  });

  it('rejects the policies upstream rejects for reasons checked without a cluster', () => {
    const cases: [string, string, string][] = [
      [
        'test__conformance__chainsaw__mutate__clusterpolicy__standard__existing__validation__mutate-existing-_a4af98c1',
        'policy-no-targets.yaml',
        'spec.mutateExistingOnPolicyUpdate: Forbidden: rules[0].mutate.targets has to be specified when mutateExistingOnPolicyUpdate is set',
      ],
      [
        'test__conformance__chainsaw__mutate__clusterpolicy__standard__existing__validation__target-variable-validation',
        'policy-bad.yaml',
        'policy contains invalid variables: invalid variables defined at mutate.targets[0]: variable target.metadata.annotations.dns must match regex ' +
          '"request\\.|element|elementIndex|@|images|images\\.|image\\.|([a-z_0-9]+\\()[^{}]" or patterns []',
      ],
    ];
    for (const [dir, file, message] of cases) {
      const p = join(ROOT, 'kyverno-chainsaw', dir, file);
      const loaded = loadYamlText(p, readFileSync(p, 'utf8'));
      if (!loaded.ok) throw new Error('yaml');
      expect(kyvernoAdmissionChecks(loaded.value[0]!).map((d) => d.message)).toEqual([message]);
    }
  });
});
