/**
 * Image metadata offline (issue 15 item 12, the rest): Kyverno `imageRegistry` context entries read the
 * runtime's image data, shaped as Kyverno's registry client returns it (loaders/imagedata.go over
 * adapters/rclient.go: image, resolvedImage, registry, repository, identifier, manifestList, manifest,
 * configData); a kyverno-test suite's `context:` file (cli.kyverno.io Context, spec.images) feeds it; and a
 * chainsaw case runs with it (`conformance --image-data`), unsupported without it. Fixtures written here.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { stringify } from 'yaml';
import { loadPolicies } from '../../src/api/load.js';
import { registryClientData } from '../../src/cel/lib/image-data.js';
import { runConformance } from '../../src/conformance/run.js';
import { apply } from '../../src/interpreter/index.js';
import { translate } from '../../src/pipeline.js';
import type { JsonObject } from '../../src/ir/json.js';
import { createRuntime } from '../../src/runtime/create.js';
import { run } from '../cli/support.js';
import { tempDir } from '../support/temp.js';

const ARCH_POLICY = `apiVersion: kyverno.io/v1
kind: ClusterPolicy
metadata: {name: image-arch}
spec:
  rules:
  - name: label-arch
    match:
      any:
      - resources: {kinds: [Pod]}
    context:
    - name: imageData
      imageRegistry:
        reference: "{{ request.object.spec.containers[0].image }}"
    - name: arch
      imageRegistry:
        reference: "{{ request.object.spec.containers[0].image }}"
        jmesPath: configData.architecture
    mutate:
      patchStrategicMerge:
        metadata:
          labels:
            arch: "{{ arch }}"
            registry: "{{ imageData.registry }}"
            repository: "{{ imageData.repository | replace_all(@, '/', '.') }}"
            identifier: "{{ imageData.identifier }}"
`;
const pod = (image: string): JsonObject => ({ apiVersion: 'v1', kind: 'Pod', metadata: { name: 'p', namespace: 'default' }, spec: { containers: [{ name: 'c', image }] } });
const images = new Map<string, JsonObject>([['nginx:1.21', { config: { architecture: 'arm64' }, manifest: { schemaVersion: 2 } }]]);

describe('imageRegistry context entries from the runtime image data', () => {
  const policies = loadPolicies({ name: 'policy.yaml', text: ARCH_POLICY }).policies;
  const request = (image: string) => ({ object: pod(image), oldObject: null, operation: 'CREATE' as const, userInfo: {}, namespaceObject: null });

  it('resolve as the registry client returns them, the same image under another reference too', () => {
    for (const image of ['nginx:1.21', 'docker.io/library/nginx:1.21']) {
      const result = apply(policies, request(image), { runtime: createRuntime({ imageData: images }) });
      expect(result.allowed).toBe(true);
      expect((result.object as { metadata: JsonObject }).metadata.labels).toEqual({ arch: 'arm64', registry: 'index.docker.io', repository: 'library.nginx', identifier: '1.21' });
    }
  });

  it('without the image, the rule fails as unsupported offline, naming the image', () => {
    const result = apply(policies, request('nginx:1.21'), { runtime: createRuntime() });
    expect(result.allowed).toBe(false);
    expect(result.diagnostics[0]!.message).toMatch(/unsupported offline: context entry "(arch|imageData)" \(imageRegistry\) needs the metadata of image "nginx:1\.21"/);
  });

  it('shape: raw documents renamed, null where the data leaves them out, tag@digest identifiers', () => {
    const digest = `sha256:${'b'.repeat(64)}`;
    const table = new Map<string, JsonObject>([[`ghcr.io/org/app:v1@${digest}`, { config: { os: 'linux' } }]]);
    expect(registryClientData(table, `ghcr.io/org/app:v1@${digest}`)).toEqual({
      image: `ghcr.io/org/app:v1@${digest}`,
      resolvedImage: `ghcr.io/org/app@${digest}`,
      registry: 'ghcr.io',
      repository: 'org/app',
      identifier: `v1@${digest}`,
      manifestList: null,
      manifest: null,
      configData: { os: 'linux' },
    });
    expect(registryClientData(table, 'ghcr.io/org/other:v1')).toBeUndefined();
  });
});

const MPOL = {
  apiVersion: 'policies.kyverno.io/v1beta1',
  kind: 'MutatingPolicy',
  metadata: { name: 'arch' },
  spec: {
    matchConstraints: { resourceRules: [{ apiGroups: [''], apiVersions: ['v1'], operations: ['CREATE'], resources: ['pods'] }] },
    mutations: [{ patchType: 'ApplyConfiguration', applyConfiguration: { expression: 'Object{metadata: Object.metadata{labels: Object.metadata.labels{arch: image.GetMetadata(object.spec.containers[0].image).config.architecture}}}' } }],
  },
};

describe("a kyverno-test suite's context file", () => {
  it('feeds the image data of its policies', async () => {
    const dir = tempDir('suite-context', {
      'kyverno-test.yaml': stringify({
        apiVersion: 'cli.kyverno.io/v1alpha1',
        kind: 'Test',
        metadata: { name: 'arch' },
        context: 'context.yaml',
        policies: ['policy.yaml'],
        resources: ['pod.yaml'],
        results: [{ isMutatingPolicy: true, policy: 'arch', kind: 'Pod', resources: ['default/p'], patchedResources: 'patched.yaml', result: 'pass' }],
      }),
      'context.yaml': stringify({ apiVersion: 'cli.kyverno.io/v1alpha1', kind: 'Context', metadata: { name: 'c' }, spec: { images: [{ image: 'nginx:1.21', config: { architecture: 's390x' } }] } }),
      'policy.yaml': stringify(MPOL),
      'pod.yaml': stringify(pod('nginx:1.21')),
      'patched.yaml': stringify({ ...pod('nginx:1.21'), metadata: { name: 'p', namespace: 'default', labels: { arch: 's390x' } } }),
    });
    const out = await run(['test', dir, '-o', 'text']);
    expect(out.stdout).toContain('1 passed, 0 failed');
    expect(out.code).toBe(0);
  });

  it('a context file without a valid spec.images is refused', async () => {
    const dir = tempDir('suite-context-bad', {
      'kyverno-test.yaml': stringify({ apiVersion: 'cli.kyverno.io/v1alpha1', kind: 'Test', metadata: { name: 'x' }, context: 'context.yaml', policies: [], resources: [], results: [] }),
      'context.yaml': stringify({ apiVersion: 'cli.kyverno.io/v1alpha1', kind: 'Context', metadata: { name: 'c' }, spec: { images: [{ config: {} }] } }),
    });
    const out = await run(['test', dir, '-o', 'text']);
    expect(out.stdout + out.stderr).toContain('spec.images[0]: expected a mapping with an image reference');
  });
});

describe('chainsaw cases reading an image registry', () => {
  const root = tempDir('chainsaw-image');
  function chainsawCase(name: string, dialects: string[], policy: JsonObject): string {
    const dir = join(root, 'kyverno-chainsaw', name);
    mkdirSync(dir, { recursive: true });
    writeFileSync(join(dir, 'policy.yaml'), stringify(policy));
    writeFileSync(join(dir, 'pod.yaml'), stringify({ apiVersion: 'v1', kind: 'Pod', metadata: { name: 'p' }, spec: { containers: [{ name: 'c', image: 'nginx:1.21' }] } }));
    writeFileSync(join(dir, 'assert.yaml'), stringify({ apiVersion: 'v1', kind: 'Pod', metadata: { name: 'p', labels: { arch: 'arm64' } } }));
    const ops = [
      { op: 'policy', file: 'policy.yaml' },
      { op: 'apply', file: 'pod.yaml' },
      { op: 'assert', file: 'assert.yaml' },
    ];
    writeFileSync(join(dir, 'manifest.json'), JSON.stringify({ source: 'kyverno-chainsaw', dialects, usable_offline: true, features: [], ops }));
    return dir;
  }
  const kyverno = chainsawCase('image-registry', ['kyverno'], { apiVersion: 'kyverno.io/v1', kind: 'ClusterPolicy', metadata: { name: 'image-arch' }, spec: (loadPolicies({ name: 'p.yaml', text: ARCH_POLICY }).documents[0]!.value as JsonObject).spec! });
  const mpol = chainsawCase('image-data', ['kyverno-mutatingpolicy-cel'], MPOL);

  it('run with the image data, and are unsupported without it', async () => {
    const withData = await runConformance([kyverno, mpol], { runtime: createRuntime({ imageData: images }) });
    expect(withData.outcomes.map((o) => o.status)).toEqual(['passed', 'passed']);
    const without = await runConformance([kyverno, mpol], { runtime: createRuntime() });
    expect(without.outcomes.map((o) => o.status)).toEqual(['unsupported', 'unsupported']);
    expect(without.outcomes[0]!.reason).toContain('needs the metadata of image "nginx:1.21"');
  });

  it('transmute conformance --image-data FILE', async () => {
    const file = join(tempDir('image-file', { 'images.yaml': stringify({ 'nginx:1.21': { config: { architecture: 'arm64' } } }) }), 'images.yaml');
    const out = await run(['conformance', kyverno, mpol, '--image-data', file]);
    expect(out.stdout).toContain('2 passed, 0 failed');
    expect(out.code).toBe(0);
  });
});

describe('imageRegistry context entries translated to a MutatingPolicy (image.GetMetadata)', () => {
  const digest = `sha256:${'c'.repeat(64)}`;
  // References covering rclient.go's identifiers: a tag, none (latest), a digest, a tag and a digest, and a
  // registry port before a digest (the text after its last ':' taken for a tag, upstream's quirk).
  const references = ['nginx:1.21', 'docker.io/library/nginx:1.21', 'busybox', `ghcr.io/org/app:v1@${digest}`, `ghcr.io/org/app@${digest}`, `registry.example.com:5000/team/app@${digest}`];
  const table = new Map<string, JsonObject>(references.map((r, i) => [r, { config: { architecture: `arch-${i}` }, manifest: { schemaVersion: 2 }, ...(r.includes('@') ? {} : { digest }) }]));
  const withIdentity = ARCH_POLICY.replace(
    '            identifier: "{{ imageData.identifier }}"',
    `            identifier: "{{ imageData.identifier | replace_all(@, ':', '.') | replace_all(@, '@', '.') | replace_all(@, '/', '.') }}"
            resolved: "{{ imageData.resolvedImage | replace_all(@, ':', '.') | replace_all(@, '@', '.') | replace_all(@, '/', '.') | truncate(@, \`63\`) }}"
            image: "{{ imageData.image | replace_all(@, ':', '.') | replace_all(@, '@', '.') | replace_all(@, '/', '.') | truncate(@, \`63\`) }}"
            manifest: "v{{ imageData.manifest.schemaVersion }}"
            list: "{{ imageData.manifestList || 'none' }}"`,
  );

  it('gives what the ClusterPolicy gives, for every shape of reference', () => {
    const source = loadPolicies({ name: 'policy.yaml', text: withIdentity.replace('metadata: {name: image-arch}', 'metadata: {name: image-arch, annotations: {pod-policies.kyverno.io/autogen-controllers: none}}') }).policies;
    const translated = translate(source, 'kyverno-mpol', 'error');
    expect(translated.diagnostics.filter((d) => d.severity === 'error').map((d) => d.message)).toEqual([]);
    const mpol = loadPolicies({ name: 'mpol.yaml', text: translated.text }).policies;
    const runtime = createRuntime({ imageData: table });
    for (const image of references) {
      const request = { object: pod(image), oldObject: null, operation: 'CREATE' as const, userInfo: {}, namespaceObject: null };
      const expected = apply(source, request, { runtime });
      expect(expected.allowed, image).toBe(true);
      expect(apply(mpol, request, { runtime }).object, image).toEqual(expected.object);
    }
    // Without the image's data both are unsupported offline.
    const missing = { object: pod('quay.io/unknown:1'), oldObject: null, operation: 'CREATE' as const, userInfo: {}, namespaceObject: null };
    expect(apply(mpol, missing, { runtime }).diagnostics[0]!.message).toMatch(/unsupported offline: Kyverno CEL library imagedata/);
  });
});

describe('a kyverno-test row that needs a registry offline', () => {
  // kyverno test fetches image metadata from the registry; offline the row cannot run, in either dialect.
  const suite = (policy: string): string =>
    tempDir('suite-registry', {
      'kyverno-test.yaml': stringify({
        apiVersion: 'cli.kyverno.io/v1alpha1',
        kind: 'Test',
        metadata: { name: 'arch' },
        policies: ['policy.yaml'],
        resources: ['pod.yaml'],
        results: [{ policy: 'image-arch', rule: 'label-arch', kind: 'Pod', resources: ['p'], patchedResources: 'patched.yaml', result: 'pass' }],
      }),
      'policy.yaml': policy,
      'pod.yaml': stringify(pod('nginx:1.21')),
      'patched.yaml': stringify({ ...pod('nginx:1.21'), metadata: { name: 'p', namespace: 'default', labels: { arch: 'arm64' } } }),
    });

  it('is not run, not failed', async () => {
    const out = await run(['test', suite(ARCH_POLICY), '-o', 'text']);
    expect(out.stdout).toContain('not run: unsupported offline: context entry');
    expect(out.stdout).toContain('0 passed, 0 failed');
  });

  it('migrating the policy leaves it untested: a row the MutatingPolicy cannot run proves nothing', async () => {
    const dir = suite(ARCH_POLICY);
    const outDir = join(tempDir('migrate-registry'), 'out');
    const out = await run(['migrate', dir, '--out-dir', outDir, '--to', 'kyverno-mpol', '--json']);
    const report = JSON.parse(out.stdout) as { policies: { status: string; rows: unknown[] }[]; summary: { rows: number } };
    const migrated = report.policies.find((p) => p.status !== 'left-as-is');
    // The row is reported with why it proves nothing, and left out of the counts.
    // Neither side has the image's metadata here: the original is named first.
    expect(migrated).toMatchObject({ status: 'untested', rows: [{ notRun: expect.stringMatching(/^the original suite could not run it: unsupported offline: context entry "(arch|imageData)" \(imageRegistry\)/) }] });
    expect(report.summary.rows).toBe(0);
    const text = await run(['migrate', dir, '--out-dir', join(tempDir('migrate-registry-text'), 'out'), '--to', 'kyverno-mpol']);
    expect(text.stdout).toContain('(no suite row tests it; 1 row could not run)');
  });
});
