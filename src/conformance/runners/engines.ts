/**
 * Runners for data that exercises one engine directly rather than a policy: structured-merge triplets (run by
 * src/merge/ssa) and Gatekeeper's Go test tables (`unsupported`, "no engine", for a table without a row runner
 * in the table runner's list).
 */
import type { Result } from '../../diagnostics/diagnostic.js';
import { mergeTyped } from '../../merge/ssa/merge.js';
import { loadSmdSchema } from '../../merge/ssa/schema-load.js';
import type { Schema } from '../../merge/ssa/schema.js';
import type { JsonObject, JsonValue } from '../../ir/json.js';
import { compareObjects, describeDifference } from '../compare.js';
import { firstError } from '../policies.js';
import type { CaseResult, SmdTripletCase, TableRowCase } from '../types.js';

/** What the structured-merge engine offers (src/merge/ssa): a schema parser and `mergeTyped`. */
export interface SmdEngine<S> {
  parseSchema(schema: JsonValue): Result<S>;
  mergeTyped(schema: S, typeRef: string, lhs: JsonValue, rhs: JsonValue): Result<JsonValue>;
}

/**
 * A triplet runner over an engine: `out == mergeTyped(schema, rootTypeName, lhs, rhs)`, lists in order, maps
 * unordered (smd-merge-triplets.json `semantics`). Plug in with
 * `runConformance(dirs, { runners: { 'smd-triplet': smdTripletRunner({ parseSchema, mergeTyped }) } })`.
 */
export function smdTripletRunner<S>(engine: SmdEngine<S>): (c: SmdTripletCase) => CaseResult {
  // Triplets of one group share the same schema object (the loader reads each file once).
  const schemas = new WeakMap<object, Result<S>>();
  return (c) => {
    const key = typeof c.schema === 'object' && c.schema !== null ? c.schema : undefined;
    let schema = key ? schemas.get(key) : undefined;
    if (!schema) {
      schema = engine.parseSchema(c.schema);
      if (key) schemas.set(key, schema);
    }
    if (!schema.ok) return { status: 'failed', reason: `schema rejected: ${firstError(schema.diagnostics)}` };
    const merged = engine.mergeTyped(schema.value, c.rootTypeName, c.lhs, c.rhs);
    if (!merged.ok) return { status: 'failed', reason: `merge failed: ${firstError(merged.diagnostics)}` };
    const d = compareObjects('exact', c.out, merged.value);
    return d ? { status: 'failed', reason: `${c.name}: ${describeDifference(d)}` } : { status: 'passed' };
  };
}

/** The default triplet runner: the project's structured merge (src/merge/ssa), typed by the case's root type. */
export const runSmdTriplet = smdTripletRunner<Schema>({
  parseSchema: (schema) => loadSmdSchema(schema),
  mergeTyped: (schema, root, lhs, rhs) => mergeTyped(schema, { namedType: root }, lhs, rhs),
});

/** Checks one row of a Go test table; `source` is the table's provenance block (test name, semantics). */
export type TableRowRunner = (row: JsonObject, source: JsonObject) => CaseResult;

/** The row runners of Go test tables, by file name without `.json` (`parser`, `image_split`, ...). */
export type TableRowRunners = Readonly<Record<string, TableRowRunner>>;

/** The case runner of Go test table rows: each row goes to its table's row runner. */
export function tableRowRunner(runners: TableRowRunners): (c: TableRowCase) => CaseResult {
  return (c) => {
    const runner = Object.prototype.hasOwnProperty.call(runners, c.table) ? runners[c.table] : undefined;
    if (!runner) return { status: 'unsupported', reason: `no engine: table ${c.table} (no row runner registered)` };
    return runner(c.row, c.tableSource);
  };
}
