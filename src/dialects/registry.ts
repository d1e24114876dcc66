import type { Dialect } from './dialect.js';
import type { SourceDoc } from '../io/source.js';
import { gatekeeperDialect } from './gatekeeper/index.js';
import { irDialect } from './ir/index.js';
import { mapDialect } from './map/index.js';
import { kyvernoDialect } from './kyverno/index.js';
import { kyvernoMpolDialect } from './kyverno-mpol/index.js';

/**
 * A fixed list of dialects, looked up by name or by the document one reads. A value, never a registry that
 * grows: a caller that needs other dialects (tests with fakes, a program with its own) builds its own set
 * with `dialectSet` and passes it where dialects are chosen (parsePolicyDocs, translate, the conformance run).
 */
export interface DialectSet {
  readonly list: readonly Dialect[];
  byName(name: string): Dialect | undefined;
  /** The first dialect of the list that reads this document. */
  for(doc: SourceDoc): Dialect | undefined;
  /** The names, in list order (for messages such as "known: ir, kyverno, ..."). */
  names(): string[];
}

/** A frozen set of `list`; a later dialect with the name of an earlier one is left out (the first wins). */
export function dialectSet(list: readonly Dialect[]): DialectSet {
  const byName = new Map<string, Dialect>();
  for (const d of list) if (!byName.has(d.name)) byName.set(d.name, d);
  const own = Object.freeze([...byName.values()]);
  return Object.freeze({
    list: own,
    byName: (name: string) => byName.get(name),
    for: (doc: SourceDoc) => own.find((d) => d.recognizes(doc)),
    names: () => own.map((d) => d.name),
  });
}

/** Every dialect transmute ships, one line each. */
export const BUILT_IN_DIALECTS: DialectSet = dialectSet([irDialect, kyvernoDialect, gatekeeperDialect, mapDialect, kyvernoMpolDialect]);

/** The built-in dialects and then `extra` (a name already built in keeps the built-in dialect). */
export function withDialects(extra: readonly Dialect[], base: DialectSet = BUILT_IN_DIALECTS): DialectSet {
  return dialectSet([...base.list, ...extra]);
}

export function dialects(): readonly Dialect[] {
  return BUILT_IN_DIALECTS.list;
}

export function dialectByName(name: string): Dialect | undefined {
  return BUILT_IN_DIALECTS.byName(name);
}

/** The built-in dialect that reads this document, if any. */
export function dialectFor(doc: SourceDoc): Dialect | undefined {
  return BUILT_IN_DIALECTS.for(doc);
}
