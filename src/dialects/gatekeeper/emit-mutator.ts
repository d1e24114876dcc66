/**
 * One IR op written as the Gatekeeper mutator that says the same thing: an add-only label or annotation
 * becomes AssignMetadata, setMembers ModifySet, image AssignImage, any other set Assign (pathTests for the
 * existence tests on its path). Each builder returns the mutator's `spec` and its part in the implied
 * schema, or why Gatekeeper cannot express the op.
 */
import type { JsonObject, JsonValue } from '../../ir/json.js';
import { isJsonObject } from '../../ir/json.js';
import type { ImageOp, Op, SetMembersOp, SetOp, Value } from '../../ir/nodes.js';
import type { SegmentTest } from '../../ir/path.js';
import type { MutatorKind } from './common.js';
import { emitLocation, locationText, pathTestsOf, type EmittedLocation } from './emit-location.js';
import { validateImageParts } from './image-parser.js';
import type { TerminalType } from './schema-conflicts.js';

export interface EmittedMutator {
  kind: MutatorKind;
  location: EmittedLocation;
  /** `spec` without applyTo and match. */
  spec: JsonObject;
  schema: { terminalType: TerminalType; mustTerminate: boolean } | null;
}

/** Existence tests from guards, by depth of the location they test. */
export type ExtraTests = ReadonlyMap<number, SegmentTest>;

function withTests(loc: EmittedLocation, extra: ExtraTests): EmittedLocation | string {
  const tests = new Map(loc.tests);
  for (const [depth, test] of extra) {
    if (depth >= loc.nodes.length) return 'a guard on a path below the written place';
    const had = tests.get(depth);
    if (had !== undefined && had !== test) return 'contradictory existence tests (the op would never apply)';
    tests.set(depth, test);
  }
  return { nodes: loc.nodes, tests };
}

function isMetadataRoot(loc: EmittedLocation): boolean {
  const first = loc.nodes[0];
  return first !== undefined && first.type === 'Object' && first.reference === 'metadata';
}

/** `parameters.assign` for a value, or why it has none. */
function assignField(v: Value, toList: boolean, metadata: boolean): JsonObject | string {
  switch (v.kind) {
    case 'literal':
      if (v.json === null) return 'assigning null (Gatekeeper reads `value: null` as no value)';
      if (metadata && typeof v.json !== 'string') return 'a label or annotation value that is not a string';
      return { value: v.json };
    case 'fromMetadata':
      if (toList) return 'a metadata field assigned to a list element';
      return { fromMetadata: { field: v.field } };
    case 'external': {
      if (toList) return 'external data assigned to a list element';
      if (metadata && v.source !== 'Username') return 'external data keyed by the current value of a label or annotation';
      const ext: JsonObject = { provider: v.provider };
      if (v.source !== 'ValueAtLocation') ext.dataSource = v.source;
      if (v.failurePolicy !== 'Fail') ext.failurePolicy = v.failurePolicy;
      if (v.default !== undefined) ext.default = v.default;
      return { externalData: ext };
    }
    default:
      return `a computed value (${v.kind}); Gatekeeper assigns constants, the object's name or namespace, and external data`;
  }
}

function withPathTests(loc: EmittedLocation, parameters: JsonObject): JsonObject {
  const tests = pathTestsOf(loc);
  return tests.length > 0 ? { pathTests: tests, ...parameters } : parameters;
}

/** core.CheckKeyNotChanged: a location may not end by renaming the element it selects. */
function changesKey(loc: EmittedLocation): boolean {
  const n = loc.nodes;
  const last = n[n.length - 1];
  const before = n[n.length - 2];
  return last !== undefined && before !== undefined && before.type === 'List' && last.type === 'Object' && last.reference === before.keyField;
}

function assignMetadata(loc: EmittedLocation, v: Value): EmittedMutator | string {
  const n = loc.nodes;
  const second = n[1];
  const shape =
    n.length === 3 && n.every((x) => x.type === 'Object') && second?.type === 'Object' && (second.reference === 'labels' || second.reference === 'annotations');
  const addOnly = loc.tests.size === 1 && loc.tests.get(2) === 'notExist';
  if (!shape || !addOnly) return 'a write to metadata other than adding a label or annotation (Gatekeeper never overwrites metadata)';
  const assign = assignField(v, false, true);
  if (typeof assign === 'string') return assign;
  return { kind: 'AssignMetadata', location: { nodes: loc.nodes, tests: new Map() }, spec: { location: locationText(n), parameters: { assign } }, schema: null };
}

