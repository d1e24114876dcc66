/**
 * The ApplyConfiguration pipeline after CEL evaluation, as apiserver patch/smd.go ApplyStructuredMergeDiff
 * runs it: type the patch, run the atomic guard, type the live object (duplicate keys tolerated), merge.
 * Messages are the apiserver's; MAP's patcher prefixes them with "error applying patch: ".
 */
import type { Result } from '../../diagnostics/index.js';
import type { JsonValue } from '../../ir/json.js';
import { atomicGuard, atomicGuardMessage } from './atomic-guard.js';
import type { CheckedSubtrees } from './checked.js';
import { formatValidationErrors } from './errors.js';
import { typesStrictlySettingNoAtomic } from './fast-checks.js';
import { mergeFailure, mergeIntoValidatedPatch } from './merge.js';
import type { Schema, TypeRef } from './schema.js';
import { validateTyped } from './validate.js';

export interface ApplyOptions {
  /**
   * Run MAP's atomic guard (default true). Off reproduces plain server-side-apply semantics (Kyverno's
   * MutatingPolicy `evaluation.useServerSideApply`), where atomic values are replaced.
   */
  atomicGuard?: boolean;
  /** Subtrees of live objects already typed in this evaluation (see checked.ts). */
  checked?: CheckedSubtrees;
  /** Return the live object itself when the merge leaves it equal (jsonEqual), so that identity tells a change. */
  keepEqual?: boolean;
}

export function applyStructuredMergeDiff(
  schema: Schema,
  typeRef: TypeRef,
  live: JsonValue,
  patch: JsonValue,
  options: ApplyOptions = {},
): Result<JsonValue> {
  const guard = options.atomicGuard !== false;
  // Nearly every patch passes both checks: one walk answers that, and the references word what it finds.
  if (!(guard && typesStrictlySettingNoAtomic(schema, schema.node(typeRef), patch))) {
    const patchErrors = validateTyped(schema, typeRef, patch);
    if (patchErrors.length > 0) {
      return mergeFailure(`failed to convert patch object to typed object: ${formatValidationErrors(patchErrors)}`);
    }
    if (guard) {
      const atomics = atomicGuard(schema, typeRef, patch);
      if (atomics.length > 0) return mergeFailure(`invalid ApplyConfiguration: ${atomicGuardMessage(atomics)}`);
    }
  }
  return mergeIntoValidatedPatch(schema, typeRef, live, patch, options.checked, options.keepEqual === true);
}
