import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { WIDGET_CRD } from '../support/widget-crd.js';
import { run, tempFiles } from './support.js';


/** The same kind as an OpenAPI v3 document, as /openapi/v3/apis/example.com/v1 would serve it. */
const OPENAPI = JSON.stringify({
  openapi: '3.0.0',
  components: {
    schemas: {
      'com.example.v1.Widget': {
        type: 'object',
        'x-kubernetes-group-version-kind': [{ group: 'example.com', version: 'v1', kind: 'Widget' }],
        properties: {
          apiVersion: { type: 'string' },
          kind: { type: 'string' },
          metadata: { allOf: [{ $ref: '#/components/schemas/io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta' }] },
          spec: {
            type: 'object',
            properties: {
              ports: {
                type: 'array',
                'x-kubernetes-list-type': 'map',
                'x-kubernetes-list-map-keys': ['name'],
                items: { type: 'object', properties: { name: { type: 'string' }, port: { type: 'integer' } } },
              },
              tags: { type: 'array', items: { type: 'string' } },
            },
          },
        },
      },
    },
  },
});

const policy = (expression: string, patchType = 'ApplyConfiguration') => `apiVersion: admissionregistration.k8s.io/v1
kind: MutatingAdmissionPolicy
metadata: {name: widgets}
spec:
  matchConstraints:
    resourceRules:
    - apiGroups: [example.com]
      apiVersions: [v1]
      operations: [CREATE]
      resources: [widgets]
  failurePolicy: Fail
  mutations:
  - patchType: ${patchType}
    ${patchType === 'ApplyConfiguration' ? 'applyConfiguration' : 'jsonPatch'}:
      expression: '${expression}'
---
apiVersion: admissionregistration.k8s.io/v1
kind: MutatingAdmissionPolicyBinding
metadata: {name: widgets}
spec: {policyName: widgets}
`;

const WIDGET = `apiVersion: example.com/v1
kind: Widget
metadata: {name: w, namespace: default}
spec:
  ports:
  - {name: http, port: 80}
  tags: [a]
`;

const ADD_PORT = 'Object{spec: Object.spec{ports: [Object.spec.ports{name: "metrics", port: 9090}]}}';
const SET_TAGS = 'Object{spec: Object.spec{tags: ["b"]}}';

function files(expression: string, patchType?: string): string {
  return tempFiles({
    'crd.yaml': WIDGET_CRD,
    'widget-openapi.json': OPENAPI,
    'policy.yaml': policy(expression, patchType),
    'widget.yaml': WIDGET,
    'bad-crd.yaml': WIDGET_CRD.replace('x-kubernetes-list-type: map', 'x-kubernetes-list-type: bag'),
  });
}

const applyArgs = (dir: string, ...extra: string[]) => ['apply', '-p', join(dir, 'policy.yaml'), '-r', join(dir, 'widget.yaml'), '-o', 'json', ...extra];

describe('transmute apply --crd / --schema / --unknown-schema', () => {
  it('--crd: a keyed list merges by its keys', async () => {
    const dir = files(ADD_PORT);
    const r = await run(applyArgs(dir, '--crd', join(dir, 'crd.yaml')));
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    expect(JSON.parse(r.stdout).spec.ports).toStrictEqual([
      { name: 'http', port: 80 },
      { name: 'metrics', port: 9090 },
    ]);
  });

  it('--crd: a list without x-kubernetes-list-type is atomic, so the apply configuration is rejected', async () => {
    const dir = files(SET_TAGS);
    const r = await run(applyArgs(dir, '--crd', join(dir, 'crd.yaml')));
    expect(r.code).toBe(1);
    expect(r.stderr).toContain('error applying patch: invalid ApplyConfiguration: may not mutate atomic arrays, maps or structs: .spec.tags');
  });

  it('--schema: an OpenAPI v3 document types the kinds it names', async () => {
    const dir = files(ADD_PORT);
    const ok = await run(applyArgs(dir, '--schema', join(dir, 'widget-openapi.json')));
    expect(ok.code).toBe(0);
    expect(JSON.parse(ok.stdout).spec.ports).toHaveLength(2);
    const atomic = await run(applyArgs(files(SET_TAGS), '--schema', join(dir, 'widget-openapi.json')));
    expect(atomic.code).toBe(1);
    expect(atomic.stderr).toContain('may not mutate atomic arrays, maps or structs: .spec.tags');
  });

  it('a kind without a schema is the apiserver error by default, for JSONPatch mutations too', async () => {
    const message = 'Resource kind example.com/v1, Kind=Widget not found. There can be a delay between when CustomResourceDefinitions are created and when they are available.';
    const dir = files(ADD_PORT);
    const r = await run(applyArgs(dir));
    expect(r.code).toBe(1);
    expect(r.stderr).toContain(message);
    const explicit = await run(applyArgs(dir, '--unknown-schema', 'error'));
    expect(explicit.stderr).toContain(message);
    const jsonPatch = await run(applyArgs(files('[JSONPatch{op: "add", path: "/spec/tags/-", value: "b"}]', 'JSONPatch')));
    expect(jsonPatch.code).toBe(1);
    expect(jsonPatch.stderr).toContain(message);
  });

  it('--unknown-schema deduced merges with the deduced schema (maps granular, lists atomic and replaced)', async () => {
    const dir = files(ADD_PORT);
    const r = await run(applyArgs(dir, '--unknown-schema', 'deduced'));
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    // Undeclared fields are not guarded (findAtomics follows declared fields only): the atomic list is replaced.
    expect(JSON.parse(r.stdout).spec.ports).toStrictEqual([{ name: 'metrics', port: 9090 }]);
  });

  it('kinds given to one run do not leak into the next', async () => {
    const dir = files(ADD_PORT);
    expect((await run(applyArgs(dir, '--crd', join(dir, 'crd.yaml')))).code).toBe(0);
    const after = await run(applyArgs(dir));
    expect(after.code).toBe(1);
    expect(after.stderr).toContain('Resource kind example.com/v1, Kind=Widget not found');
  });

  it('reports a bad CRD at file:line:col and a bad --unknown-schema as usage errors', async () => {
    const dir = files(ADD_PORT);
    const bad = await run(applyArgs(dir, '--crd', join(dir, 'bad-crd.yaml')));
    expect(bad.code).toBe(2);
    const line = WIDGET_CRD.split('\n').findIndex((l) => l.includes('x-kubernetes-list-type: map')) + 1;
    expect(bad.stderr).toMatch(new RegExp(`bad-crd\\.yaml:${line}:\\d+: error TM2002: OpenAPI schema: .*unknown list type bag`));
    const missing = await run(applyArgs(dir, '--crd', join(dir, 'nowhere.yaml')));
    expect(missing.code).toBe(2);
    expect(missing.stderr).toContain('TM1004');
    const usage = await run(applyArgs(dir, '--unknown-schema', 'guess'));
    expect(usage.code).toBe(2);
    expect(usage.stderr).toContain('--unknown-schema must be error or deduced, not "guess"');
  });

  it('documents the flags in --help', async () => {
    const r = await run(['apply', '--help']);
    expect(r.stdout).toContain('--crd FILE');
    expect(r.stdout).toContain('--schema FILE');
    expect(r.stdout).toContain('--unknown-schema MODE');
  });
});
