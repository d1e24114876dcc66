/**
 * Raisings: IR-to-IR rewrites that turn an engine-specific construct (a Kyverno strategic-merge patch, a MAP
 * apply configuration, a simple CEL condition) into the structured path operations and guards it means, when
 * that meaning is exact. A target dialect that cannot express the source construct lists the raisings it wants
 * in its `lowerings`; a target that can (Kyverno reading its own strategic merge) leaves them out, so a
 * same-dialect translation keeps the form its author wrote. A raising leaves anything it cannot prove exact as
 * it is, and the target's generator then reports it as unsupported.
 */
import type { Policy } from '../ir/nodes.js';
import { collapseConstantLoops, foldKyvernoConstants } from './raise-kyverno-constants.js';
import { raiseKyvernoForEach } from './raise-kyverno-foreach.js';
import { raiseKyvernoJsonPatch } from './raise-kyverno-json-patch.js';
import { raiseKyvernoPreconditions } from './raise-kyverno-preconditions.js';
import { raiseKyvernoStrategicMerge } from './raise-kyverno-smp.js';
import { raiseApplyConfiguration } from './raise-apply-configuration.js';
import { raiseCelGuards } from './raise-cel-guards.js';
import { raiseGuardedSets } from './raise-guarded-sets.js';

export type Raising = (policies: Policy[]) => Policy[];

/**
 * Raisings of Kyverno constructs, in order: preconditions; patches whose variables read only constants,
 * evaluated; loops over the object's lists (read before the patches inside them are raised on their own);
 * strategic merge; Kyverno JSON patch; loops over literal lists whose raised body is constant.
 */
export const RAISE_KYVERNO: readonly Raising[] = [
  raiseKyvernoPreconditions,
  foldKyvernoConstants,
  raiseKyvernoForEach,
  raiseKyvernoStrategicMerge,
  raiseKyvernoJsonPatch,
  collapseConstantLoops,
];

/** Raisings of MutatingAdmissionPolicy constructs (apply configurations, CEL conditions), in order. */
export const RAISE_MAP: readonly Raising[] = [raiseCelGuards, raiseApplyConfiguration, raiseGuardedSets];
