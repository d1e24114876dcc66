/**
 * The function registry: each library contributes overload groups; an environment enables a set
 * of libraries (per Kubernetes version) and the compiler binds calls to implementations at compile time.
 */
import type { Kind } from './values.js';

export type LibraryName =
  | 'std'
  | 'optional'
  | 'strings'
  | 'sets'
  | 'lists.ext'
  | 'k8s.lists'
  | 'k8s.regex'
  | 'k8s.urls'
  | 'k8s.authz'
  | 'k8s.quantity'
  | 'k8s.ip'
  | 'k8s.cidr'
  | 'k8s.format'
  | 'k8s.semver'
  | 'k8s.jsonpatch'
  | 'kyverno';

// eslint-disable-next-line @typescript-eslint/no-explicit-any
export type Impl = (...args: any[]) => unknown;

export interface FunctionDef {
  /** Global name (possibly qualified, e.g. `optional.of`) or member name. */
  name: string;
  style: 'global' | 'member';
  /** Accepted argument counts, not counting the receiver. */
  arity: number[];
  /** Receiver kinds this definition serves (used to pick among definitions sharing a name). */
  recv?: Kind[];
  /** Receives the receiver first for members, then the arguments. */
  impl: Impl;
  /** False for functions whose result depends on more than the arguments (never constant-folded). */
  pure?: boolean;
  /**
   * The implementation receives the evaluation's RuntimeServices (EvalOptions.services) before the receiver
   * and the arguments: host data reaches a library through the eval call, never through module state.
   * Such a function is never pure.
   */
  services?: boolean;
  /** Extra runtime cost beyond the call's 1, as cel-go's cost model charges it (proportional to sizes). */
  cost?: (...args: unknown[]) => number;
  lib: LibraryName;
}

export class Registry {
  private readonly defs = new Map<string, FunctionDef[]>();

  add(...defs: FunctionDef[]): this {
    for (const d of defs) {
      const key = `${d.style}:${d.name}`;
      const list = this.defs.get(key);
      if (list) list.push(d);
      else this.defs.set(key, [d]);
    }
    return this;
  }

  lookup(style: 'global' | 'member', name: string, enabled: ReadonlySet<LibraryName>): FunctionDef[] {
    const list = this.defs.get(`${style}:${name}`);
    if (!list) return [];
    return list.filter((d) => enabled.has(d.lib));
  }

  hasGlobal(name: string, enabled: ReadonlySet<LibraryName>): boolean {
    return this.lookup('global', name, enabled).length > 0;
  }
}

/** Shorthand constructors used by the library files. */
export function member(lib: LibraryName, name: string, arity: number | number[], impl: Impl, extra: Partial<FunctionDef> = {}): FunctionDef {
  return { lib, name, style: 'member', arity: Array.isArray(arity) ? arity : [arity], impl, ...extra };
}

export function global(lib: LibraryName, name: string, arity: number | number[], impl: Impl, extra: Partial<FunctionDef> = {}): FunctionDef {
  return { lib, name, style: 'global', arity: Array.isArray(arity) ? arity : [arity], impl, ...extra };
}
