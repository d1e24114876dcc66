/** The preconditions raising: exact comparisons become guards, evaluated as Kyverno's operators would. */
import { describe, expect, it } from 'vitest';
import { opaqueExpression } from '../../src/dialects/kyverno/opaque.js';
import type { JsonValue } from '../../src/ir/json.js';
import { apply } from '../../src/interpreter/index.js';
import type { Guard, Op, Policy } from '../../src/ir/nodes.js';
import { printGuard } from '../../src/ir/print.js';
import { raiseKyvernoPreconditions } from '../../src/lowering/raise-kyverno-preconditions.js';
import { O, PODS, policyOf, run } from './support.js';

const conditions = (block: JsonValue): Guard => ({ kind: 'jmes', expr: { text: opaqueExpression('conditions', block), origin: O }, origin: O });
const mark: Op = { kind: 'set', path: { root: 'object', segments: [{ kind: 'field', name: 'metadata' }, { kind: 'field', name: 'annotations' }, { kind: 'field', name: 'hit' }] }, value: { kind: 'literal', json: 'yes', origin: O }, origin: O };

const RAISED: [JsonValue, string][] = [
  [{ all: [{ key: "{{ request.object.metadata.labels.app || '' }}", operator: 'Equals', value: 'web' }] }, 'eq object.metadata.labels.app "web"'],
  [{ all: [{ key: "{{request.object.metadata.labels.app||''}}", operator: 'NotEquals', value: 'web' }] }, 'not(eq object.metadata.labels.app "web")'],
  [{ any: [{ key: "{{ request.object.spec.dnsPolicy || '' }}", operator: 'In', value: ['Default', 'None'] }] }, 'in object.spec.dnsPolicy ["Default", "None"]'],
  [[{ key: "{{ request.object.metadata.labels.\"app.kubernetes.io/name\" || '' }}", operator: 'NotIn', value: ['db'] }], 'not(in object.metadata.labels."app.kubernetes.io/name" ["db"])'],
  [
    { any: [{ key: '{{ request.operation }}', operator: 'Equals', value: 'CREATE' }], all: [{ key: "{{ request.object.metadata.labels.team || '' }}", operator: 'equals', value: 'storage' }] },
    'and(eq request.operation "CREATE", eq object.metadata.labels.team "storage")',
  ],
];

describe('raise Kyverno preconditions', () => {
  for (const [block, want] of RAISED) {
    it(`raises ${want}, deciding as Kyverno's operators`, () => {
      const before = policyOf([mark], [conditions(block)]);
      const [after] = raiseKyvernoPreconditions([before]);
      expect(printGuard(after!.rules[0]!.guards[0]!)).toBe(want);
      for (const pod of PODS) expect(run(after!, pod), JSON.stringify(pod)).toEqual(run(before, pod));
    });
  }

  it('raises preconditions inside a when block too', () => {
    const before = policyOf([{ kind: 'when', guard: conditions(RAISED[0]![0]), then: [mark], origin: O }]);
    const [after] = raiseKyvernoPreconditions([before]);
    const op = after!.rules[0]!.body[0]!;
    expect(op.kind === 'when' && printGuard(op.guard)).toBe('eq object.metadata.labels.app "web"');
  });

  const LEFT: [string, JsonValue][] = [
    ['a key without a default (a missing field fails the rule)', { all: [{ key: '{{ request.object.metadata.labels.app }}', operator: 'Equals', value: 'web' }] }],
    ['wildcard values', { all: [{ key: "{{ request.object.metadata.name || '' }}", operator: 'Equals', value: 'web-*' }] }],
    ['numeric and quantity values', { all: [{ key: "{{ request.object.spec.priority || '' }}", operator: 'Equals', value: '10' }] }],
    ['boolean-looking strings', { all: [{ key: "{{ request.object.spec.hostNetwork || '' }}", operator: 'Equals', value: 'true' }] }],
    ['AnyIn (wildcards both ways)', { all: [{ key: "{{ request.object.metadata.name || '' }}", operator: 'AnyIn', value: ['web'] }] }],
    ['arbitrary JMESPath', { all: [{ key: "{{ length(request.object.spec.containers) }}", operator: 'Equals', value: 1 }] }],
    ['other defaults', { all: [{ key: "{{ request.object.metadata.labels.app || 'web' }}", operator: 'Equals', value: 'web' }] }],
  ];
  for (const [what, block] of LEFT) {
    it(`leaves ${what}`, () => {
      const p = policyOf([mark], [conditions(block)]);
      expect(raiseKyvernoPreconditions([p])[0]).toBe(p);
    });
  }
});

describe('raise Kyverno preconditions on the operation', () => {
  const runAs = (p: Policy, operation: 'CREATE' | 'UPDATE' | 'DELETE' | 'CONNECT'): JsonValue | 'error' => {
    const r = apply([p], { object: PODS[0]!, oldObject: operation === 'CREATE' ? null : PODS[0]!, operation, userInfo: {}, namespaceObject: null, params: null }, { trace: false });
    return r.allowed ? r.object : 'error';
  };
  const RAISED_OPS: [JsonValue, string][] = [
    [{ any: [{ key: "{{request.operation || 'BACKGROUND'}}", operator: 'AnyIn', value: ['CREATE', 'UPDATE'] }] }, 'in request.operation ["CREATE", "UPDATE"]'],
    [{ all: [{ key: '{{ request.operation }}', operator: 'AllIn', value: ['CREATE'] }] }, 'in request.operation ["CREATE"]'],
    [{ all: [{ key: '{{ request.operation }}', operator: 'AnyNotIn', value: ['DELETE'] }] }, 'not(in request.operation ["DELETE"])'],
    [{ all: [{ key: "{{ request.operation || 'BACKGROUND' }}", operator: 'NotEquals', value: 'UPDATE' }] }, 'not(eq request.operation "UPDATE")'],
  ];
  for (const [block, want] of RAISED_OPS) {
    it(`raises ${want}, deciding as Kyverno's operators on every operation`, () => {
      const before = policyOf([mark], [conditions(block)]);
      const [after] = raiseKyvernoPreconditions([before]);
      expect(printGuard(after!.rules[0]!.guards[0]!)).toBe(want);
      for (const op of ['CREATE', 'UPDATE', 'DELETE', 'CONNECT'] as const) expect(runAs(after!, op), op).toEqual(runAs(before, op));
    });
  }

  it('leaves a default that is one of the values (it would decide where the operation is missing)', () => {
    const p = policyOf([mark], [conditions({ all: [{ key: "{{ request.operation || 'CREATE' }}", operator: 'AnyIn', value: ['CREATE'] }] })]);
    expect(raiseKyvernoPreconditions([p])[0]).toBe(p);
  });

  it('leaves AnyIn on a field of the object (a value holding * matches anything)', () => {
    const p = policyOf([mark], [conditions({ all: [{ key: "{{ request.object.metadata.labels.app || '' }}", operator: 'AnyIn', value: ['web'] }] })]);
    expect(raiseKyvernoPreconditions([p])[0]).toBe(p);
  });
});
