import { defineOwn, hasOwn, isJsonObject, jsonEqual, type JsonObject, type JsonValue } from '../ir/json.js';
import { withEntry } from '../ir/json-copy.js';
import { applyEvanphxV4 } from './evanphx-v4.js';
import type { PlaceMemo } from './evanphx-v4-in-place.js';
import { applyEvanphxV5 } from './evanphx-v5.js';
import { MAX_OBJECT_DEPTH } from '../io/limits.js';

/**
 * The quirks of each engine that applies RFC 6902 patches:
 * - `rfc6902`: the RFC, strictly.
 * - `kyverno`: evanphx/json-patch v5 with SupportNegativeIndices, AllowMissingPathOnRemove and
 *   EnsurePathExistsOnAdd (kyverno pkg/engine/mutate/patch; its own module, evanphx-v5.ts): add creates
 *   parents (arrays through numeric and `-1` tokens), remove of a missing path is ignored, `-1` on add appends.
 * - `evanphx-v4`: gopkg.in/evanphx/json-patch.v4 as kube-apiserver uses it for MAP (its own module,
 *   evanphx-v4.ts: replace of a missing object member acts as add, negative indices, the first path segment
 *   is dropped unchecked, the library's error words).
 */
export type PatchProfile = 'rfc6902' | 'kyverno' | 'evanphx-v4';

export interface PatchStep {
  op: string;
  path: string;
  from?: string;
  value?: JsonValue;
  /** False when the step has no `value` member at all (matters for evanphx `test`). */
  hasValue?: boolean;
  /**
   * `path` as evanphx-v4.ts decodedPath decodes it, when that was done once for a step that does not change
   * (src/interpreter/ops/json-patch.ts); undefined otherwise, and then the engine decodes it.
   */
  segments?: readonly string[] | undefined;
  /** With `segments`: what readers of the place derived from it once (see PlaceMemo in evanphx-v4-in-place.ts). */
  place?: PlaceMemo | undefined;
}

export type PatchOutcome =
  | { ok: true; doc: JsonValue }
  | { ok: false; kind: 'error' | 'testFailed'; message: string; step: number };

class PatchError {
  constructor(readonly kind: 'error' | 'testFailed', readonly message: string) {}
}

function parsePointer(pointer: string, profile: PatchProfile): string[] {
  if (pointer === '') return [];
  const parts = pointer.split('/');
  // evanphx v4 discards the first segment without checking that it is empty.
  if (parts[0] !== '' && profile !== 'evanphx-v4') throw new PatchError('error', `invalid JSON pointer "${pointer}"`);
  // No object transmute reads is deeper; an `add` that creates its parents must not build one either.
  if (parts.length - 1 > MAX_OBJECT_DEPTH) throw new PatchError('error', `the path has ${parts.length - 1} segments; transmute follows at most ${MAX_OBJECT_DEPTH}`);
  return parts.slice(1).map((p) => p.replace(/~1/g, '/').replace(/~0/g, '~'));
}

function arrayIndex(token: string, length: number, forInsert: boolean, profile: PatchProfile): number {
  if (token === '-' && forInsert) return length;
  if (!/^-?\d+$/.test(token)) throw new PatchError('error', `invalid array index "${token}"`);
  let idx = Number(token);
  if (idx < 0) {
    if (profile === 'rfc6902') throw new PatchError('error', `invalid array index "${token}"`);
    // Negative indices count from the end; on insert, -1 means the append position.
    idx = forInsert ? length + 1 + idx : length + idx;
  }
  const max = forInsert ? length : length - 1;
  if (idx < 0 || idx > max) throw new PatchError('error', `array index ${token} out of range`);
  return idx;
}

function get(doc: JsonValue, tokens: string[], profile: PatchProfile): JsonValue | undefined {
  let cur: JsonValue | undefined = doc;
  for (const t of tokens) {
    if (Array.isArray(cur)) {
      try {
        cur = cur[arrayIndex(t, cur.length, false, profile)];
      } catch {
        return undefined;
      }
    } else if (isJsonObject(cur)) cur = hasOwn(cur, t) ? cur[t] : undefined;
    else return undefined;
    if (cur === undefined) return undefined;
  }
  return cur;
}

/** Rebuilds the containers along `tokens[0..-1]` and lets `change` produce the new parent (copy-on-write). */
function updateParent(
  doc: JsonValue,
  tokens: string[],
  change: (parent: JsonValue, last: string) => JsonValue,
): JsonValue {
  const rec = (cur: JsonValue | undefined, i: number): JsonValue => {
    if (i === tokens.length - 1) {
      if (cur === undefined || cur === null) throw new PatchError('error', `doc is missing path: ${pointerOf(tokens)}`);
      return change(cur, tokens[i]!);
    }
    const t = tokens[i]!;
    if (Array.isArray(cur)) {
      const idx = arrayIndex(t, cur.length, false, 'evanphx-v4');
      const copy = cur.slice();
      copy[idx] = rec(cur[idx], i + 1);
      return copy;
    }
    if (isJsonObject(cur)) {
      const child = hasOwn(cur, t) ? cur[t] : undefined;
      if (child === undefined || child === null) throw new PatchError('error', `doc is missing path: ${pointerOf(tokens)}`);
      return withEntry(cur, t, rec(child, i + 1));
    }
    throw new PatchError('error', `doc is missing path: ${pointerOf(tokens)}`);
  };
  return rec(doc, 0);
}

