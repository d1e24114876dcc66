import type { Origin } from '../../src/diagnostics/span.js';
import type { Policy } from '../../src/ir/nodes.js';
import { printPolicies } from '../../src/ir/print.js';

export const ORIGIN: Origin = { file: 't.yaml', line: 1, col: 1, endLine: 1, endCol: 1, dialect: 'map' };

/** A MAP-shaped IR policy on core/v1 pods (or the given resource rule) with CEL guards and one ApplyConfiguration. */
export function mapPolicy(opts: { guards?: string[]; apply?: string; resource?: [string, string, string] }): Policy {
  const [group, version, resource] = opts.resource ?? ['', 'v1', 'pods'];
  return {
    id: 'p/b',
    match: { globs: 'exact', all: [{ operations: ['CREATE', 'UPDATE', 'CONNECT'], resources: [{ groups: [group], versions: [version], resources: [resource], operations: ['CREATE', 'UPDATE'] }] }] },
    guards: (opts.guards ?? []).map((text) => ({ kind: 'cel', expr: { text, origin: ORIGIN }, origin: ORIGIN })),
    rules: opts.apply
      ? [
          {
            name: 'mutations[0]',
            guards: [],
            body: [
              { kind: 'let', name: 'x', value: { kind: 'cel', expr: { text: '1', origin: ORIGIN }, origin: ORIGIN }, lazy: true, origin: ORIGIN },
              { kind: 'merge', path: { root: 'object', segments: [] }, value: { kind: 'cel', expr: { text: opts.apply, origin: ORIGIN }, origin: ORIGIN }, strategy: 'ssa', origin: ORIGIN },
            ],
            origin: ORIGIN,
          },
        ]
      : [],
    semantics: { order: 'ordered', reinvocation: 'never', failurePolicy: 'fail' },
    origin: ORIGIN,
  };
}

/** The printed body and guards of a policy, without its header lines. */
export function shown(p: Policy): string {
  return printPolicies([p])
    .split('\n')
    .filter((l) => !/^policy |^\s+semantics |^\s+match /.test(l))
    .join('\n')
    .trim();
}
