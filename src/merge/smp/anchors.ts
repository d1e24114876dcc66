/**
 * Stage (a) of Kyverno's patchStrategicMerge: anchor preprocessing (pkg/engine/mutate/patch/
 * strategicPreprocessing.go `PreProcessPattern`), which turns a pattern with `(k)`, `<(k)` and `+(k)` anchors
 * into a plain strategic-merge patch for one resource.
 *
 * Reproduced as upstream does it, quirks included: the pattern is edited in place while it is walked; a list
 * element with anchors is evaluated once per resource element on ONE shared copy (so `+(k)` decides on the
 * first element); matching elements are re-emitted with the resource element's `name`; the cleanup deletes
 * list elements by their original index while the list shrinks; scalar VALUES spelled like `(x)` count as
 * anchors; condition values are compared as YAML text when the condition is a scalar.
 */
import { isConditionOrGlobal, parseAnchor, anchorString, type Anchor } from '../../../grammars/kyverno-anchor.js';
import { hasOwn, isJsonObject, type JsonValue } from '../../ir/json.js';
import { scalarText } from './go-text.js';
import { matchPattern } from './pattern-match.js';
import {
  clearField,
  copyNode,
  field,
  fromJson,
  isNilOrEmpty,
  keysOf,
  renameField,
  setField,
  toJson,
  type PMap,
  type PNode,
  type PSeq,
} from './pattern-tree.js';

/** ConditionError / GlobalConditionError skip the rule; any other error fails it. */
export interface PreprocessError {
  kind: 'condition' | 'global' | 'error';
  message: string;
}

export type PreprocessOutcome = { ok: true; patch: JsonValue } | { ok: false; error: PreprocessError };

type Err = PreprocessError | undefined;

/**
 * PreProcessPattern on a copy of `pattern` against `resource` (undefined: no resource). The messages are
 * upstream's: `condition failed: ...`, `global condition failed: ...`, or the error itself.
 */
export function preprocessPattern(pattern: JsonValue, resource: JsonValue | undefined): PreprocessOutcome {
  const root = fromJson(pattern);
  const err = preProcessRecursive(root, resource) ?? deleteConditionElements(root);
  return err ? { ok: false, error: err } : { ok: true, patch: toJson(root) };
}

/** Whether a pattern needs stage (a) at all: any anchor-like key or value, or anything the cleanup drops. */
export function needsPreprocessing(pattern: JsonValue): boolean {
  if (Array.isArray(pattern)) return pattern.length === 0 || pattern.some(needsPreprocessing);
  if (isJsonObject(pattern)) {
    const keys = Object.keys(pattern);
    if (keys.length === 0) return true;
    return keys.some((k) => parseAnchor(k) !== undefined || needsPreprocessing(pattern[k]!));
  }
  return typeof pattern === 'string' && isConditionOrGlobal(parseAnchor(pattern));
}

const conditionError = (inner: string): PreprocessError => ({ kind: 'condition', message: `condition failed: ${inner}` });
const globalError = (inner: string): PreprocessError => ({ kind: 'global', message: `global condition failed: ${inner}` });
const plainError = (message: string): PreprocessError => ({ kind: 'error', message });
const NIL_DEREFERENCE = plainError('runtime error: invalid memory address or nil pointer dereference');

function isAdd(a: Anchor | undefined): boolean {
  return a?.modifier === 'addIfNotPresent';
}

/** strategicPreprocessing.go hasAnchor: conditions, global conditions and add-if-not-present. */
function hasAnchor(a: Anchor): boolean {
  return isConditionOrGlobal(a) || isAdd(a);
}

function resourceField(resource: JsonValue | undefined, key: string): { present: boolean; value: JsonValue | undefined } {
  if (isJsonObject(resource) && hasOwn(resource, key)) return { present: true, value: resource[key] };
  return { present: false, value: undefined };
}

function preProcessRecursive(pattern: PNode, resource: JsonValue | undefined): Err {
  if (pattern.t === 'map') return walkMap(pattern, resource);
  if (pattern.t === 'seq') return walkList(pattern, resource);
  return undefined;
}

function walkMap(pattern: PMap, resource: JsonValue | undefined): Err {
  handleAddIfNotPresent(pattern, resource);
  const err = validateConditions(pattern, resource);
  if (err) return err;
  const plainKeys = keysOf(pattern).filter((k) => {
    const a = parseAnchor(k);
    return a === undefined || !hasAnchor(a);
  });
  for (const key of plainKeys) {
    const child = field(pattern, key);
    if (child === undefined) continue;
    const inner = preProcessRecursive(child, resourceField(resource, key).value);
    if (inner) return inner;
  }
  return undefined;
}

