/**
 * The CEL abstract syntax tree. It follows cel-go's `ast.Expr` shapes closely (ident, select, call,
 * list, map, struct), except that macros stay as one `comprehension` node tagged with the macro name:
 * the compiler implements each macro's loop directly (same semantics as cel-go's expansion in
 * parser/macro.go) instead of interpreting the generic accumulator form.
 * Offsets are character offsets into the expression source: `start` inclusive, `end` exclusive.
 */
export interface Pos {
  start: number;
  end: number;
}

export type Literal =
  | { type: 'int'; value: number | bigint }
  | { type: 'uint'; value: bigint }
  | { type: 'double'; value: number }
  | { type: 'string'; value: string }
  | { type: 'bytes'; value: Uint8Array }
  | { type: 'bool'; value: boolean }
  | { type: 'null' };

export type MacroName =
  | 'all'
  | 'exists'
  | 'exists_one'
  | 'map'
  | 'filter'
  | 'transformList'
  | 'transformMap'
  | 'transformMapEntry'
  | 'optMap'
  | 'optFlatMap';

export type Expr =
  | ({ kind: 'literal'; lit: Literal } & Pos)
  | ({ kind: 'ident'; name: string; leadingDot?: boolean } & Pos)
  | ({ kind: 'select'; operand: Expr; field: string; testOnly: boolean; optional: boolean } & Pos)
  | ({ kind: 'index'; operand: Expr; index: Expr; optional: boolean } & Pos)
  | ({ kind: 'call'; fn: string; target: Expr | undefined; args: Expr[]; namePos: number } & Pos)
  | ({ kind: 'list'; elements: Expr[]; optional: boolean[] } & Pos)
  | ({ kind: 'map'; entries: MapEntry[] } & Pos)
  | ({ kind: 'struct'; typeName: string; fields: StructField[] } & Pos)
  | ({
      kind: 'comprehension';
      macro: MacroName;
      range: Expr;
      /** First iteration variable (the index/key for two-variable forms). */
      iterVar: string;
      /** Second iteration variable of the two-variable forms (value). */
      iterVar2: string | undefined;
      /** Macro arguments after the variables: [predicate] or [filter?, transform]. */
      args: Expr[];
    } & Pos);

export interface MapEntry {
  key: Expr;
  value: Expr;
  optional: boolean;
}

export interface StructField {
  name: string;
  value: Expr;
  optional: boolean;
  namePos: Pos;
}

/** Operator function names as cel-go spells them (common/operators/operators.go). */
export const OP = {
  add: '_+_',
  sub: '_-_',
  mul: '_*_',
  div: '_/_',
  mod: '_%_',
  neg: '-_',
  not: '!_',
  eq: '_==_',
  ne: '_!=_',
  lt: '_<_',
  le: '_<=_',
  gt: '_>_',
  ge: '_>=_',
  and: '_&&_',
  or: '_||_',
  cond: '_?_:_',
  in: '@in',
  index: '_[_]',
} as const;

/** A dotted name when the expression is a chain of plain selections on an identifier (`a.b.c`), else undefined. */
export function qualifiedName(e: Expr): string | undefined {
  if (e.kind === 'ident') return e.leadingDot ? `.${e.name}` : e.name;
  if (e.kind === 'select' && !e.testOnly && !e.optional) {
    const q = qualifiedName(e.operand);
    return q === undefined ? undefined : `${q}.${e.field}`;
  }
  return undefined;
}

/**
 * Adds the names of the `variables.<name>` selections of `e` to `names` (kube-apiserver's and Kyverno's
 * `variables`); false when `variables` is used otherwise (indexed, passed whole): the names it reads cannot
 * be told then.
 */
export function variableSelections(e: Expr, names: Set<string>): boolean {
  if (e.kind === 'select' && e.operand.kind === 'ident' && e.operand.name === 'variables') {
    names.add(e.field);
    return true;
  }
  if (e.kind === 'ident' && e.name === 'variables') return false;
  for (const x of subexpressions(e)) if (!variableSelections(x, names)) return false;
  return true;
}

/** The direct subexpressions of `e`, in source order (a comprehension's range, then its arguments). */
export function subexpressions(e: Expr): Expr[] {
  switch (e.kind) {
    case 'literal':
    case 'ident':
      return [];
    case 'select':
      return [e.operand];
    case 'index':
      return [e.operand, e.index];
    case 'call':
      return e.target ? [e.target, ...e.args] : e.args;
    case 'list':
      return e.elements;
    case 'map':
      return e.entries.flatMap((en) => [en.key, en.value]);
    case 'struct':
      return e.fields.map((f) => f.value);
    case 'comprehension':
      return [e.range, ...e.args];
  }
}

/**
 * The direct subexpressions of `e` with the names bound where each is evaluated: a comprehension's
 * arguments also see its iteration variables.
 */
export function scopedSubexpressions(e: Expr, bound: ReadonlySet<string>): [Expr, ReadonlySet<string>][] {
  if (e.kind !== 'comprehension') return subexpressions(e).map((x) => [x, bound]);
  const inner = new Set(bound).add(e.iterVar);
  if (e.iterVar2 !== undefined) inner.add(e.iterVar2);
  return [[e.range, bound], ...e.args.map((a): [Expr, ReadonlySet<string>] => [a, inner])];
}
