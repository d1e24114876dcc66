/**
 * A strategic merge into a list kyaml merges by several keys (a container's ports by containerPort and
 * protocol; a sidecar injected with `ports: [{containerPort: 8080, name: http}]`, rodrigorfk's
 * nginx-inject-sidecar and juliencanon's add-prometheus-exporter): MAP and MutatingPolicy must give what
 * Kyverno gives, including kyaml's look-up of an element by the keys it has, and fail where the translation
 * cannot follow kyaml's bookkeeping (src/dialects/map/kyverno/multi-key-list.ts).
 */
import { describe, expect, it } from 'vitest';
import type { JsonObject, JsonValue } from '../../../src/ir/json.js';
import { mulberry32, pick } from '../../support/random.js';
import { outcome, refusal, smpPolicy, translatedTo } from './kyverno-support.js';

const pod = (ports: JsonValue | undefined, more: JsonObject[] = []): JsonObject => ({
  apiVersion: 'v1',
  kind: 'Pod',
  metadata: { name: 'p', namespace: 'prod' },
  spec: { containers: [{ name: 'app', image: 'nginx', ...(ports === undefined ? {} : { ports }) }, ...more] },
});

/** Resource port lists the guard admits: complete, without protocol, several, none, empty. */
const ADMITTED: JsonObject[] = [
  pod(undefined),
  pod([]),
  pod([{ containerPort: 80, protocol: 'TCP' }]),
  pod([{ containerPort: 8080, protocol: 'TCP', name: 'web' }]),
  pod([{ containerPort: 80 }]),
  pod([{ containerPort: 8080 }]),
  pod([{ containerPort: 80, protocol: 'TCP' }, { containerPort: 8080, protocol: 'TCP', hostPort: 18080 }, { containerPort: 9090, protocol: 'UDP' }]),
  pod([{ containerPort: 9090, protocol: 'UDP' }, { containerPort: 443, protocol: 'TCP' }]),
  pod([{ containerPort: 9090, protocol: '' }]),
  pod([{ containerPort: 9090, protocol: null, hostPort: 19090 }]),
  pod([{ containerPort: 9090, hostPort: 19090 }, { containerPort: 80, protocol: 'TCP' }]),
  pod([{ containerPort: '8080', protocol: 'TCP' }]),
];

/** Resource port lists kyaml's bookkeeping mangles (elements sharing a containerPort, or without one). */
const REFUSED_AT_RUNTIME: JsonObject[] = [
  pod([{ containerPort: 8080, protocol: 'UDP' }, { containerPort: 8080, protocol: 'TCP' }]),
  pod([{ containerPort: 8080, protocol: 'TCP' }, { containerPort: 8080 }]),
  pod([{ protocol: 'TCP' }]),
  pod([{ containerPort: 53, protocol: 'UDP' }, { containerPort: 53, protocol: 'TCP' }]),
];

function expectKyvernosResults(patch: string, objects: readonly JsonObject[]): void {
  const source = smpPolicy('multi-key', patch);
  for (const to of ['map', 'kyverno-mpol'] as const) {
    const target = translatedTo(source, to);
    for (const o of objects) expect(outcome(target, o), `${to} ${JSON.stringify(o)}`).toEqual(outcome(source, o));
  }
}

function expectRefusedAtRuntime(patch: string, objects: readonly JsonObject[]): void {
  const source = smpPolicy('multi-key', patch);
  for (const to of ['map', 'kyverno-mpol'] as const) {
    const target = translatedTo(source, to);
    for (const o of objects) expect(outcome(target, o), `${to} ${JSON.stringify(o)}`).toEqual({ denied: true });
  }
}

const SIDECAR_PORT = `spec:
  containers:
  - name: app
    ports:
    - containerPort: 8080
      name: http`;

