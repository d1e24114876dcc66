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
import { cannot, isRefusal, notYet, type Refusal } from '../generate-report.js';
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

function withTests(loc: EmittedLocation, extra: ExtraTests): EmittedLocation | Refusal {
  const tests = new Map(loc.tests);
  for (const [depth, test] of extra) {
    if (depth >= loc.nodes.length) return cannot('a condition on a path below the written place (pathTests test only prefixes of the location)');
    const had = tests.get(depth);
    if (had !== undefined && had !== test) return cannot('both MustExist and MustNotExist on one segment (Gatekeeper rejects conflicting pathTests; the op would never apply)');
    tests.set(depth, test);
  }
  return { nodes: loc.nodes, tests };
}

function isMetadataRoot(loc: EmittedLocation): boolean {
  const first = loc.nodes[0];
  return first !== undefined && first.type === 'Object' && first.reference === 'metadata';
}

/** `parameters.assign` for a value, or why it has none. */
function assignField(v: Value, toList: boolean, metadata: boolean): JsonObject | Refusal {
  switch (v.kind) {
    case 'literal':
      if (v.json === null) return cannot('assigning null (Gatekeeper reads `value: null` as no value at all)');
      if (metadata && typeof v.json !== 'string') return cannot(`the label or annotation value ${JSON.stringify(v.json)} (AssignMetadata writes strings only)`);
      return { value: v.json };
    case 'fromMetadata':
      if (toList) return cannot('the object\'s name or namespace assigned as a list element (Gatekeeper assigns only objects to keyed list elements)');
      return { fromMetadata: { field: v.field } };
    case 'external': {
      if (toList) return cannot('external data assigned as a list element (Gatekeeper assigns only objects to keyed list elements)');
      if (metadata && v.source !== 'Username') return cannot('external data keyed by the current value of a label or annotation (AssignMetadata reads external data by username only)');
      const ext: JsonObject = { provider: v.provider };
      if (v.source !== 'ValueAtLocation') ext.dataSource = v.source;
      if (v.failurePolicy !== 'Fail') ext.failurePolicy = v.failurePolicy;
      if (v.default !== undefined) ext.default = v.default;
      return { externalData: ext };
    }
    default:
      return computedValue(v);
  }
}

