import { describe, expect, it } from 'vitest';
import type { Diagnostic } from '../../../src/diagnostics/diagnostic.js';
import { parseMutator, parseMutators, type GatekeeperMutator } from '../../../src/dialects/gatekeeper/mutators.js';
import type { Op, Policy } from '../../../src/ir/nodes.js';
import { sourceDoc, sourceDocs } from './support.js';

const APPLY_TO_POD = `  applyTo:
  - groups: [""]
    versions: ["v1"]
    kinds: ["Pod"]
`;

function accepted(yaml: string): GatekeeperMutator {
  const r = parseMutator(sourceDoc(yaml));
  if (!r.ok) throw new Error(r.diagnostics.map((d) => d.message).join('\n'));
  return r.value;
}

function refused(yaml: string): Diagnostic {
  const r = parseMutator(sourceDoc(yaml));
  expect(r.ok).toBe(false);
  const errors = r.diagnostics.filter((d) => d.severity === 'error');
  expect(errors).toHaveLength(1);
  return errors[0]!;
}

function onlyOp(p: Policy): Op {
  expect(p.rules).toHaveLength(1);
  expect(p.rules[0]!.body).toHaveLength(1);
  return p.rules[0]!.body[0]!;
}

/** Drops origins, so expectations state the IR shape only. */
function shape<T>(v: T): T {
  return JSON.parse(JSON.stringify(v, (k, x) => (k === 'origin' ? undefined : x))) as T;
}

function assign(location: string, parameters: string, extra = APPLY_TO_POD, name = 'm'): string {
  return `apiVersion: mutations.gatekeeper.sh/v1
kind: Assign
metadata:
  name: ${name}
spec:
${extra}  location: ${JSON.stringify(location)}
  parameters:
${parameters}`;
}