function walkList(pattern: PSeq, resource: JsonValue | undefined): Err {
  if (pattern.items.length === 0 || pattern.items[0]!.t !== 'map') return undefined;
  return processListOfMaps(pattern, resource);
}

function processListOfMaps(pattern: PSeq, resource: JsonValue | undefined): Err {
  let resourceElements: JsonValue[] = [];
  if (Array.isArray(resource)) resourceElements = resource;
  else if (resource !== undefined && resource !== null) return plainError(wrongKind('SequenceNode', resource));

  for (const element of [...pattern.items]) {
    if (!hasAnchors(element, hasAnchor)) continue;
    const hasGlobal = hasAnchors(element, (a) => a.modifier === 'global');
    let anyGlobalPassed = false;
    let lastGlobalError: Err;
    // One copy shared by every resource element: `+()` keys are consumed by the first one.
    const shared = copyNode(element);
    for (const resourceElement of resourceElements) {
      const err = preProcessRecursive(shared, resourceElement);
      if (err) {
        if (err.kind === 'condition') continue;
        if (err.kind === 'global') {
          lastGlobalError = err;
          continue;
        }
        return err;
      }
      if (hasGlobal) anyGlobalPassed = true;
      else {
        const named = handlePatternName(pattern, shared, resourceElement);
        if (named) return plainError(`failed to update name in pattern: ${named.message}`);
      }
    }
    // Only an absent list (not an empty or null one) is evaluated against nothing.
    if (resource === undefined) {
      const err = preProcessRecursive(shared, undefined);
      if (err) {
        if (err.kind === 'condition') continue;
        return err;
      }
      if (hasGlobal) anyGlobalPassed = true;
    }
    if (!anyGlobalPassed && lastGlobalError) return lastGlobalError;
  }
  return undefined;
}

/** handlePatternName: re-emit the matched element, anchors removed, bound to the resource element by `name`. */
function handlePatternName(pattern: PSeq, element: PNode, resourceElement: JsonValue): Err {
  // RNode.IsNilOrEmpty: no name, or a null, {} or [] name, binds nothing.
  const name = resourceField(resourceElement, 'name').value;
  if (name === undefined || name === null || (typeof name === 'object' && Object.keys(name).length === 0)) return undefined;
  const copy = copyNode(element);
  const empty = deleteAnchors(copy, true);
  if (typeof empty !== 'boolean') return empty;
  if (empty) return undefined;
  if (copy.t !== 'map') return plainError(wrongKind('MappingNode', toJson(copy)));
  setField(copy, 'name', fromJson(name));
  pattern.items.push(copy);
  return undefined;
}

/** Global conditions are checked before conditions; their failures are told apart. */
function validateConditions(pattern: PMap, resource: JsonValue | undefined): Err {
  const global = validateConditionsOf(pattern, resource, 'global');
  if (global) return globalError(global);
  const condition = validateConditionsOf(pattern, resource, 'condition');
  if (condition) return conditionError(condition);
  return undefined;
}

function validateConditionsOf(pattern: PMap, resource: JsonValue | undefined, modifier: Anchor['modifier']): string | undefined {
  const anchors = anchorsOf(pattern, (a) => a.modifier === modifier);
  for (const a of anchors) {
    const res = resourceField(resource, a.key);
    if (!res.present) return `could not found "${a.key}" key in the resource`;
    const patternValue = field(pattern, anchorString(a));
    if (patternValue === undefined) return NIL_DEREFERENCE.message;
    // A `+()` inside the condition's value is resolved against the resource value, and the condition is
    // then treated as satisfied (validateConditionsInternal).
    if (handleAddIfNotPresent(patternValue, res.value) > 0) continue;
    const err = checkCondition(patternValue, res.value);
    if (err) return err;
  }
  return undefined;
}

/** checkCondition: scalars are compared as their YAML text (convertRNodeToInterface), trees as JSON. */
function checkCondition(pattern: PNode, resource: JsonValue | undefined): string | undefined {
  const p = pattern.t === 'scalar' ? scalarText(pattern.v) : toJson(pattern);
  const r = resource === undefined || Array.isArray(resource) || isJsonObject(resource) ? resource : scalarText(resource);
  return matchPattern(r, p)?.message;
}

/** handleAddIfNotPresentAnchor: `+(k)` is dropped when the resource has k (even null), else renamed to k. */
function handleAddIfNotPresent(pattern: PNode, resource: JsonValue | undefined): number {
  if (pattern.t !== 'map') return 0;
  const anchors = anchorsOf(pattern, isAdd);
  for (const a of anchors) {
    if (resourceField(resource, a.key).present) clearField(pattern, anchorString(a));
    else renameField(pattern, anchorString(a), a.key);
  }
  return anchors.length;
}

