/**
 * CEL evaluation benchmarks: the five MAP-representative expressions of the engine study
 * (../shared/reference/cel-tools/bench.mjs) on a three-container Pod, compiled once and evaluated
 * many times. Baseline: a hand-written TypeScript function. Other: @marcbachmann/cel-js, with the
 * closest expression it can parse where it cannot express the MAP form (marked "(variant)").
 */
import * as marc from '@marcbachmann/cel-js';
import { compile, toJson, MAP_VARIABLES, type CelProgram } from '../src/cel/index.js';
import { CelObject } from '../src/cel/values.js';
import type { Benchmark } from './types.js';

const pod = {
  apiVersion: 'v1',
  kind: 'Pod',
  metadata: { name: 'web-0', namespace: 'default', labels: { app: 'web', team: 'payments' }, annotations: { 'example.com/owner': 'alice' } },
  spec: {
    replicas: 3,
    serviceAccountName: 'default',
    containers: [
      { name: 'app', image: 'corp.io/app:1.0', ports: [{ containerPort: 8080, protocol: 'TCP' }], resources: { limits: { memory: '1Gi', cpu: '500m' } } },
      { name: 'sidecar', image: 'docker.io/envoy:1.29', ports: [{ containerPort: 9901, protocol: 'TCP' }], resources: { limits: { memory: '256Mi' } } },
      { name: 'logger', image: 'corp.io/logger:2.3', ports: [] as unknown[] },
    ],
    volumes: [{ name: 'data', emptyDir: {} }],
  },
};
type Pod = typeof pod;
type Ctx = { object: Pod; oldObject: null; params: Record<string, string> };
const ctx: Ctx = { object: pod, oldObject: null, params: { registry: 'corp.io', tag: 'v2' } };

const escapeKey = (s: string) => s.replace(/~/g, '~0').replace(/\//g, '~1');

interface Case {
  name: string;
  native: string;
  /** What marc evaluates when it cannot parse the native form. */
  marcVariant?: string;
  js: (c: Ctx) => unknown;
}

const CASES: Case[] = [
  {
    name: 'cel E1 all/startsWith',
    native: 'object.spec.containers.all(c, c.image.startsWith("corp.io/"))',
    js: (c) => c.object.spec.containers.every((x) => x.image.startsWith('corp.io/')),
  },
  {
    name: 'cel E2 optional chain + exists',
    native: 'object.?metadata.?labels.?team.orValue("none") == "payments" && !object.spec.containers.exists(c, c.name == "istio-proxy")',
    js: (c) => ((c.object.metadata?.labels as Record<string, string> | undefined)?.['team'] ?? 'none') === 'payments' && !c.object.spec.containers.some((x) => x.name === 'istio-proxy'),
  },
  {
    name: 'cel E3 Object{} apply configuration',
    native:
      'Object{spec: Object.spec{containers: object.spec.containers.map(c, Object.spec.containers{name: c.name, image: c.image.startsWith("corp.io/") ? c.image : "corp.io/" + c.image})}}',
    marcVariant:
      '{"spec": {"containers": object.spec.containers.map(c, {"name": c.name, "image": c.image.startsWith("corp.io/") ? c.image : "corp.io/" + c.image})}}',
    js: (c) => ({
      spec: { containers: c.object.spec.containers.map((x) => ({ name: x.name, image: x.image.startsWith('corp.io/') ? x.image : 'corp.io/' + x.image })) },
    }),
  },
  {
    name: 'cel E4 JSONPatch list',
    native:
      'has(object.metadata.labels) ? [JSONPatch{op: "add", path: "/metadata/labels/" + jsonpatch.escapeKey("example.com/team"), value: "payments"}] : [JSONPatch{op: "add", path: "/metadata/labels", value: {"example.com/team": "payments"}}]',
    marcVariant:
      'has(object.metadata.labels) ? [{"op": "add", "path": "/metadata/labels/" + jsonpatch.escapeKey("example.com/team"), "value": dyn("payments")}] : [{"op": "add", "path": "/metadata/labels", "value": dyn({"example.com/team": "payments"})}]',
    js: (c) =>
      c.object.metadata.labels !== undefined
        ? [{ op: 'add', path: '/metadata/labels/' + escapeKey('example.com/team'), value: 'payments' }]
        : [{ op: 'add', path: '/metadata/labels', value: { 'example.com/team': 'payments' } }],
  },
  {
    name: 'cel E5 strings + int arithmetic',
    native:
      'object.spec.containers.filter(c, c.image.split(":")[0].endsWith("/app") || c.name.size() > 6).map(c, c.name.upperAscii() + "-" + string(object.spec.replicas * 2 + size(c.ports)))',
    js: (c) =>
      c.object.spec.containers
        .filter((x) => x.image.split(':')[0]!.endsWith('/app') || [...x.name].length > 6)
        .map((x) => x.name.toUpperCase() + '-' + String(c.object.spec.replicas * 2 + x.ports.length)),
  },
];

const N = 2000;

class JsonPatchNS {}

function marcSetup(): marc.Environment {
  return new marc.Environment({ unlistedVariablesAreDyn: true, enableOptionalTypes: true, homogeneousAggregateLiterals: false })
    .registerType('JsonPatchNS', JsonPatchNS)
    .registerConstant('jsonpatch', 'JsonPatchNS', new JsonPatchNS())
    .registerFunction('JsonPatchNS.escapeKey(string): string', (_ns: unknown, s: string) => escapeKey(s));
}

/** marc reads JS numbers as doubles; Kubernetes JSON integers must be BigInt for it. */
function bigIntInts(v: unknown): unknown {
  if (typeof v === 'number' && Number.isInteger(v)) return BigInt(v);
  if (Array.isArray(v)) return v.map(bigIntInts);
  if (v && typeof v === 'object') return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, bigIntInts(x)]));
  return v;
}

