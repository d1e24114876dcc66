/**
 * The documents every differential case runs on: fields present, missing, null, of other types, empty.
 * Values avoid the corners where transmute's CEL engine is known to differ from cel-go (see the report in
 * the jmes-cel tests): bare quantity suffixes ("m", "Ki"), astral-plane string ordering, an empty `old` in replace.
 */
import type { Doc } from './harness.js';

export type { Doc };

const POD = {
  apiVersion: 'v1',
  kind: 'Pod',
  metadata: {
    name: 'web-1',
    namespace: 'prod',
    labels: { app: 'web', tier: '', 'app.kubernetes.io/name': 'web', team: 'a' },
    annotations: { 'x/y': 'z', note: 'héllo wörld', num: '42', big: '1e3', list: '["a","b"]', dur: '90s', mem: '128Mi' },
  },
  spec: {
    containers: [
      {
        name: 'nginx',
        image: 'nginx:1.25',
        ports: [{ containerPort: 80, protocol: 'TCP' }, { containerPort: 443 }],
        env: [{ name: 'A', value: '1' }],
        resources: { limits: { memory: '128Mi', cpu: '500m' } },
      },
      { name: 'side', image: 'docker.io/busybox', ports: [], args: ['-c', 'echo'] },
    ],
    initContainers: [],
    replicas: 3,
    ratio: 0.25,
    big: 1234567.5,
    small: 0.00001,
    neg: -7,
    flag: true,
    off: false,
    empty: '',
    none: null,
    words: ['b', 'a', 'c', 'a'],
    nums: [3, 1.5, -2, 10],
    mixed: [1, 'a', null, true, [1], { a: 1 }],
    nested: [[1, 2], [3], 4, []],
    obj: { x: 1, y: 'two', z: null },
    text: 'Hello, World',
    spaced: '  pad  ',
    path: 'a/b/../c',
    csv: 'a,b,,c',
    b64: 'aGVsbG8=',
    upper: 'MiXeD',
    version: '1.2.3',
    quoted: 'say "hi" <b>&',
  },
};

export const DOCS: Doc[] = [
  { name: 'pod', object: POD, element: POD.spec.containers[0], foo: 'bar' },
  { name: 'minimal', object: { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'x' } }, element: { name: 'only' }, foo: null },
  { name: 'wrong types', object: { kind: 7, metadata: 'str', spec: [1, 2] }, element: 'scalar', foo: 3 },
  {
    name: 'nulls',
    object: {
      kind: null,
      metadata: { name: null, namespace: null, labels: null, annotations: null },
      spec: { containers: null, replicas: null, words: null, nums: null, obj: null, text: null, flag: null, nested: null, upper: null, csv: null },
    },
    element: null,
    foo: [1, 2],
  },
  {
    name: 'empties',
    object: {
      kind: '',
      metadata: { name: '', namespace: '', labels: {}, annotations: {} },
      spec: { containers: [], words: [], nums: [], mixed: [], nested: [], obj: {}, text: '', replicas: 0, ratio: 0, flag: false, upper: '', csv: '', path: '', spaced: '', empty: '' },
    },
    element: {},
    foo: { k: 'v' },
  },
  {
    name: 'other types',
    object: {
      kind: ['Pod'],
      metadata: { name: 5, namespace: true, labels: { app: 7, tier: null }, annotations: { note: 3 } },
      spec: {
        containers: 'x',
        replicas: '3',
        ratio: 'a',
        words: 'abc',
        nums: [1, '2'],
        obj: [1],
        text: 42,
        flag: 'true',
        nested: { a: [1] },
        upper: 12,
        csv: 7,
        spaced: false,
        path: [],
        big: 1e21,
        small: 1e-7,
        neg: -0.5,
      },
    },
    element: { name: 12, image: null },
    foo: true,
  },
  { name: 'empty object', object: {}, element: [], foo: '' },
];

/**
 * Documents that respect the typed scope (harness.ts TYPED_SCOPE): the object is a Pod as the API server
 * writes it (apiVersion, kind, metadata, spec and status present; strings where the schema says string;
 * lists possibly null), the element a container (its `resources` present). Fields the Pod schema does not
 * declare (spec.replicas, spec.words...) are dyn and hold anything.
 */
const TYPED_POD = {
  ...POD,
  spec: { ...POD.spec, containers: POD.spec.containers.map((c) => ({ resources: {}, ...c })) },
  status: {},
};

export const TYPED_DOCS: Doc[] = [
  { name: 'pod', object: TYPED_POD, element: TYPED_POD.spec.containers[0], foo: 'bar' },
  { name: 'minimal', object: { apiVersion: 'v1', kind: 'Pod', metadata: {}, spec: {}, status: {} }, element: { resources: {} }, foo: null },
  {
    name: 'empties',
    object: {
      apiVersion: 'v1',
      kind: 'Pod',
      metadata: { name: '', namespace: '', labels: {}, annotations: {} },
      spec: { containers: [], initContainers: [], words: [], nums: [], obj: {}, text: '', replicas: 0, flag: false, upper: '', csv: '', empty: '' },
      status: {},
    },
    element: { name: '', image: '', ports: [], args: [], env: [], resources: {} },
    foo: '',
  },
  {
    name: 'null lists',
    object: {
      apiVersion: 'v1',
      kind: 'Pod',
      metadata: { name: 'n', labels: { app: '' }, finalizers: null },
      spec: { containers: null, initContainers: null, replicas: null, words: null },
      status: {},
    },
    element: { name: 'c', ports: null, args: null, env: null, resources: {} },
    foo: [1, 2],
  },
  {
    name: 'special strings',
    object: {
      apiVersion: 'v1',
      kind: 'Pod',
      metadata: { name: 'a*b', namespace: 'ns?', labels: { app: '{{request.operation}}', tier: 'x\\', team: '*' }, annotations: { note: 'ÄÖ', 'x/y': '}}' } },
      spec: {
        containers: [
          { name: '{{x}}', image: 'i*', resources: {}, ports: [{ containerPort: 8080, protocol: 'UDP' }] },
          { name: 'c?', image: '\\', resources: {}, env: [{ name: 'A', value: '{{' }] },
        ],
        initContainers: [{ name: 'init', image: 'busybox', resources: {} }],
      },
      status: {},
    },
    element: { name: '*', image: '{{request.namespace}}', resources: {}, args: ['*', '?'] },
    foo: { k: '*' },
  },
];
