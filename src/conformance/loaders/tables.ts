/**
 * Data-only rows: Gatekeeper's Go test tables (`go-unit-tables/<table>.json`: `{source, count, cases[]}`) and
 * structured-merge triplets (`smd-merge/*.json`: `{cases: [{name, rootTypeName, schema, triplets[]}]}`).
 */
import { basename } from 'node:path';
import { ok, type Result } from '../../diagnostics/diagnostic.js';
import type { SmdTripletCase, TableRowCase } from '../types.js';
import { list, malformed, obj, str, type CaseBase } from './common.js';
import type { JsonValue } from '../../ir/json.js';

export function tableRowCase(
  base: CaseBase,
  table: JsonValue,
  row: number,
): Result<TableRowCase> {
  const t = obj(table);
  const rows = list(t?.cases);
  const value = obj(rows[row]);
  if (!value) return malformed(`${base.id}: row ${row} is not a JSON object`);
  const declared = t?.count;
  if (typeof declared === 'number' && declared !== rows.length) {
    return malformed(`${base.id}: the table declares ${declared} rows but has ${rows.length}`);
  }
  return ok({ ...base, format: 'gatekeeper-table', dialect: 'gatekeeper', table: basename(base.path, '.json'), row: value, tableSource: obj(t?.source) ?? {} });
}

export function smdTripletCase(
  base: CaseBase,
  file: JsonValue,
  group: number,
  triplet: number,
): Result<SmdTripletCase> {
  const g = obj(list(obj(file)?.cases)[group]);
  const t = obj(list(g?.triplets)[triplet]);
  if (!g || !t) return malformed(`${base.id}: no such triplet`);
  const rootTypeName = str(g, 'rootTypeName');
  if (!rootTypeName || g.schema === undefined) return malformed(`${base.id}: cases[${group}] needs rootTypeName and schema`);
  if (t.lhs === undefined || t.rhs === undefined || t.out === undefined) return malformed(`${base.id}: a triplet needs lhs, rhs and out`);
  return ok({
    ...base,
    format: 'smd-triplet',
    dialect: '',
    name: str(g, 'name') ?? `cases[${group}]`,
    schema: g.schema,
    rootTypeName,
    lhs: t.lhs,
    rhs: t.rhs,
    out: t.out,
  });
}
