/**
 * A Kyverno foreach over joined lists whose strategic merge writes `spec.containers` through the condition
 * `(name): "{{element.name}}"` (kyverno/policies add-default-resources), translated to MAP and re-executed
 * against the interpreter's Kyverno over Pods whose init and ephemeral containers share names with their
 * containers, in both orders, with `+()` leaves (a container moves once) and plain ones (it moves at every
 * turn of its name).
 */
import { describe, expect, it } from 'vitest';
import { generateMap } from '../../../src/dialects/map/generate.js';
import type { JsonObject } from '../../../src/ir/json.js';
import { outcome, podRule, refusal, toMap } from './kyverno-support.js';

const rule = (element: string, extra = ''): string => `preconditions:
  any:
  - key: "{{request.operation || 'BACKGROUND'}}"
    operator: AnyIn
    value: [CREATE, UPDATE]
mutate:
  foreach:
  - list: "request.object.spec.[ephemeralContainers, initContainers, containers][]"
${extra}    patchStrategicMerge:
      spec:
        containers:
        - (name): "{{element.name}}"
${element}`;

const ADD_IF_ABSENT = `          resources:
            requests:
              +(memory): "100Mi"
              +(cpu): "100m"
`;
const PLAIN = `          imagePullPolicy: Always
          resources:
            requests:
              +(cpu): "100m"
`;

/** A deterministic stream of numbers in [0, 1). */
function seeded(seed: number): () => number {
  let s = seed >>> 0;
  return () => {
    s = (Math.imul(s ^ (s >>> 15), 0x2c1b3c6d) + 0x6d2b79f5) >>> 0;
    return s / 2 ** 32;
  };
}

const NAMES = ['a', 'b', 'c', 'd', 'e'];

function container(name: string, next: () => number): JsonObject {
  const c: JsonObject = { name, image: `img-${name}` };
  const r = next();
  if (r < 0.25) c.resources = { requests: { memory: '1Gi' } };
  else if (r < 0.4) c.resources = { requests: { memory: '1Gi', cpu: '1' } };
  else if (r < 0.5) c.resources = { limits: { cpu: '2' } };
  return c;
}

/** Pods whose containers have unique names, with init and ephemeral containers drawn from the same names. */
function pods(count: number): JsonObject[] {
  const next = seeded(17);
  const pick = (n: number): string[] => [...NAMES].sort(() => next() - 0.5).slice(0, n);
  const out: JsonObject[] = [];
  for (let p = 0; p < count; p++) {
    const spec: JsonObject = { containers: pick(1 + Math.floor(next() * 4)).map((n) => container(n, next)) };
    if (next() < 0.6) spec.initContainers = pick(Math.floor(next() * 3)).map((n) => container(n, next));
    if (next() < 0.3) spec.ephemeralContainers = pick(1 + Math.floor(next() * 2)).map((n) => container(n, next));
    out.push({ apiVersion: 'v1', kind: 'Pod', metadata: { name: `p${p}`, namespace: 'prod' }, spec });
  }
  return out;
}

function sameAsKyverno(element: string, extra = ''): void {
  const source = podRule('joined-merge', rule(element, extra));
  const map = toMap(source);
  let changed = 0;
  let reordered = 0;
  for (const object of pods(150)) {
    const want = outcome(source, object);
    if (JSON.stringify(want) !== JSON.stringify(object)) changed++;
    const names = (o: unknown): string => JSON.stringify(((o as JsonObject).spec as JsonObject | undefined)?.containers);
    if (!('denied' in (want as JsonObject)) && names(want).replace(/"resources":\{[^}]*\}\}?,?/g, '') !== names(object).replace(/"resources":\{[^}]*\}\}?,?/g, '')) reordered++;
    expect(outcome(map, object), JSON.stringify(object)).toEqual(want);
  }
  // The Pods exercise the moves, not only the merges.
  expect(changed).toBeGreaterThan(50);
  expect(reordered).toBeGreaterThan(10);
}

describe('Kyverno foreach strategic merge over joined lists into containers by name, to MAP', () => {
  it("gives Kyverno's result with +() leaves (add-default-resources), Descending", () => sameAsKyverno(ADD_IF_ABSENT));
  it("gives Kyverno's result with +() leaves, Ascending", () => sameAsKyverno(ADD_IF_ABSENT, '    order: Ascending\n'));
  it("gives Kyverno's result with a plain leaf beside +() ones, in both orders", () => {
    sameAsKyverno(PLAIN);
    sameAsKyverno(PLAIN, '    order: Ascending\n');
  });
  it("gives Kyverno's result with a precondition on the element", () => {
    const pre = `    preconditions:
      all:
      - key: "{{ element.image }}"
        operator: NotEquals
        value: img-b
`;
    sameAsKyverno(ADD_IF_ABSENT, pre);
  });

  it("gives Kyverno's result on the Pod template of a Deployment (the autogen rule)", () => {
    const source = podRule('joined-merge', rule(ADD_IF_ABSENT), true);
    const map = toMap(source);
    let changed = 0;
    for (const p of pods(60)) {
      const deployment = { apiVersion: 'apps/v1', kind: 'Deployment', metadata: { name: 'd', namespace: 'prod' }, spec: { selector: { matchLabels: { app: 'x' } }, template: { metadata: { labels: { app: 'x' } }, spec: p.spec } } };
      const want = outcome(source, deployment);
      if (JSON.stringify(want) !== JSON.stringify(deployment)) changed++;
      expect(outcome(map, deployment), JSON.stringify(deployment)).toEqual(want);
    }
    expect(changed).toBeGreaterThan(20);
  });

  it('fails where two containers share a name, as its note says', () => {
    const source = podRule('joined-merge', rule(ADD_IF_ABSENT));
    const notes = generateMap(source)
      .diagnostics.filter((d) => d.severity === 'warning')
      .map((d) => d.message);
    expect(notes.some((n) => n.includes('where two elements of the written list share a name, the CEL fails'))).toBe(true);
    const twins = { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'p', namespace: 'prod' }, spec: { containers: [{ name: 'a' }, { name: 'a' }] } };
    expect(outcome(toMap(source), twins)).toEqual({ denied: true });
  });

  it('refuses what the translation cannot keep', () => {
    expect(refusal(podRule('joined-merge', rule('          image: "{{ element.image }}"\n')))).toContain('the turn that merges it last would decide its value');
    expect(refusal(podRule('joined-merge', rule('          name: x\n')))).toContain('writes its name');
    const plainSelector = rule(ADD_IF_ABSENT).replace('(name): "{{element.name}}"', 'name: "{{element.name}}"');
    expect(refusal(podRule('joined-merge', plainSelector))).toContain('not selected by the condition (name)');
    const listInPlain = `          imagePullPolicy: Always
          env:
          - name: X
            value: "1"
`;
    expect(refusal(podRule('joined-merge', rule(listInPlain)))).toContain('merged at every turn');
  });
});