describe('gatekeeper mutators: Assign', () => {
  it('becomes one fix-point policy with a set op on the location', () => {
    const m = accepted(assign('spec.containers[name: sidecar].image', '    assign:\n      value: nginx\n'));
    expect(m.policy.id).toBe('Assign/m');
    expect(m.policy.semantics).toEqual({ order: 'fixpoint' });
    expect(m.schema).toEqual({ terminalType: 'Unknown', mustTerminate: false });
    expect(shape(onlyOp(m.policy))).toEqual({
      kind: 'set',
      path: {
        root: 'object',
        segments: [
          { kind: 'field', name: 'spec' },
          { kind: 'field', name: 'containers' },
          { kind: 'keyed', key: 'name', value: 'sidecar', create: true },
          { kind: 'field', name: 'image' },
        ],
      },
      value: { kind: 'literal', json: 'nginx' },
    });
    // No operations listed: the two the mutation webhook runs, explicit (DELETE and CONNECT never match).
    expect(shape(m.policy.match)).toEqual({
      globs: 'prefixSuffix',
      any: [{ kinds: [{ group: '', version: 'v1', kind: 'Pod' }], operations: ['CREATE', 'UPDATE'] }],
    });
    expect(m.policy.origin).toMatchObject({ dialect: 'gatekeeper', file: 'test.yaml', line: 1 });
  });

  it('puts pathTests on the segments at their depth', () => {
    const m = accepted(
      assign(
        'spec.containers[name: *].securityContext.runAsUser',
        `    pathTests:
    - subPath: "spec.containers"
      condition: MustExist
    - subPath: "spec.containers[name: *].securityContext.runAsUser"
      condition: MustNotExist
    assign:
      value: 1000
`,
      ),
    );
    const op = onlyOp(m.policy);
    expect(op.kind === 'set' && op.path.segments.map((s) => ('test' in s ? s.test : undefined))).toEqual([
      undefined,
      'exist',
      undefined,
      undefined,
      'notExist',
    ]);
  });

  it('reads fromMetadata and externalData (with the CRD defaults) as values', () => {
    const fm = onlyOp(accepted(assign('spec.value', '    assign:\n      fromMetadata:\n        field: namespace\n')).policy);
    expect(fm.kind === 'set' && shape(fm.value)).toEqual({ kind: 'fromMetadata', field: 'namespace' });
    const ext = accepted(assign('spec.containers[name: *].image', '    assign:\n      externalData:\n        provider: tagger\n'));
    const op = onlyOp(ext.policy);
    expect(op.kind === 'set' && shape(op.value)).toEqual({ kind: 'external', provider: 'tagger', source: 'ValueAtLocation', failurePolicy: 'Fail' });
    expect(ext.schema).toEqual({ terminalType: 'Unknown', mustTerminate: true });
  });

  it('runs the construction checks in upstream order', () => {
    // Name length wins over everything, even an unparsable location.
    expect(refused(assign('a.', '    assign:\n      value: 1\n', APPLY_TO_POD, 'x'.repeat(64))).message).toBe(
      'maximum name length is 63 characters',
    );
    // Metadata root is checked before the key-change rule.
    expect(refused(assign('metadata[name: a].name', '    assign:\n      value: 1\n')).message).toBe("assign m can't change metadata");
    // CheckKeyNotChanged precedes the assign one-of.
    expect(refused(assign('spec.c[name: a].name', '    assign: {}\n')).message).toBe(
      'invalid path format: changing the item key is not allowed',
    );
    // pathTests come before applyTo.
    const d = refused(assign('spec.x', '    pathTests:\n    - subPath: spec.y\n      condition: MustExist\n    assign:\n      value: 1\n', ''));
    expect(d.message).toContain('all subpaths must be a prefix');
    expect(refused(assign('spec.x', '    assign:\n      value: 1\n', '')).message).toBe('applyTo required for Assign mutator m');
  });

  it('refuses an int-keyed terminal list: the key never equals the float64 from the value (upstream quirk)', () => {
    const d = refused(assign('spec.ports[port: 80]', '    assign:\n      value: {port: 80, protocol: TCP}\n'));
    expect(d.message).toBe('adding object to list with different key port: list key 80, object key 80');
    expect(d.code).toBe('TM2004');
  });

  it('refuses a fromMetadata or externalData value on a terminal list', () => {
    expect(refused(assign('spec.c[name: a]', '    assign:\n      fromMetadata:\n        field: name\n')).message).toBe(
      'cannot assign a metadata field to a list',
    );
  });

  it('points a location syntax error at the offending character inside the YAML string', () => {
    const d = refused(assign('spec.containers[name: ].image', '    assign:\n      value: 1\n'));
    expect(d.code).toBe('TM2003');
    expect(d.message).toBe(
      'invalid location format `spec.containers[name: ].image` for Assign m: unexpected token: expected key value or glob in listSpec, got: RBRACKET: "]"',
    );
    // `  location: "` is 13 characters; the `]` is the 23rd character of the location.
    expect(d.span).toMatchObject({ line: 10, col: 13 + 23, endLine: 10, endCol: 13 + 23 });
  });

  it('points a subPath syntax error inside the subPath string', () => {
    const d = refused(assign('spec.x', "    pathTests:\n    - subPath: 'spec..x'\n      condition: MustExist\n    assign:\n      value: 1\n"));
    expect(d.code).toBe('TM2003');
    expect(d.message).toBe('problem parsing sub path `spec..x` for Assign m: unexpected token: expected field name or eof, got: SEPARATOR: "."');
    expect(d.span).toMatchObject({ line: 13, col: 17 + 5, endCol: 17 + 5 });
  });

  it('refuses wrongly typed fields as the API server does, and warns about unknown ones', () => {
    const d = refused(assign('spec.x', '    assign:\n      value: 1\n').replace('location: "spec.x"', 'location: 12'));
    expect(d).toMatchObject({ code: 'TM2002', message: 'spec.location: Invalid value: "integer": spec.location in body must be of type string: "integer"' });
    const r = parseMutator(sourceDoc(assign('spec.x', '    assign:\n      value: 1\n    extra: true\n')));
    expect(r.ok).toBe(true);
    expect(r.diagnostics.map((x) => [x.code, x.message])).toEqual([['TM2007', 'unknown field "spec.parameters.extra"']]);
  });

  it('keeps a test no node satisfies as a constant-false guard', () => {
    const m = accepted(assign('spec.x', '    pathTests:\n    - subPath: spec\n    assign:\n      value: 1\n'));
    expect(shape(m.policy.guards)).toEqual([{ kind: 'const', value: false }]);
  });
});