function pointerOf(tokens: string[]): string {
  return tokens.map((t) => '/' + t.replace(/~/g, '~0').replace(/\//g, '~1')).join('');
}

function add(doc: JsonValue, tokens: string[], value: JsonValue, profile: PatchProfile): JsonValue {
  if (tokens.length === 0) return value;
  return updateParent(doc, tokens, (parent, last) => {
    if (Array.isArray(parent)) {
      const idx = arrayIndex(last, parent.length, true, profile);
      const copy = parent.slice();
      copy.splice(idx, 0, value);
      return copy;
    }
    if (isJsonObject(parent)) return withEntry(parent, last, value);
    throw new PatchError('error', `add operation does not apply: doc is missing path: ${pointerOf(tokens)}`);
  });
}

function remove(doc: JsonValue, tokens: string[], profile: PatchProfile): JsonValue {
  if (tokens.length === 0) throw new PatchError('error', 'cannot remove the whole document');
  return updateParent(doc, tokens, (parent, last) => {
    if (Array.isArray(parent)) {
      const idx = arrayIndex(last, parent.length, false, profile);
      const copy = parent.slice();
      copy.splice(idx, 1);
      return copy;
    }
    if (isJsonObject(parent)) {
      if (!hasOwn(parent, last)) throw new PatchError('error', `Unable to remove nonexistent key: ${last}: missing value`);
      const copy: JsonObject = {};
      for (const k of Object.keys(parent)) if (k !== last) defineOwn(copy, k, parent[k]!);
      return copy;
    }
    throw new PatchError('error', `remove operation does not apply: doc is missing path: ${pointerOf(tokens)}`);
  });
}

function replace(doc: JsonValue, tokens: string[], value: JsonValue, profile: PatchProfile): JsonValue {
  if (tokens.length === 0) return value;
  return updateParent(doc, tokens, (parent, last) => {
    if (Array.isArray(parent)) {
      if (last === '-') throw new PatchError('error', `replace operation does not apply: doc is missing key: ${pointerOf(tokens)}: missing value`);
      const idx = arrayIndex(last, parent.length, false, profile);
      const copy = parent.slice();
      copy[idx] = value;
      return copy;
    }
    if (isJsonObject(parent)) {
      // evanphx v4: replacing a missing member adds it (tested upstream in kube-apiserver's json_patch_test).
      if (!hasOwn(parent, last) && profile !== 'evanphx-v4') {
        throw new PatchError('error', `replace operation does not apply: doc is missing key: ${pointerOf(tokens)}: missing value`);
      }
      return withEntry(parent, last, value);
    }
    throw new PatchError('error', `replace operation does not apply: doc is missing path: ${pointerOf(tokens)}`);
  });
}

/** Applies the steps in order to `doc` without mutating it; the first failing step aborts the whole patch. */
export function applyPatch(doc: JsonValue, steps: readonly PatchStep[], profile: PatchProfile): PatchOutcome {
  if (profile === 'evanphx-v4') return applyEvanphxV4(doc, steps);
  if (profile === 'kyverno') return applyEvanphxV5(doc, steps);
  let cur = doc;
  for (let i = 0; i < steps.length; i++) {
    const s = steps[i]!;
    try {
      const tokens = parsePointer(s.path, profile);
      switch (s.op) {
        case 'add':
          cur = add(cur, tokens, s.value ?? null, profile);
          break;
        case 'remove':
          cur = remove(cur, tokens, profile);
          break;
        case 'replace':
          cur = replace(cur, tokens, s.value ?? null, profile);
          break;
        case 'move':
        case 'copy': {
          const from = parsePointer(s.from ?? '', profile);
          const v = get(cur, from, profile);
          if (v === undefined) {
            throw new PatchError('error', `${s.op} operation does not apply: doc is missing from path: ${s.from}`);
          }
          if (s.op === 'move') cur = remove(cur, from, profile);
          cur = add(cur, tokens, v ?? null, profile);
          break;
        }
        case 'test': {
          const v = get(cur, tokens, profile);
          const equal = v === undefined || v === null ? s.hasValue === false || (s.value ?? null) === null : jsonEqual(v, s.value ?? null);
          if (!equal) throw new PatchError('testFailed', `testing value ${s.path} failed: test failed`);
          break;
        }
        default:
          throw new PatchError('error', `Unexpected kind: ${s.op}`);
      }
    } catch (e) {
      if (e instanceof PatchError) return { ok: false, kind: e.kind, message: e.message, step: i };
      throw e;
    }
  }
  return { ok: true, doc: cur };
}
