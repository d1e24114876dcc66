/**
 * The CEL `variables` map of an expression that only reads `variables.<name>` (plain selections of names
 * known when it compiles), without a Proxy: an object whose prototype holds one getter per name, made per
 * evaluation with the names' bindings (issue 17: the proxy's traps, two per read, cost more than the reads).
 *
 * Why it reads the same: CEL selects a field of a map with a named load when `constructor` is Object
 * (cel/fastpath.ts fieldChain and the generated code of cel/codegen.ts), and the view inherits that
 * `constructor`, so `variables.<name>` runs the getter, which reads the binding as the proxy's `get` trap
 * did (lazily, errors surfacing in the reading expression). Only when a read gives `undefined` does CEL
 * ask for an own key (ops.select), which the view lacks: a JSON value is never `undefined`. `has()` and
 * `.?` ask for own keys first, so expressions using them keep the proxy (VariablesViewPlan), as do names
 * CEL reads through ops.select (cel/fastpath.ts isSafeFieldName) and scopes missing one of the names.
 */
import { isSafeFieldName } from '../cel/fastpath.js';

/** What a view reads a name through: the variable's binding in the evaluation's scope. */
export interface ViewBinding {
  readonly value: unknown;
}

/** Where a view's bindings are looked up: the scope of one evaluation. */
export interface ViewScope {
  lookup(name: string): ViewBinding | undefined;
}

/** What a view holds (its bindings, or its caller's source), under a key CEL never selects. */
const HELD: unique symbol = Symbol('view source');

interface Held {
  readonly [HELD]: unknown;
}

/**
 * A class of views holding one value, with a getter per name on its prototype, whose `constructor` is
 * inherited from Object.prototype instead, as a JSON map's (CEL's fast select checks it).
 */
function viewClass(names: readonly string[], getterOf: (name: string, i: number) => (this: Held) => unknown): new (held: unknown) => Held {
  class View implements Held {
    readonly [HELD]: unknown;
    constructor(held: unknown) {
      this[HELD] = held;
    }
  }
  const proto = View.prototype as unknown as Record<string, unknown>;
  delete proto['constructor'];
  names.forEach((name, i) => Object.defineProperty(proto, name, { get: getterOf(name, i), enumerable: false, configurable: false }));
  return View;
}

/** Makes the views of one expression. */
export interface VariablesViewPlan {
  readonly names: readonly string[];
  /** The view of `scope`'s bindings of `names`, or undefined when one of them is not bound. */
  of(scope: ViewScope): Record<string, unknown> | undefined;
}

/**
 * The plan for an expression reading `names` by plain selections only (`plainReads`), or undefined when a
 * view would not read as the proxy does (see the header). `read(binding, name)` is the proxy's read.
 */
export function variablesViewPlan(names: readonly string[], plainReads: boolean, read: (binding: ViewBinding, name: string) => unknown): VariablesViewPlan | undefined {
  if (!plainReads || names.length === 0 || !names.every(isSafeFieldName)) return undefined;
  // One name (most expressions): the binding itself, without a list of one per evaluation.
  if (names.length === 1) {
    const name = names[0]!;
    const View = viewClass(names, () =>
      function (this: Held) {
        return read(this[HELD] as ViewBinding, name);
      },
    );
    return {
      names,
      of(scope) {
        const binding = scope.lookup(name);
        return binding === undefined ? undefined : (new View(binding) as unknown as Record<string, unknown>);
      },
    };
  }
  const View = viewClass(names, (name, i) =>
    function (this: Held) {
      return read((this[HELD] as readonly ViewBinding[])[i]!, name);
    },
  );
  return {
    names,
    of(scope) {
      const bindings: ViewBinding[] = [];
      for (let i = 0; i < names.length; i++) {
        const binding = scope.lookup(names[i]!);
        if (binding === undefined) return undefined;
        bindings.push(binding);
      }
      return new View(bindings) as unknown as Record<string, unknown>;
    },
  };
}

/**
 * Views over `names` (each a safe field name: the caller checks) whose read of name `i` is `read(source, i)`,
 * `source` given per view: one view per run of evaluations that share an activation (DirectEngine), where the
 * caller decides what each name holds when read. Read as the plan's views are (see the header).
 */
export function indexedVariablesView(names: readonly string[], read: (source: unknown, i: number) => unknown): (source: unknown) => Record<string, unknown> {
  const View = viewClass(names, (_name, i) =>
    function (this: Held) {
      return read(this[HELD], i);
    },
  );
  return (source) => new View(source) as unknown as Record<string, unknown>;
}
