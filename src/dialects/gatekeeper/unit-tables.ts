/**
 * Checkers for the rows of Gatekeeper's pure-data unit tables (conformance `go-unit-tables/<table>.json`),
 * one per table, each running the row through the code that implements it here: the location grammar, the
 * pathTests tester, the image splitter and validator, applyTo validation and matching, the ModifySet setter
 * (through the dialect and the interpreter) and the implied-schema database. A checker returns undefined
 * when the row passes, else the reason. Shared by the conformance plugin and the unit tests.
 */
import { parseLocation, scanLocation } from '../../../grammars/gatekeeper-location.js';
import { apply } from '../../interpreter/index.js';
import { isJsonObject, jsonEqual, type JsonObject, type JsonValue } from '../../ir/json.js';
import type { MatchSpec } from '../../ir/match.js';
import { loadYamlText } from '../../io/yaml-load.js';
import { joinImage, splitImage } from '../../k8s/image-ref.js';
import { compileMatch } from '../../k8s/match.js';
import type { Operation } from '../../k8s/request.js';
import { validateImageParts } from './image-parser.js';
import { goPathString, printLocation, type LocationNode, type LocationPath } from './location.js';
import { applyToClauses, validateOperations } from './match.js';
import { parseGatekeeper } from './parse.js';
import { buildTester } from './path-tests.js';
import { ImpliedSchema, type TerminalType } from './schema-conflicts.js';

export type RowChecker = (row: JsonObject) => string | undefined;

function str(v: JsonValue | undefined): string {
  return typeof v === 'string' ? v : '';
}

function strings(v: JsonValue | undefined): string[] {
  return Array.isArray(v) ? v.filter((x): x is string => typeof x === 'string') : [];
}

function expectEqual(what: string, want: unknown, got: unknown): string | undefined {
  return jsonEqual(want, got) ? undefined : `${what}: expected ${JSON.stringify(want)}, got ${JSON.stringify(got)}`;
}

function mustParse(input: string): LocationPath | string {
  const r = parseLocation(input);
  return r.ok ? r.path : `${JSON.stringify(input)} does not parse: ${r.error.message}`;
}

// ---------------------------------------------------------------------------------------------- location

/**
 * A node against the table's form. `{int64: N}` key values: N may be a decimal string (exact) or a JSON
 * number, which JSON.parse has rounded to a double when beyond 2^53, so those compare as doubles.
 */
function nodeMatches(n: LocationNode, want: JsonValue): boolean {
  if (!isJsonObject(want) || want.type !== n.type) return false;
  if (n.type === 'Object') return want.reference === n.reference;
  if (want.keyField !== n.keyField || want.glob !== n.glob) return false;
  const kv = want.keyValue;
  if (typeof n.keyValue === 'bigint') {
    if (!isJsonObject(kv)) return false;
    const int = kv.int64;
    return typeof int === 'string' ? /^\d+$/.test(int) && BigInt(int) === n.keyValue : Number(n.keyValue) === int;
  }
  return kv === (n.keyValue ?? null);
}

function nodesMatch(got: LocationPath, want: JsonValue | undefined): boolean {
  return Array.isArray(want) && want.length === got.length && got.every((n, i) => nodeMatches(n, want[i]!));
}

/** TestParser: nodes or error kind; every parse round-trips through both printers (upstream invariant). */
const parserRow: RowChecker = (row) => {
  const r = parseLocation(str(row.input));
  if (typeof row.error === 'string') return r.ok ? `expected ${row.error}, parsed` : expectEqual('error', row.error, r.error.kind);
  if (!r.ok) return `expected nodes, got ${r.error.kind}: ${r.error.message}`;
  if (!nodesMatch(r.path, row.nodes)) return `nodes differ: ${JSON.stringify(r.path, (_, v: unknown) => (typeof v === 'bigint' ? v.toString() : v))}`;
  for (const [name, print] of [
    ['printLocation', printLocation],
    ['Path.String', goPathString],
  ] as const) {
    const again = parseLocation(print(r.path));
    if (!again.ok || !nodesMatch(again.path, row.nodes)) return `${name} does not round-trip: ${print(r.path)}`;
  }
  return undefined;
};