function plain(v: unknown): unknown {
  if (v instanceof CelObject) return toJson(v);
  if (v instanceof Map) return Object.fromEntries([...v].map(([k, x]) => [String(k), plain(x)]));
  if (Array.isArray(v)) return v.map(plain);
  if (typeof v === 'bigint') return Number(v);
  if (v && typeof v === 'object') return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, plain(x)]));
  return v;
}

export const benchmarks: Benchmark[] = CASES.map((c) => ({
  name: c.name,
  setup() {
    const compiled = compile(c.native, { variables: MAP_VARIABLES });
    if (!compiled.ok) throw new Error(`${c.name}: ${compiled.diagnostics[0]!.message}`);
    const program: CelProgram = compiled.value;
    const env = marcSetup();
    const marcFn = env.parse(c.marcVariant ?? c.native);
    const marcCtx = bigIntInts(ctx) as Record<string, unknown>;
    const act = ctx as unknown as Record<string, unknown>;
    let sink: unknown;
    return {
      items: N,
      run() {
        for (let i = 0; i < N; i++) sink = program.eval(act);
      },
      baseline() {
        for (let i = 0; i < N; i++) sink = c.js(ctx);
      },
      others: {
        [c.marcVariant ? 'cel-js (variant)' : 'cel-js']: () => {
          for (let i = 0; i < N; i++) sink = marcFn(marcCtx);
        },
      },
      verify() {
        const r = program.eval(act);
        if (!r.ok) throw new Error(`${c.name}: ${r.error}`);
        const ours = JSON.stringify(plain(r.value));
        const theirs = JSON.stringify(c.js(ctx));
        if (ours !== theirs) throw new Error(`${c.name}: ${ours} != ${theirs}`);
        const m = JSON.stringify(plain(marcFn(marcCtx)));
        if (m !== theirs) throw new Error(`${c.name} (cel-js): ${m} != ${theirs}`);
        void sink;
      },
    };
  },
}));