describe('a strategic merge into ports, merged by containerPort and protocol', () => {
  it('an element without protocol is merged into the port of its containerPort, or prepended', () => {
    const source = smpPolicy('multi-key', SIDECAR_PORT);
    // Kyverno's own results, so that the comparison below compares something: merged, prepended, created.
    expect(outcome(source, ADMITTED[3]!)).toMatchObject({ spec: { containers: [{ ports: [{ containerPort: 8080, protocol: 'TCP', name: 'http' }] }] } });
    expect(outcome(source, ADMITTED[2]!)).toMatchObject({ spec: { containers: [{ ports: [{ containerPort: 8080, name: 'http' }, { containerPort: 80 }] }] } });
    expect(outcome(source, ADMITTED[0]!)).toMatchObject({ spec: { containers: [{ ports: [{ containerPort: 8080, name: 'http' }] }] } });
    expectKyvernosResults(SIDECAR_PORT, ADMITTED);
  });

  it('elements giving both keys, or some of them, several at once', () => {
    expectKyvernosResults(
      `spec:
  containers:
  - name: app
    ports:
    - containerPort: 9090
      protocol: UDP
      name: metrics
    - containerPort: 8080
      hostPort: 18080`,
      ADMITTED,
    );
  });

  it('a new sidecar container whose ports are created whole, whatever the other containers hold', () => {
    const patch = `spec:
  containers:
  - name: exporter
    image: prom/node-exporter:v1.9.1
    ports:
    - containerPort: 9100`;
    expectKyvernosResults(patch, ADMITTED);
    // The same container already there: its ports are merged as above.
    const withExporter = ADMITTED.map((p) => pod(undefined, [{ ...((p.spec as JsonObject).containers as JsonObject[])[0]!, name: 'exporter' }]));
    expectKyvernosResults(patch, withExporter);
  });

  it('fails where kyaml collapses elements sharing a containerPort or drops those around one without it', () => {
    const source = smpPolicy('multi-key', SIDECAR_PORT);
    // What Kyverno does there (kustomize's appendListNode re-appends by containerPort alone): not a merge the CEL follows.
    expect(outcome(source, REFUSED_AT_RUNTIME[0]!)).toMatchObject({ spec: { containers: [{ ports: [{ containerPort: 8080, protocol: 'TCP' }, { containerPort: 8080, protocol: 'TCP' }] }] } });
    expectRefusedAtRuntime(SIDECAR_PORT, REFUSED_AT_RUNTIME);
  });

  it('topologySpreadConstraints, merged by topologyKey and whenUnsatisfiable', () => {
    const spread = (constraints: JsonObject[] | undefined): JsonObject => ({
      apiVersion: 'v1',
      kind: 'Pod',
      metadata: { name: 'p' },
      spec: { containers: [{ name: 'app', image: 'nginx' }], ...(constraints === undefined ? {} : { topologySpreadConstraints: constraints }) },
    });
    expectKyvernosResults(
      `spec:
  topologySpreadConstraints:
  - topologyKey: topology.kubernetes.io/zone
    maxSkew: 1
    whenUnsatisfiable: ScheduleAnyway`,
      [
        spread(undefined),
        spread([{ topologyKey: 'kubernetes.io/hostname', maxSkew: 2, whenUnsatisfiable: 'DoNotSchedule' }]),
        spread([{ topologyKey: 'topology.kubernetes.io/zone', maxSkew: 3, whenUnsatisfiable: 'ScheduleAnyway' }]),
        spread([{ topologyKey: 'kubernetes.io/hostname', maxSkew: 2 }, { topologyKey: 'topology.kubernetes.io/zone', maxSkew: 3 }]),
        // Both give both keys: a constraint of its own.
        spread([{ topologyKey: 'topology.kubernetes.io/zone', maxSkew: 3, whenUnsatisfiable: 'DoNotSchedule' }]),
      ],
    );
  });

  it('elements sharing a containerPort, each giving both keys (a DNS sidecar on 53/UDP and 53/TCP)', () => {
    const patch = `spec:
  containers:
  - name: app
    ports:
    - containerPort: 53
      protocol: UDP
      name: dns
    - containerPort: 53
      protocol: TCP
      name: dns-tcp`;
    const complete = ADMITTED.filter((p) => {
      const ports = (((p.spec as JsonObject).containers as JsonObject[])[0]!.ports ?? []) as JsonObject[];
      return ports.every((x) => typeof x.protocol === 'string' && x.protocol !== '');
    });
    expect(complete.length).toBeGreaterThan(3);
    expectKyvernosResults(patch, [...complete, REFUSED_AT_RUNTIME[0]!, REFUSED_AT_RUNTIME[3]!]);
    // A port without protocol beside them: kyaml re-appends by containerPort alone.
    expectRefusedAtRuntime(patch, [pod([{ containerPort: 53 }])]);
  });

  it('refuses patch lists it cannot reduce to a merge by one key', () => {
    const refused = (ports: string): string =>
      refusal(
        smpPolicy(
          'multi-key',
          `spec:
  containers:
  - name: app
    ports:
${ports.replace(/^/gm, '    ')}`,
        ),
      );
    expect(refused(`- protocol: UDP`)).toMatch(/without its first merge key containerPort/);
    expect(refused(`- containerPort: 53\n  protocol: UDP\n- containerPort: 53`)).toMatch(/two elements with the same containerPort/);
    expect(refused(`- containerPort: 53\n  protocol: null`)).toMatch(/the value null of the merge key protocol/);
    expect(refused(`- containerPort: "{{ request.object.metadata.name }}"`)).toMatch(/merge key containerPort/);
  });
});