/** TestScanner: the token stream (type and literal) and the error kind. */
const scannerRow: RowChecker = (row) => {
  const r = scanLocation(str(row.input));
  return (
    expectEqual(
      'tokens',
      row.tokens,
      r.tokens.map((t) => ({ type: t.type, literal: t.literal })),
    ) ?? expectEqual('error', row.error ?? null, r.error?.kind ?? null)
  );
};

// ---------------------------------------------------------------------------------------------- pathTests

/** TestPrefix: a subPath that is not a node-wise prefix of the location is refused with ErrPrefix. */
const prefixRow: RowChecker = (row) => {
  const location = mustParse(str(row.location));
  const sub = mustParse(str(row.subPath));
  if (typeof location === 'string') return location;
  if (typeof sub === 'string') return sub;
  const r = buildTester(location, [{ subPath: sub, condition: 'MustExist' }]);
  return expectEqual('isPrefix', row.isPrefix, r.ok) ?? expectEqual('error', row.expectValidationError ?? null, r.ok ? null : r.kind);
};

/** TestConflictingEntries. */
const conflictsRow: RowChecker = (row) => {
  const location = mustParse(str(row.location));
  if (typeof location === 'string') return location;
  const tests = [];
  for (const t of Array.isArray(row.pathTests) ? row.pathTests : []) {
    const o = isJsonObject(t) ? t : {};
    const sub = mustParse(str(o.subPath));
    if (typeof sub === 'string') return sub;
    tests.push({ subPath: sub, condition: str(o.condition) });
  }
  const r = buildTester(location, tests);
  return expectEqual('error', row.error ?? null, r.ok ? null : r.kind);
};

// ---------------------------------------------------------------------------------------------- images

/** TestNewImage: the split, and the join giving the reference back. */
const imageSplitRow: RowChecker = (row) => {
  const parts = splitImage(str(row.imageRef));
  return (
    expectEqual('parts', { domain: row.domain, path: row.path, tag: row.tag }, parts) ??
    expectEqual('joined', row.imageRef, joinImage(parts))
  );
};

/** TestValidateImageParts: the error kind. */
const imageValidateRow: RowChecker = (row) => {
  const err = validateImageParts(str(row.assignDomain), str(row.assignPath), str(row.assignTag));
  return expectEqual('error', row.error ?? null, err?.kind ?? null);
};

// ---------------------------------------------------------------------------------------------- applyTo

/** TestValidateOperations: whether it errs, and the message. */
const validateOperationsRow: RowChecker = (row) => {
  const entries = (Array.isArray(row.applyTo) ? row.applyTo : []).map((a) => ({ operations: strings(isJsonObject(a) ? a.operations : undefined) }));
  const err = validateOperations(entries);
  const wrong = expectEqual('errorExpected', row.errorExpected, err !== null);
  if (wrong) return wrong;
  if (typeof row.errMsg === 'string' && !(err?.message ?? '').includes(row.errMsg)) return `message "${err?.message}" lacks "${row.errMsg}"`;
  return undefined;
};

/** TestApplyTo_MatchesOperation, through the dialect's lowering of applyTo and the Gatekeeper match profile. */
const applyToOperationsRow: RowChecker = (row) => {
  const applyTo = isJsonObject(row.applyTo) ? row.applyTo : {};
  const spec: MatchSpec = {
    globs: 'prefixSuffix',
    any: applyToClauses([{ groups: [''], versions: ['v1'], kinds: ['Pod'], operations: strings(applyTo.operations) }]),
  };
  const request = {
    object: { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'p', namespace: 'default' } },
    // '' is Gatekeeper's "no admission operation" (audit, expansion, gator), which Operation does not list.
    operation: str(row.operation) as Operation,
  };
  return expectEqual('matches', row.matches, compileMatch(spec).test(request).matched);
};