function assign(op: SetOp, loc: EmittedLocation): EmittedMutator | string {
  if (isMetadataRoot(loc)) return assignMetadata(loc, op.value);
  if (changesKey(loc)) return 'a write to the key field of the list element it selects';
  const last = loc.nodes[loc.nodes.length - 1]!;
  if (last.type === 'List') {
    if (last.glob) return 'replacing every element of a list';
    const v = op.value;
    if (v.kind !== 'literal' || !isJsonObject(v.json)) return 'a keyed list element replaced by something other than a constant object';
    // Upstream compares the key with the value's key as float64 against int64 (assign_mutator.go): only
    // string keys can be written.
    if (typeof last.keyValue !== 'string' || v.json[last.keyField] !== last.keyValue) return 'a list element whose key is not a string equal to the path key';
  }
  const field = assignField(op.value, last.type === 'List', false);
  if (typeof field === 'string') return field;
  return {
    kind: 'Assign',
    location: loc,
    spec: { location: locationText(loc.nodes), parameters: withPathTests(loc, { assign: field }) },
    schema: { terminalType: 'Unknown', mustTerminate: op.value.kind === 'external' },
  };
}

function modifySet(op: SetMembersOp, loc: EmittedLocation): EmittedMutator | string {
  if (isMetadataRoot(loc)) return 'a set in metadata (ModifySet cannot change metadata)';
  if (loc.nodes.length === 0 || loc.nodes[loc.nodes.length - 1]!.type === 'List') return 'a set that is a list element';
  const fromList: JsonValue[] = [];
  for (const v of op.values) {
    if (v.kind !== 'literal') return `a computed set member (${v.kind})`;
    fromList.push(v.json);
  }
  return {
    kind: 'ModifySet',
    location: loc,
    spec: { location: locationText(loc.nodes), parameters: withPathTests(loc, { operation: op.mode, values: { fromList } }) },
    schema: { terminalType: 'Set', mustTerminate: false },
  };
}

function assignImage(op: ImageOp, loc: EmittedLocation): EmittedMutator | string {
  if (isMetadataRoot(loc)) return 'an image reference in metadata (AssignImage cannot change metadata)';
  if (loc.nodes.length === 0 || loc.nodes[loc.nodes.length - 1]!.type === 'List' || changesKey(loc)) return 'an image reference that is a list element or its key';
  const invalid = validateImageParts(op.domain ?? '', op.repo ?? '', op.tag ?? '');
  if (invalid) return `image components Gatekeeper refuses: ${invalid.message}`;
  const parameters: JsonObject = {};
  if (op.domain !== undefined) parameters.assignDomain = op.domain;
  if (op.repo !== undefined) parameters.assignPath = op.repo;
  if (op.tag !== undefined) parameters.assignTag = op.tag;
  return {
    kind: 'AssignImage',
    location: loc,
    spec: { location: locationText(loc.nodes), parameters: withPathTests(loc, parameters) },
    schema: { terminalType: 'String', mustTerminate: true },
  };
}

/** The mutator for one op, with `extra` tests from the guards around it. */
export function emitOp(op: Op, extra: ExtraTests): EmittedMutator | string {
  if (op.kind !== 'set' && op.kind !== 'setMembers' && op.kind !== 'image') {
    const why: Record<string, string> = {
      remove: 'deleting a field or list element (Gatekeeper never deletes)',
      merge: 'a merge patch (Gatekeeper assigns one location per mutator)',
      jsonPatch: 'a JSON patch',
      when: 'a condition on values (Gatekeeper tests only existence, with pathTests)',
      forEach: 'a loop over a list (Gatekeeper iterates only with [key: *] globs)',
      let: 'a variable',
    };
    return why[op.kind] ?? `a ${op.kind} op`;
  }
  const base = emitLocation(op.path);
  if (typeof base === 'string') return base;
  const loc = withTests(base, extra);
  if (typeof loc === 'string') return loc;
  if (loc.nodes.length === 0) return 'an empty location';
  switch (op.kind) {
    case 'set':
      return assign(op, loc);
    case 'setMembers':
      return modifySet(op, loc);
    case 'image':
      return assignImage(op, loc);
  }
}