describe('gatekeeper mutators: AssignMetadata', () => {
  const doc = (location: string, assignYaml: string) => `apiVersion: mutations.gatekeeper.sh/v1beta1
kind: AssignMetadata
metadata:
  name: owner
spec:
  match:
    scope: Namespaced
  location: ${JSON.stringify(location)}
  parameters:
    assign:
${assignYaml}`;

  it('sets add-only: the implicit MustNotExist sits on the last segment', () => {
    const m = accepted(doc('metadata.labels."app.kubernetes.io/name"', '      value: web\n'));
    expect(shape(onlyOp(m.policy))).toEqual({
      kind: 'set',
      path: {
        root: 'object',
        segments: [
          { kind: 'field', name: 'metadata' },
          { kind: 'field', name: 'labels' },
          { kind: 'field', name: 'app.kubernetes.io/name', test: 'notExist' },
        ],
      },
      value: { kind: 'literal', json: 'web' },
    });
    expect(shape(m.policy.match)).toEqual({ globs: 'prefixSuffix', all: [{ scope: 'Namespaced' }] });
    expect(m.applyTo).toBeNull();
    expect(m.schema).toBeNull();
  });

  it('refuses other locations, non-string values and non-Username external data', () => {
    expect(refused(doc('metadata.name', '      value: x\n')).message).toBe('invalid location for assignmetadata owner: metadata.name');
    expect(refused(doc('metadata.labels.a', '      value: 3\n')).message).toBe(
      'spec.parameters.assign.value field must be a string for AssignMetadata "owner"',
    );
    expect(refused(doc('metadata.labels.a', '      externalData:\n        provider: p\n')).message).toBe(
      'only username data source is supported for assignmetadata owner',
    );
    expect(refused(doc('metadata.labels.a', '      fromMetadata:\n        field: uid\n')).message).toBe(
      'field uid is not recognized: invalid fromMetadata field',
    );
  });
});

describe('gatekeeper mutators: ModifySet', () => {
  const doc = (location: string, params: string) => `apiVersion: mutations.gatekeeper.sh/v1alpha1
kind: ModifySet
metadata:
  name: args
spec:
${APPLY_TO_POD}  location: ${JSON.stringify(location)}
  parameters:
${params}`;

  it('becomes setMembers with the fromList values', () => {
    const m = accepted(doc('spec.containers[name: *].args', '    operation: prune\n    values:\n      fromList: ["--a", 2, {k: v}]\n'));
    const op = onlyOp(m.policy);
    expect(op.kind).toBe('setMembers');
    expect(op.kind === 'setMembers' && shape({ mode: op.mode, values: op.values })).toEqual({
      mode: 'prune',
      values: [
        { kind: 'literal', json: '--a' },
        { kind: 'literal', json: 2 },
        { kind: 'literal', json: { k: 'v' } },
      ],
    });
    expect(m.schema).toEqual({ terminalType: 'Set', mustTerminate: false });
  });

  it('defaults to merge, accepts an empty location, refuses a list terminal and a bad operation', () => {
    const merge = onlyOp(accepted(doc('spec.x', '    values:\n      fromList: [a]\n')).policy);
    expect(merge.kind === 'setMembers' && merge.mode).toBe('merge');
    expect(accepted(doc('', '    values:\n      fromList: [a]\n')).location).toEqual([]);
    expect(refused(doc('spec.c[name: a]', '    values:\n      fromList: [a]\n')).message).toBe(
      'final node in a modifyset location cannot be a keyed list',
    );
    expect(refused(doc('spec.x', '    operation: add\n')).message).toBe(
      'spec.parameters.operation: Unsupported value: "add": supported values: "merge", "prune"',
    );
  });
});

describe('gatekeeper mutators: AssignImage', () => {
  const doc = (params: string, apiVersion = 'mutations.gatekeeper.sh/v1alpha1') => `apiVersion: ${apiVersion}
kind: AssignImage
metadata:
  name: img
spec:
${APPLY_TO_POD}  location: "spec.containers[name: *].image"
  parameters:
${params}`;

  it('becomes an image op with the set components only', () => {
    const m = accepted(doc('    assignDomain: my.reg.io\n    assignTag: ":v2"\n'));
    const op = onlyOp(m.policy);
    expect(op.kind === 'image' && { domain: op.domain, repo: op.repo, tag: op.tag }).toEqual({ domain: 'my.reg.io', repo: undefined, tag: ':v2' });
    expect(m.schema).toEqual({ terminalType: 'String', mustTerminate: true });
  });

  it('refuses invalid parts with upstream wording, pointing at the parameter', () => {
    const d = refused(doc('    assignPath: a.b.c/repo\n'));
    expect(d.message).toBe(
      'assignImage img has invalid parameters: assignDomain must be set if the first part of assignPath "a.b.c/repo" can be interpretted as part of a domain',
    );
    expect(d.span).toMatchObject({ line: 12, col: 17 });
    expect(refused(doc('    assignTag: ":v2"\n', 'mutations.gatekeeper.sh/v1'))).toMatchObject({
      code: 'TM2001',
      message: 'no matches for kind "AssignImage" in version "mutations.gatekeeper.sh/v1"',
    });
  });
});