// ---------------------------------------------------------------------------------------------- ModifySet

/**
 * TestSetterMerge / TestSetterPrune: `setter.SetValue(obj, "field")`, run end to end as a ModifySet mutator
 * at `field` on an object holding `existing` there (or not). `expected: null` asserts nothing; an absent
 * field must stay absent.
 */
const modifySetRow: RowChecker = (row) => {
  const mutator = {
    apiVersion: 'mutations.gatekeeper.sh/v1',
    kind: 'ModifySet',
    metadata: { name: 'setter' },
    spec: {
      applyTo: [{ groups: [''], versions: ['v1'], kinds: ['ConfigMap'] }],
      location: 'field',
      parameters: { operation: row.operation ?? 'merge', values: { fromList: row.fromList ?? null } },
    },
  };
  const docs = loadYamlText('modifyset-row.json', JSON.stringify(mutator));
  if (!docs.ok) return 'the mutator does not load';
  const parsed = parseGatekeeper(docs.value);
  if (parsed.policies.length !== 1) return `the mutator is refused: ${parsed.diagnostics.map((d) => d.message).join('; ')}`;
  const object: JsonObject = { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'c', namespace: 'default' } };
  if (row.existingPresent === true) object.field = row.existing ?? null;
  const result = apply(parsed.policies, { object, operation: 'CREATE' }, { trace: false, patch: false });
  if (row.error === true) return result.allowed ? 'expected an error, the setter succeeded' : undefined;
  if (!result.allowed) return `unexpected error: ${result.diagnostics.map((d) => d.message).join('; ')}`;
  const after = isJsonObject(result.object) ? result.object : {};
  if (row.expected === null || row.expected === undefined) return row.existingPresent === true || !('field' in after) ? undefined : 'field was created';
  return expectEqual('field', row.expected, after.field);
};

// ---------------------------------------------------------------------------------------------- schema

function schemaEntry(v: JsonValue | undefined): { id: string; path: LocationPath; terminal: TerminalType; mustTerminate: boolean } | string {
  const o = isJsonObject(v) ? v : {};
  const path = mustParse(str(o.path));
  if (typeof path === 'string') return path;
  const terminal = str(o.terminalType);
  if (terminal !== 'Unknown' && terminal !== 'Set' && terminal !== 'String') return `unknown terminal type ${terminal}`;
  return { id: str(o.id), path, terminal, mustTerminate: o.mustTerminate === true };
}

/** TestNode_Add: add `before`, then `add`; the final add reports `wantConflicts`. */
const schemaConflictsRow: RowChecker = (row) => {
  const tree = new ImpliedSchema();
  for (const b of Array.isArray(row.before) ? row.before : []) {
    const e = schemaEntry(b);
    if (typeof e === 'string') return e;
    tree.add(e.id, e.path, e.terminal, e.mustTerminate);
  }
  const e = schemaEntry(row.add);
  if (typeof e === 'string') return e;
  const got = [...tree.add(e.id, e.path, e.terminal, e.mustTerminate)].sort();
  return expectEqual('conflicts', strings(row.wantConflicts).sort(), got);
};

/** Every table, by file name without `.json`. */
export const TABLE_CHECKERS: Readonly<Record<string, RowChecker>> = {
  parser: parserRow,
  scanner: scannerRow,
  pathtest_prefix: prefixRow,
  pathtest_conflicts: conflictsRow,
  image_split: imageSplitRow,
  image_validate: imageValidateRow,
  applyto_validate_operations: validateOperationsRow,
  applyto_operations: applyToOperationsRow,
  modifyset_setter_merge: modifySetRow,
  modifyset_setter_prune: modifySetRow,
  schema_conflicts: schemaConflictsRow,
};