function anchorsOf(pattern: PMap, predicate: (a: Anchor) => boolean): Anchor[] {
  const out: Anchor[] = [];
  for (const k of keysOf(pattern)) {
    const a = parseAnchor(k);
    if (a && predicate(a)) out.push(a);
  }
  return out;
}

/** hasAnchors: note the scalar case tests for a condition spelling whatever the predicate. */
function hasAnchors(n: PNode, predicate: (a: Anchor) => boolean): boolean {
  if (n.t === 'scalar') return isConditionOrGlobal(parseAnchor(scalarText(n.v)));
  if (n.t === 'seq') return n.items.some((e) => hasAnchors(e, predicate));
  for (const k of keysOf(n)) {
    const a = parseAnchor(k);
    if (a && predicate(a)) return true;
    const v = field(n, k);
    if (!isNilOrEmpty(v) && hasAnchors(v!, predicate)) return true;
  }
  return false;
}

// ---------------------------------------------------------------------------------------------- cleanup

/** deleteConditionElements on the whole pattern (upstream runs it even when nothing was anchored). */
function deleteConditionElements(root: PNode): Err {
  if (root.t === 'seq' || (root.t === 'scalar' && root.v !== null)) return plainError(wrongKind('MappingNode', toJson(root)));
  if (root.t !== 'map') return undefined;
  for (const key of keysOf(root)) {
    const value = field(root, key);
    if (value === undefined) return NIL_DEREFERENCE;
    const deleteScalar = isConditionOrGlobal(parseAnchor(key));
    const canDelete = deleteAnchors(value, deleteScalar);
    if (typeof canDelete !== 'boolean') return canDelete;
    if (canDelete) clearField(root, key);
  }
  return undefined;
}

/** deleteAnchors (traverseMappingNodes is always false where upstream calls it): true = drop this node. */
function deleteAnchors(n: PNode, deleteScalar: boolean): boolean | PreprocessError {
  if (n.t === 'map') return deleteAnchorsInMap(n);
  if (n.t === 'seq') return deleteAnchorsInList(n);
  return deleteScalar;
}

function deleteAnchorsInMap(n: PMap): boolean | PreprocessError {
  const anchors = anchorsOf(n, isConditionOrGlobal);
  let anchorsExist = false;
  for (const a of anchors) {
    const value = field(n, anchorString(a));
    if (value === undefined) return NIL_DEREFERENCE;
    const shouldDelete = deleteAnchors(value, true);
    if (typeof shouldDelete !== 'boolean') return shouldDelete;
    if (shouldDelete) clearField(n, anchorString(a));
    else anchorsExist = true;
  }
  // A condition whose value keeps plain content becomes that content ("nested anchors").
  if (anchorsExist) {
    for (const a of anchorsOf(n, isConditionOrGlobal)) renameField(n, anchorString(a), a.key);
  }
  let needToDelete = true;
  for (const key of keysOf(n)) {
    const value = field(n, key);
    if (value === undefined) return NIL_DEREFERENCE;
    const canDelete = deleteAnchors(value, false);
    if (typeof canDelete !== 'boolean') return canDelete;
    if (canDelete) clearField(n, key);
    else needToDelete = false;
  }
  return needToDelete;
}

function deleteAnchorsInList(n: PSeq): boolean | PreprocessError {
  const elements = [...n.items];
  const wasEmpty = elements.length === 0;
  for (let i = 0; i < elements.length; i++) {
    const element = elements[i]!;
    let remove: boolean | PreprocessError;
    if (hasAnchors(element, hasAnchor)) remove = true;
    else remove = deleteAnchors(element, false);
    if (typeof remove !== 'boolean') return remove;
    if (!remove) continue;
    // deleteListElement removes by the ORIGINAL index from the shrinking list (upstream quirk); past the
    // end Go's slice expression panics.
    if (i >= n.items.length) return plainError('runtime error: slice bounds out of range');
    n.items.splice(i, 1);
  }
  return n.items.length === 0 && !wasEmpty;
}

function kindName(v: JsonValue | undefined): string {
  if (Array.isArray(v)) return 'SequenceNode';
  if (isJsonObject(v)) return 'MappingNode';
  return 'ScalarNode';
}

/** kyaml ErrorIfInvalid's wording (the field path is empty where the preprocessing meets it). */
export function wrongKind(expected: string, got: JsonValue | undefined): string {
  return `wrong Node Kind for  expected: ${expected} was ${kindName(got)}: value: {${got === undefined ? '' : JSON.stringify(got)}}`;
}