/** Why a value computed at admission cannot be assigned: Gatekeeper's value sources are fixed. */
export function computedValue(v: Value): Refusal {
  const what =
    v.kind === 'templated' || v.kind === 'template'
      ? 'a value built from Kyverno variables'
      : v.kind === 'jmes'
        ? `the JMESPath value ${v.expr.text}`
        : v.kind === 'cel'
          ? `the CEL value ${v.expr.text}`
          : v.kind === 'ref'
            ? 'a value copied from another field'
            : `a computed value (${v.kind})`;
  return cannot(`${what} (Gatekeeper assigns only constants, the object's name or namespace, and external data)`);
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

function assignMetadata(loc: EmittedLocation, v: Value): EmittedMutator | Refusal {
  const n = loc.nodes;
  const second = n[1];
  const shape =
    n.length === 3 && n.every((x) => x.type === 'Object') && second?.type === 'Object' && (second.reference === 'labels' || second.reference === 'annotations');
  const addOnly = loc.tests.size === 1 && loc.tests.get(2) === 'notExist';
  if (!shape || !addOnly) return metadataWrite(loc);
  const assign = assignField(v, false, true);
  if (isRefusal(assign)) return assign;
  return { kind: 'AssignMetadata', location: { nodes: loc.nodes, tests: new Map() }, spec: { location: locationText(n), parameters: { assign } }, schema: null };
}

function assign(op: SetOp, loc: EmittedLocation): EmittedMutator | Refusal {
  if (isMetadataRoot(loc)) return assignMetadata(loc, op.value);
  if (changesKey(loc)) return cannot(`a write to ${locationText(loc.nodes)}, the key field of the list element it selects (Gatekeeper forbids changing an element's key)`);
  const last = loc.nodes[loc.nodes.length - 1]!;
  if (last.type === 'List') {
    if (last.glob) return cannot(`replacing every element of ${locationText(loc.nodes)} (a location cannot end in a glob)`);
    const v = op.value;
    if (v.kind !== 'literal' || !isJsonObject(v.json)) return cannot(`the keyed list element ${locationText(loc.nodes)} replaced by something other than a constant object`);
    // Upstream compares the key with the value's key as float64 against int64 (assign_mutator.go): only
    // string keys can be written.
    if (typeof last.keyValue !== 'string' || v.json[last.keyField] !== last.keyValue) return cannot(`the list element ${locationText(loc.nodes)} whose key is not a string equal to the path's key (Gatekeeper rejects it)`);
  }
  const field = assignField(op.value, last.type === 'List', false);
  if (isRefusal(field)) return field;
  return {
    kind: 'Assign',
    location: loc,
    spec: { location: locationText(loc.nodes), parameters: withPathTests(loc, { assign: field }) },
    schema: { terminalType: 'Unknown', mustTerminate: op.value.kind === 'external' },
  };
}

function modifySet(op: SetMembersOp, loc: EmittedLocation): EmittedMutator | Refusal {
  if (isMetadataRoot(loc)) return cannot(`the set ${locationText(loc.nodes)} in metadata (ModifySet cannot change metadata)`);
  if (loc.nodes.length === 0 || loc.nodes[loc.nodes.length - 1]!.type === 'List') return cannot('a set that is a list element (a ModifySet location cannot end in a list element)');
  const fromList: JsonValue[] = [];
  for (const v of op.values) {
    if (v.kind !== 'literal') return cannot(`a computed set member (ModifySet adds and removes constants only)`);
    fromList.push(v.json);
  }
  return {
    kind: 'ModifySet',
    location: loc,
    spec: { location: locationText(loc.nodes), parameters: withPathTests(loc, { operation: op.mode, values: { fromList } }) },
    schema: { terminalType: 'Set', mustTerminate: false },
  };
}

function assignImage(op: ImageOp, loc: EmittedLocation): EmittedMutator | Refusal {
  if (isMetadataRoot(loc)) return cannot('an image reference in metadata (AssignImage cannot change metadata)');
  if (loc.nodes.length === 0 || loc.nodes[loc.nodes.length - 1]!.type === 'List' || changesKey(loc)) return cannot('an image reference that is a list element or its key (AssignImage refuses such locations)');
  const invalid = validateImageParts(op.domain ?? '', op.repo ?? '', op.tag ?? '');
  if (invalid) return cannot(`image components AssignImage refuses: ${invalid.message}`);
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

/** Why a write to metadata is neither an AssignMetadata nor any other mutator. */
function metadataWrite(loc: EmittedLocation): Refusal {
  const n = loc.nodes;
  const second = n[1];
  const labelOrAnnotation = n.length === 3 && n.every((x) => x.type === 'Object') && second?.type === 'Object' && (second.reference === 'labels' || second.reference === 'annotations');
  if (labelOrAnnotation) {
    const what = second.reference === 'labels' ? 'label' : 'annotation';
    const key = n[2]!.type === 'Object' ? n[2]!.reference : '';
    return cannot(`setting the ${what} ${key} whether or not it is present (AssignMetadata only adds a missing ${what}, and Assign cannot change metadata)`);
  }
  return cannot(`a write to ${locationText(n)} (Assign cannot change metadata, and AssignMetadata only adds missing labels and annotations)`);
}

/** Why a removal has no mutator. */
export function removal(loc: string): Refusal {
  return cannot(`deleting ${loc} (no Gatekeeper mutator deletes a field; ModifySet prune removes only list members equal to given values)`);
}

/** The mutator for one op, with `extra` tests from the guards around it. */
export function emitOp(op: Op, extra: ExtraTests): EmittedMutator | Refusal {
  if (op.kind !== 'set' && op.kind !== 'setMembers' && op.kind !== 'image') {
    if (op.kind === 'remove') {
      const loc = emitLocation(op.path);
      return removal(isRefusal(loc) ? 'a field or list element' : locationText(loc.nodes));
    }
    const why: Record<string, Refusal> = {
      merge: notYet('a merge patch'),
      jsonPatch: notYet('a JSON patch'),
      when: cannot('a condition on values (Gatekeeper tests only whether places on the written path exist, with pathTests)'),
      forEach: notYet('a loop over a list'),
      let: cannot('a variable (Gatekeeper mutators have no variables)'),
    };
    return why[op.kind] ?? notYet(`a ${op.kind} op`);
  }
  const base = emitLocation(op.path);
  if (isRefusal(base)) return base;
  const loc = withTests(base, extra);
  if (isRefusal(loc)) return loc;
  if (loc.nodes.length === 0) return cannot('a write to the whole object (a location names at least one field)');
  switch (op.kind) {
    case 'set':
      return assign(op, loc);
    case 'setMembers':
      return modifySet(op, loc);
    case 'image':
      return assignImage(op, loc);
  }
}
