import type { Expr, MacroName } from './ast.js';

/**
 * Macro recognition, as cel-go does it at parse time (parser/macro.go, ext/comprehensions.go,
 * cel/optional.go). A call whose name and argument count match a macro becomes a `comprehension`
 * (or a `select` with testOnly for has()); anything else stays a call.
 */
export class MacroError extends Error {
  constructor(
    message: string,
    readonly start: number,
    readonly end: number,
  ) {
    super(message);
  }
}

/** Receiver macros by name → accepted argument counts and the node's macro tag per count. */
const RECEIVER_MACROS: Record<string, Record<number, { macro: MacroName; vars: 1 | 2 }>> = {
  all: { 2: { macro: 'all', vars: 1 }, 3: { macro: 'all', vars: 2 } },
  exists: { 2: { macro: 'exists', vars: 1 }, 3: { macro: 'exists', vars: 2 } },
  exists_one: { 2: { macro: 'exists_one', vars: 1 }, 3: { macro: 'exists_one', vars: 2 } },
  existsOne: { 2: { macro: 'exists_one', vars: 1 }, 3: { macro: 'exists_one', vars: 2 } },
  map: { 2: { macro: 'map', vars: 1 }, 3: { macro: 'map', vars: 1 } },
  filter: { 2: { macro: 'filter', vars: 1 } },
  transformList: { 3: { macro: 'transformList', vars: 2 }, 4: { macro: 'transformList', vars: 2 } },
  transformMap: { 3: { macro: 'transformMap', vars: 2 }, 4: { macro: 'transformMap', vars: 2 } },
  transformMapEntry: { 3: { macro: 'transformMapEntry', vars: 2 }, 4: { macro: 'transformMapEntry', vars: 2 } },
  optMap: { 2: { macro: 'optMap', vars: 1 } },
  optFlatMap: { 2: { macro: 'optFlatMap', vars: 1 } },
};

export interface MacroOptions {
  /** Two-variable comprehensions (cel-go ext.TwoVarComprehensions; Kubernetes ≥ 1.32). */
  twoVarComprehensions: boolean;
}

const ACCU_NAMES = new Set(['@result', '__result__']);

function varName(e: Expr): string {
  if (e.kind !== 'ident' || e.leadingDot) throw new MacroError('argument must be a simple name', e.start, e.end);
  if (ACCU_NAMES.has(e.name)) throw new MacroError(`iteration variable overwrites accumulator variable`, e.start, e.end);
  return e.name;
}

export function expandCall(call: Extract<Expr, { kind: 'call' }>, opts: MacroOptions): Expr {
  const { fn, target, args } = call;
  if (target === undefined) {
    if (fn === 'has' && args.length === 1) {
      const a = args[0]!;
      if (a.kind !== 'select' || a.testOnly) throw new MacroError('invalid argument to has() macro', a.start, a.end);
      return { ...a, testOnly: true, start: call.start, end: call.end };
    }
    return call;
  }
  const byCount = RECEIVER_MACROS[fn];
  const spec = byCount?.[args.length];
  if (!spec) return call;
  if (spec.vars === 2 && !opts.twoVarComprehensions) return call;
  const iterVar = varName(args[0]!);
  let iterVar2: string | undefined;
  let rest: Expr[];
  if (spec.vars === 2) {
    iterVar2 = varName(args[1]!);
    if (iterVar2 === iterVar) throw new MacroError(`duplicate variable name: ${iterVar}`, args[1]!.start, args[1]!.end);
    rest = args.slice(2);
  } else {
    rest = args.slice(1);
  }
  return { kind: 'comprehension', macro: spec.macro, range: target, iterVar, iterVar2, args: rest, start: call.start, end: call.end };
}
