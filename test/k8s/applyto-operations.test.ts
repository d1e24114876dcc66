import { readFileSync } from 'node:fs';
import { expect, it } from 'vitest';
import type { MatchSpec } from '../../src/ir/match.js';
import { compileMatch } from '../../src/k8s/match.js';
import { gatekeeperApplyToOperations } from '../../src/k8s/operations.js';
import type { AdmissionRequest, Operation } from '../../src/k8s/request.js';
import { describeShared, sharedPath } from '../support/shared.js';

interface Row {
  id: string;
  applyTo: { operations?: string[] };
  operation: string;
  matches: boolean;
}

/** The Gatekeeper lowering of one applyTo entry: its operations become the clause's, an impossible entry is dropped. */
function specOf(row: Row): MatchSpec {
  const ops = gatekeeperApplyToOperations(row.applyTo.operations);
  return {
    globs: 'prefixSuffix',
    any: ops === null ? [] : [{ kinds: [{ group: '', version: 'v1', kind: 'Pod' }], operations: ops }],
  };
}

function requestOf(row: Row): AdmissionRequest {
  return {
    object: { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'p', namespace: 'default' } },
    // `''` is Gatekeeper's "no admission operation" (audit, expansion, gator); the contract's Operation type
    // does not list it yet, so the row's value is passed through as is.
    operation: row.operation as Operation,
  };
}

describeShared('Gatekeeper applyTo operations (go-unit-tables/applyto_operations.json)', () => {
  const table = JSON.parse(
    readFileSync(sharedPath('conformance/gatekeeper/go-unit-tables/applyto_operations.json'), 'utf8'),
  ) as { count: number; cases: Row[] };

  it('has every row', () => expect(table.cases).toHaveLength(table.count));

  for (const row of table.cases) {
    it(row.id, () => {
      expect(compileMatch(specOf(row)).test(requestOf(row)).matched).toBe(row.matches);
    });
  }
});
