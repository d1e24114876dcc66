/** Structured merge (server-side apply without field managers) as MAP's ApplyConfiguration uses it. */
export {
  DEDUCED_SCHEMA,
  DEDUCED_TYPE_REF,
  EMPTY_TYPE_REF,
  Schema,
  UNTYPED_ATOMIC,
  UNTYPED_DEDUCED,
  isEmptyTypeRef,
  makeListType,
  makeMapType,
  type Atom,
  type ElementRelationship,
  type ListType,
  type MapType,
  type ScalarKind,
  type StructField,
  type TypeRef,
} from './schema.js';
export { loadSmdSchema, parseSmdSchemaYaml } from './schema-load.js';
export { formatValidationError, formatValidationErrors, type ValidationError } from './errors.js';
export { validateTyped, type ValidateOptions } from './validate.js';
export { mergeTyped, mergeValidated, type RawMergeResult } from './merge.js';
export { atomicGuard, atomicGuardMessage } from './atomic-guard.js';
export { applyStructuredMergeDiff, type ApplyOptions } from './apply.js';
export { CheckedSubtrees } from './checked.js';
