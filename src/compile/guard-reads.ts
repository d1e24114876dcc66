/**
 * What a rule's guards read of the object, as paths from its root, so that a run of rules may test them
 * before the writes of the rules ahead of them that cannot change what they read (smp-rule-runs.ts). Known
 * for Kyverno preconditions whose variables are each a whole `{{ }}` string reading `request.*` only; any
 * other guard reads an unknown part of the state (undefined).
 *
 * Only a string that is exactly one hole qualifies: a partial one is substituted again while its text holds
 * a hole (variables.ts substituteString), so what it reads depends on the values it finds. A variable other
 * than `request` may be derived from the object (Kyverno's `images`) or stored by a context entry.
 */
import { readOpaque } from '../dialects/kyverno/opaque.js';
import { holeQuery, wholeHoleBody } from '../dialects/kyverno/variables.js';
import { isJsonObject, type JsonValue } from '../ir/json.js';
import type { Guard } from '../ir/nodes.js';
import { compileJmesCached } from '../jmespath/index.js';

/** The object paths `guards` read (`[]`: the whole object), or undefined when that is not known. */
export function guardObjectReads(guards: readonly Guard[]): string[][] | undefined {
  const into: string[][] = [];
  for (const g of guards) if (!guardReads(g, into)) return undefined;
  return into;
}

function guardReads(g: Guard, into: string[][]): boolean {
  switch (g.kind) {
    case 'const':
      return true;
    case 'not':
      return guardReads(g.arg, into);
    case 'and':
    case 'or':
      return g.args.every((a) => guardReads(a, into));
    case 'jmes': {
      const opaque = readOpaque(g.expr.text);
      return opaque?.kind === 'conditions' && treeReads(opaque.json, into);
    }
    default:
      return false;
  }
}

function treeReads(v: JsonValue, into: string[][]): boolean {
  if (typeof v === 'string') return stringReads(v, into);
  if (Array.isArray(v)) return v.every((x) => treeReads(x, into));
  if (isJsonObject(v)) {
    for (const k of Object.keys(v)) if (k.includes('{{') || !treeReads(v[k]!, into)) return false;
  }
  return true;
}

function stringReads(s: string, into: string[][]): boolean {
  if (!s.includes('{{')) return true;
  const body = wholeHoleBody(s);
  if (body === undefined) return false;
  const program = compileJmesCached(holeQuery(body).trim());
  const paths = program.ok ? program.value.rootPaths : undefined;
  if (paths === undefined) return false;
  for (const p of paths) {
    if (p[0] !== 'request' || p.length < 2) return false;
    // Other request fields (operation, userInfo, oldObject...) do not change with the object.
    if (p[1] === 'object') into.push(p.slice(2));
  }
  return true;
}

/** Whether `prefix` is `path` or one of the maps on its way. */
export function isPrefix(prefix: readonly string[], path: readonly string[]): boolean {
  if (prefix.length > path.length) return false;
  for (let i = 0; i < prefix.length; i++) if (prefix[i] !== path[i]) return false;
  return true;
}
