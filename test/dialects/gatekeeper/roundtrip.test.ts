/**
 * Round trip over the Gatekeeper corpus: for every case whose mutators are accepted, generating Gatekeeper
 * YAML from the IR and reading it back gives the same IR and the same result on the case's input; and the
 * whole corpus passes both directly and `--via gatekeeper`.
 */
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { expect, it } from 'vitest';
import { gatekeeperApplyEnv } from '../../../src/conformance/plugins/gatekeeper.js';
import { runConformance } from '../../../src/conformance/run.js';
import { gatekeeperDialect } from '../../../src/dialects/gatekeeper/index.js';
import { apply } from '../../../src/interpreter/index.js';
import type { JsonObject, JsonValue } from '../../../src/ir/json.js';
import { printPolicies } from '../../../src/ir/print.js';
import { loadYamlText } from '../../../src/io/yaml-load.js';
import { admitDocs } from '../../../src/validate/admit.js';
import { describeShared, HAS_SHARED, sharedPath } from '../../support/shared.js';

const ROOT = HAS_SHARED ? sharedPath('conformance', 'gatekeeper') : '';

function caseDirs(): string[] {
  if (!HAS_SHARED) return [];
  const out: string[] = [];
  for (const source of readdirSync(ROOT).sort()) {
    const dir = join(ROOT, source);
    if (!statSync(dir).isDirectory()) continue;
    for (const c of readdirSync(dir).sort()) if (existsSync(join(dir, c, 'manifest.json'))) out.push(join(dir, c));
  }
  return out;
}

function load(file: string) {
  const docs = loadYamlText(file, readFileSync(file, 'utf8'));
  if (!docs.ok) throw new Error(`${file} does not load`);
  return docs.value;
}

describeShared('gatekeeper round trip over the corpus', () => {
  for (const dir of caseDirs()) {
    const manifest = JSON.parse(readFileSync(join(dir, 'manifest.json'), 'utf8')) as JsonObject & { files: Record<string, string> };
    const docs = load(join(dir, manifest.files.mutators!));
    const parsed = gatekeeperDialect.parse(docs);
    if (parsed.diagnostics.some((d) => d.severity === 'error')) continue;
    // Gatekeeper's Go tests use names a cluster refuses (`goodAssign`); the generator must rename those, so
    // the IR comes back the same up to the names, and the emitted mutators are admissible.
    const admissible = admitDocs(gatekeeperDialect, docs).diagnostics.every((d) => d.severity !== 'error');
    it(`${String(manifest.id)}: generate(parse(x)) reads back to the same IR and result`, () => {
      const generated = gatekeeperDialect.generate(parsed.policies, { unsupported: 'error' });
      expect(generated.diagnostics).toEqual([]);
      const emitted = load2(generated.text);
      expect(admitDocs(gatekeeperDialect, emitted).diagnostics).toEqual([]);
      const again = gatekeeperDialect.parse(emitted);
      expect(again.diagnostics.filter((d) => d.severity === 'error')).toEqual([]);
      if (admissible) expect(printPolicies(again.policies)).toBe(printPolicies(parsed.policies));
      else expect(printPolicies(again.policies).toLowerCase()).toBe(printPolicies(parsed.policies).toLowerCase());
      // Generating again gives the same text.
      expect(gatekeeperDialect.generate(again.policies).text).toBe(generated.text);
      if (!manifest.files.input) return;
      const object = load(join(dir, manifest.files.input))[0]!.value as JsonValue;
      const env = gatekeeperApplyEnv(manifest as JsonObject);
      if (typeof env === 'string') throw new Error(env);
      const ctx = (manifest.context ?? {}) as { operation?: string; username?: string };
      const request = { object, operation: (ctx.operation || 'CREATE') as 'CREATE', userInfo: { username: ctx.username ?? '' } };
      const direct = apply(parsed.policies, request, { ...env, trace: false });
      const viaEmitted = apply(again.policies, request, { ...env, trace: false });
      expect(viaEmitted.allowed).toBe(direct.allowed);
      expect(stripUuid(viaEmitted.object)).toEqual(stripUuid(direct.object));
    });
  }

  it('passes every case and table row, directly and translated through Gatekeeper YAML', async () => {
    const direct = await runConformance([ROOT]);
    const via = await runConformance([ROOT], { via: 'gatekeeper' });
    const failures = (run: typeof direct) => run.outcomes.filter((o) => o.status !== 'passed').map((o) => `${o.id}: ${o.status} ${o.reason ?? ''}`);
    expect(direct.outcomes).toHaveLength(128 + 243);
    expect(failures(direct)).toEqual([]);
    expect(failures(via)).toEqual([]);
  }, 60_000);
});

function load2(text: string) {
  const docs = loadYamlText('emitted.yaml', text);
  return docs.ok ? docs.value : [];
}

/** The mutation id is a fresh UUID on every run. */
function stripUuid(v: JsonValue | null): unknown {
  return JSON.parse(JSON.stringify(v).replace(/[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/g, '<uuid>'));
}
