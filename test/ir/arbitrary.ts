/**
 * Seeded random IR for round-trip tests: every node kind, awkward names (`__proto__`, dots, quotes,
 * unicode, empty), every segment kind and test. Deterministic per seed so failures reproduce.
 */
import type { Origin } from '../../src/diagnostics/span.js';
import type { JsonScalar, JsonValue } from '../../src/ir/json.js';
import type { MatchSpec } from '../../src/ir/match.js';
import type { Guard, JsonPatchStep, Op, Policy, Rule, Value } from '../../src/ir/nodes.js';
import type { Path, PathRoot, Segment, SegmentTest } from '../../src/ir/path.js';

export type Random = () => number;

/** mulberry32: small, fast, good enough for test data. */
export function rng(seed: number): Random {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const int = (r: Random, n: number) => Math.floor(r() * n);
const pick = <T>(r: Random, xs: readonly T[]): T => xs[int(r, xs.length)]!;
const chance = (r: Random, p: number) => r() < p;

const NAMES = ['metadata', 'labels', 'app', 'spec', 'containers', 'a-b', '$x', '_y', '__proto__', 'constructor', 'a.b', 'x/y', 'with space', '', '9', 'quo"te', 'ünï', 'tab\there', 'null', 'true', 'object'];
const ROOTS: readonly PathRoot[] = ['object', 'oldObject', 'request', 'params', 'namespaceObject', 'vars'];
const TESTS: readonly (SegmentTest | undefined)[] = [undefined, undefined, 'exist', 'notExist'];
const SCALARS: readonly JsonScalar[] = ['nginx', '', 'a"b', 0, -3, 1.5, 1e21, true, false, null];

export const NO_ORIGIN: Origin = { file: 'gen', line: 1, col: 1, endLine: 1, endCol: 1, dialect: 'gen' };

function withTest<T extends object>(r: Random, s: T): T {
  const test = pick(r, TESTS);
  return test ? { ...s, test } : s;
}

export function randomSegment(r: Random): Segment {
  switch (int(r, 7)) {
    case 0:
    case 1:
      return withTest(r, { kind: 'field', name: pick(r, NAMES) });
    case 2:
      return withTest(r, { kind: 'index', index: int(r, 7) - 2 });
    case 3:
      return { kind: 'append' };
    case 4:
      return { kind: 'each' };
    case 5:
      return withTest(r, { kind: 'keyed', key: pick(r, NAMES), value: pick(r, SCALARS), create: chance(r, 0.5) });
    default:
      return withTest(r, { kind: 'keyedGlob', key: pick(r, NAMES) });
  }
}

export function randomPath(r: Random): Path {
  const segments: Segment[] = [];
  const n = int(r, 5);
  for (let i = 0; i < n; i++) segments.push(randomSegment(r));
  return { root: pick(r, ROOTS), segments };
}

export function randomJson(r: Random, depth = 0): JsonValue {
  const k = depth > 2 ? int(r, 3) : int(r, 5);
  if (k < 3) return pick(r, SCALARS);
  if (k === 3) return Array.from({ length: int(r, 3) }, () => randomJson(r, depth + 1));
  const o: Record<string, JsonValue> = {};
  for (let i = int(r, 3); i > 0; i--) {
    const key = pick(r, NAMES);
    Object.defineProperty(o, key, { value: randomJson(r, depth + 1), enumerable: true, writable: true, configurable: true });
  }
  return o;
}

const EXPRS = ['object.metadata.name', 'object.a &&\n  object.b\n', '  lead\n\ntrail  ', 'has(object.spec) && "x\\n" != "y"', "request.operation == 'CREATE'", ''];

export function randomValue(r: Random, o: Origin = NO_ORIGIN): Value {
  switch (int(r, 9)) {
    case 8:
      return { kind: 'templated', language: 'kyverno', json: pick(r, [{ '{{ k }}': ['a-{{ x.y }}', 1] }, 'p{{ q }}', randomJson(r)]), origin: o };
    case 0:
    case 1:
      return { kind: 'literal', json: randomJson(r), origin: o };
    case 2:
      return { kind: 'ref', path: randomPath(r), origin: o };
    case 3:
      return { kind: 'fromMetadata', field: pick(r, ['name', 'namespace'] as const), origin: o };
    case 4:
      return {
        kind: 'template',
        parts: pick(r, [['a-', { jmes: 'request.object.metadata.name' }, '-b'], [{ jmes: 'x' }], ['{{ not a hole', { jmes: ' y ' }, ''], []]),
        origin: o,
      };
    case 5:
      return { kind: 'cel', expr: { text: pick(r, EXPRS), origin: o }, origin: o };
    case 6:
      return { kind: 'jmes', expr: { text: pick(r, EXPRS), origin: o }, origin: o };
    default: {
      const v: Value = { kind: 'external', provider: pick(r, ['p', 'my provider']), source: pick(r, ['ValueAtLocation', 'Username'] as const), failurePolicy: pick(r, ['Fail', 'Ignore', 'UseDefault'] as const), origin: o };
      return chance(r, 0.5) ? { ...v, default: 'd"x' } : v;
    }
  }
}

export function randomGuard(r: Random, depth = 0, o: Origin = NO_ORIGIN): Guard {
  switch (depth > 2 ? int(r, 8) : int(r, 11)) {
    case 0:
      return { kind: pick(r, ['exists', 'notExists'] as const), path: randomPath(r), origin: o };
    case 1:
      return { kind: pick(r, ['eq', 'neq'] as const), path: randomPath(r), value: randomValue(r, o), origin: o };
    case 2:
      return { kind: pick(r, ['in', 'notIn'] as const), path: randomPath(r), values: Array.from({ length: int(r, 3) }, () => randomValue(r, o)), origin: o };
    case 3:
      return { kind: 'match', path: randomPath(r), pattern: pick(r, ['web-*', '?x', '']), origin: o };
    case 4:
      return { kind: 'const', value: chance(r, 0.5), origin: o };
    case 5:
      return { kind: 'cel', expr: { text: pick(r, EXPRS), origin: o }, origin: o };
    case 6:
    case 7:
      return { kind: 'jmes', expr: { text: pick(r, EXPRS), origin: o }, origin: o };
    case 8:
      return { kind: 'not', arg: randomGuard(r, depth + 1, o), origin: o };
    default:
      return { kind: pick(r, ['and', 'or'] as const), args: Array.from({ length: int(r, 3) }, () => randomGuard(r, depth + 1, o)), origin: o };
  }
}

function randomStep(r: Random, o: Origin): JsonPatchStep {
  const op = pick(r, ['add', 'remove', 'replace', 'move', 'copy', 'test'] as const);
  const step = { op, path: pick(r, ['/a', '/a~1b/0', '', '/-']) } as JsonPatchStep;
  if (op === 'move' || op === 'copy') step.from = '/x';
  if (op === 'add' || op === 'replace' || op === 'test') step.value = randomValue(r, o);
  step.origin = o;
  return step;
}

export function randomOp(r: Random, depth = 0, o: Origin = NO_ORIGIN): Op {
  const ops = (): Op[] => Array.from({ length: int(r, 3) }, () => randomOp(r, depth + 1, o));
  switch (depth > 2 ? int(r, 6) : int(r, 9)) {
    case 0:
      return { kind: 'set', path: randomPath(r), value: randomValue(r, o), origin: o };
    case 1:
      return { kind: 'remove', path: randomPath(r), origin: o };
    case 2:
      return { kind: 'setMembers', path: randomPath(r), values: Array.from({ length: int(r, 3) }, () => randomValue(r, o)), mode: pick(r, ['merge', 'prune'] as const), origin: o };
    case 3:
      return { kind: 'merge', path: randomPath(r), value: randomValue(r, o), strategy: pick(r, ['json', 'smp', 'ssa'] as const), origin: o };
    case 4: {
      const op = { kind: 'image', path: randomPath(r) } as Op & { kind: 'image' };
      if (chance(r, 0.5)) op.domain = 'registry.io';
      if (chance(r, 0.5)) op.repo = 'lib/x';
      if (chance(r, 0.5)) op.tag = ':v1';
      op.origin = o;
      return op;
    }
    case 5: {
      const name = pick(r, [...NAMES.filter((n) => n !== ''), 'lazy']);
      return chance(r, 0.5) ? { kind: 'let', name, value: randomValue(r, o), lazy: true, origin: o } : { kind: 'let', name, value: randomValue(r, o), origin: o };
    }
    case 6: {
      const steps = Array.from({ length: int(r, 3) }, () => randomStep(r, o));
      const profile = pick(r, ['rfc6902', 'kyverno', 'evanphx-v4'] as const);
      return chance(r, 0.5) ? { kind: 'jsonPatch', steps, stepsFrom: randomValue(r, o), profile, origin: o } : { kind: 'jsonPatch', steps, profile, origin: o };
    }
    case 7: {
      const then = ops();
      return chance(r, 0.5) ? { kind: 'when', guard: randomGuard(r, 0, o), then, else: ops(), origin: o } : { kind: 'when', guard: randomGuard(r, 0, o), then, origin: o };
    }
    default: {
      const list = chance(r, 0.5) ? randomPath(r) : randomValue(r, o);
      const op: Op = { kind: 'forEach', list, bind: pick(r, NAMES.filter((n) => n !== '')), order: pick(r, ['asc', 'desc'] as const), body: ops(), origin: o };
      return chance(r, 0.5) ? { ...op, indexBind: pick(r, ['i', 'idx', 'object']) } : op;
    }
  }
}

function randomMatch(r: Random): MatchSpec {
  const m: MatchSpec = { globs: pick(r, ['wildcard', 'prefixSuffix', 'exact'] as const) };
  if (chance(r, 0.5)) m.any = [{ kinds: [{ group: 'apps', kind: 'Deployment' }], namespaces: ['prod-*'] }];
  if (chance(r, 0.3)) m.all = [{ labelSelector: { matchExpressions: [{ key: 'a', operator: 'Exists' }] }, scope: 'Namespaced' }];
  if (chance(r, 0.3)) m.exclude = { any: [{ userInfo: { groups: ['system:masters'] }, annotations: { __proto__x: 'y' } }] };
  return m;
}

export function randomPolicy(r: Random, o: Origin = NO_ORIGIN): Policy {
  const rules: Rule[] = Array.from({ length: 1 + int(r, 3) }, (_, i) => {
    const rule: Rule = { name: pick(r, [`rule-${i}`, 'object', 'a.b', '']), guards: Array.from({ length: int(r, 2) }, () => randomGuard(r, 0, o)), body: Array.from({ length: int(r, 4) }, () => randomOp(r, 0, o)), origin: o };
    return chance(r, 0.3) ? { ...rule, match: randomMatch(r) } : rule;
  });
  const semantics = pick(r, [{ order: 'sequential' }, { order: 'sequential', namespace: 'implied' }, { order: 'fixpoint', maxPasses: 3 }, { order: 'ordered', reinvocation: 'ifNeeded', failurePolicy: 'ignore' }] as const);
  return {
    id: pick(r, ['p', 'add-team-label', 'my.policy', 'policy', 'vars']),
    match: randomMatch(r),
    ...(chance(r, 0.2) ? { lets: [{ kind: 'let' as const, name: pick(r, ['$params', 'x']), value: randomValue(r, o), origin: o }] } : {}),
    guards: Array.from({ length: int(r, 3) }, () => randomGuard(r, 0, o)),
    rules,
    semantics: { ...semantics },
    origin: o,
  };
}
