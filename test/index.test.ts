import { expect, it } from 'vitest';
import * as api from '../src/index.js';
import * as node from '../src/node.js';

const CORE = [
  'BUILT_IN_DIALECTS',
  'SourceRegistry',
  'apply',
  'createRuntime',
  'deriveRuntime',
  'diagnosticsToJson',
  'dialectByName',
  'dialectSet',
  'dialects',
  'hasErrors',
  'loadDocuments',
  'loadPolicies',
  'optimize',
  'parse',
  'printPolicies',
  'renderDiagnostic',
  'renderDiagnosticLine',
  'translate',
  'withDialects',
];

it('pins the public export list', () => {
  expect(Object.keys(api).sort()).toEqual(CORE);
});

it('pins the Node entry: the core, plus file reading and test', () => {
  expect(Object.keys(node).sort()).toEqual([...CORE, 'loadPolicyFiles', 'test'].sort());
});