describe('multi-key lists: random resource and patch lists', () => {
  it('wherever the CEL does not fail, it gives what Kyverno gives', () => {
    const r = mulberry32(17);
    const PORTS = [53, 80, 8080];
    const PROTOCOLS = [undefined, 'TCP', 'UDP', ''];
    const port = (withPort: boolean): JsonObject => {
      const p: JsonObject = {};
      if (withPort) p.containerPort = pick(r, PORTS);
      const protocol = pick(r, PROTOCOLS);
      if (protocol !== undefined) p.protocol = protocol;
      if (r() < 0.5) p.name = pick(r, ['a', 'b']);
      return p;
    };
    let compared = 0;
    let failed = 0;
    for (let round = 0; round < 12; round++) {
      const elements = Array.from({ length: 1 + Math.floor(r() * 2) }, () => {
        const e = port(true);
        if (e.protocol === '') delete e.protocol;
        return e;
      });
      const patch = `spec:\n  containers:\n  - name: app\n    ports:\n${elements.map((e) => `    - ${JSON.stringify(e)}`).join('\n')}`;
      const source = smpPolicy('random-multi-key', patch);
      if (refusal(source) !== '') continue;
      const targets = (['map', 'kyverno-mpol'] as const).map((to) => translatedTo(source, to));
      for (let k = 0; k < 12; k++) {
        // Mostly lists as the API server admits them (distinct containerPorts), sometimes not.
        const ports = Array.from({ length: Math.floor(r() * 4) }, () => port(r() < 0.9));
        const seen = new Set<JsonValue>();
        const object = pod(r() < 0.8 ? ports.filter((x) => !seen.has(x.containerPort ?? null) && seen.add(x.containerPort ?? null)) : ports);
        const expected = outcome(source, object);
        for (const target of targets) {
          const got = outcome(target, object);
          if (JSON.stringify(got) === JSON.stringify({ denied: true }) && JSON.stringify(expected) !== JSON.stringify({ denied: true })) failed++;
          else {
            expect(got, `${patch}\n${JSON.stringify(object)}`).toEqual(expected);
            compared++;
          }
        }
      }
    }
    // Most resource lists are ones the CEL follows; the rest fail with the reason.
    expect(compared).toBeGreaterThan(3 * failed);
  });
});