describe('gatekeeper mutators: match and applyTo', () => {
  it('turns applyTo entries into any-clauses and match into an all-clause', () => {
    const m = accepted(
      assign(
        'spec.x',
        '    assign:\n      value: 1\n',
        `  applyTo:
  - groups: ["", "apps"]
    versions: ["v1"]
    kinds: ["Pod"]
    operations: ["CREATE", "UPDATE"]
  - groups: ["batch"]
    versions: ["v1"]
    kinds: ["Job"]
    operations: ["UPDATE"]
  match:
    kinds:
    - apiGroups: ["*"]
      kinds: ["Pod", "Job"]
    - kinds: []
    excludedNamespaces: ["kube-*"]
    namespaceSelector: {}
    labelSelector:
      matchExpressions:
      - {key: tier, operator: In, values: [web]}
    name: "web-*"
    source: Original
`,
      ),
    );
    expect(shape(m.policy.match)).toEqual({
      globs: 'prefixSuffix',
      any: [
        { kinds: [{ group: '', version: 'v1', kind: 'Pod' }, { group: 'apps', version: 'v1', kind: 'Pod' }], operations: ['CREATE', 'UPDATE'] },
        { kinds: [{ group: 'batch', version: 'v1', kind: 'Job' }], operations: ['UPDATE'] },
      ],
      all: [
        {
          kinds: [{ kind: 'Pod' }, { kind: 'Job' }, { kind: '*' }],
          excludedNamespaces: ['kube-*'],
          namespaceSelector: {},
          labelSelector: { matchExpressions: [{ key: 'tier', operator: 'In', values: ['web'] }] },
          names: ['web-*'],
        },
      ],
    });
    expect(m.source).toBe('Original');
    expect(shape(m.policy.guards)).toEqual([
      { kind: 'eq', path: { root: 'request', segments: [{ kind: 'field', name: 'source' }] }, value: { kind: 'literal', json: 'Original' } },
    ]);
  });

  it('refuses invalid applyTo operations with every problem listed', () => {
    const d = refused(
      assign('spec.x', '    assign:\n      value: 1\n', `${APPLY_TO_POD}    operations: ["DELETE", "DELETE"]\n`),
    );
    expect(d.message).toBe(
      'invalid applyTo for Assign mutator m: invalid operation "DELETE" in applyTo[0].operations: must be one of CREATE, UPDATE, *; duplicate operation "DELETE" in applyTo[0].operations; invalid operation "DELETE" in applyTo[0].operations: must be one of CREATE, UPDATE, *',
    );
  });

  it('refuses namespace patterns outside the CRD wildcard pattern', () => {
    const d = refused(assign('spec.x', '    assign:\n      value: 1\n', `${APPLY_TO_POD}  match:\n    namespaces: ["Kube_System"]\n`));
    expect(d.message).toBe(
      String.raw`spec.match.namespaces[0]: Invalid value: "Kube_System": spec.match.namespaces[0] in body should match '^\*?[-:a-z0-9]*\*?$'`,
    );
  });
});

describe('gatekeeper mutators: a set of documents', () => {
  it('orders policies as Gatekeeper runs them (kind, then name) and skips other documents', () => {
    const docs = sourceDocs(
      [
        assign('spec.x', '    assign:\n      value: 1\n', APPLY_TO_POD, 'b'),
        'apiVersion: v1\nkind: Pod\nmetadata:\n  name: p\n',
        `apiVersion: mutations.gatekeeper.sh/v1\nkind: ModifySet\nmetadata:\n  name: a\nspec:\n${APPLY_TO_POD}  location: spec.y\n`,
        assign('spec.x', '    assign:\n      value: 1\n', APPLY_TO_POD, 'a'),
        `apiVersion: mutations.gatekeeper.sh/v1\nkind: AssignMetadata\nmetadata:\n  name: 0\nspec:\n  location: metadata.labels.a\n  parameters:\n    assign:\n      value: x\n`,
      ].join('---\n'),
    );
    const r = parseMutators(docs);
    expect(r.policies.map((p) => p.id)).toEqual(['Assign/a', 'Assign/b', 'ModifySet/a']);
    // `name: 0` is an integer in YAML: refused by the schema.
    expect(r.diagnostics.map((d) => d.code)).toEqual(['TM2002']);
  });
});
