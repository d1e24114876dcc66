import type { Dialect } from './dialect.js';
import type { SourceDoc } from '../io/source.js';
import { gatekeeperDialect } from './gatekeeper/index.js';
import { irDialect } from './ir/index.js';
import { mapDialect } from './map/index.js';
import { kyvernoDialect } from './kyverno/index.js';
import { kyvernoMpolDialect } from './kyverno-mpol/index.js';

/** Every dialect transmute knows, one line each. */
const DIALECTS: Dialect[] = [
  irDialect,
  kyvernoDialect,
  gatekeeperDialect,
  mapDialect,
  kyvernoMpolDialect,
];

/** Adds a dialect at run time (tests register fakes); built-in dialects are listed above. */
export function registerDialect(dialect: Dialect): void {
  if (!DIALECTS.some((d) => d.name === dialect.name)) DIALECTS.push(dialect);
}

export function dialects(): readonly Dialect[] {
  return DIALECTS;
}

export function dialectByName(name: string): Dialect | undefined {
  return DIALECTS.find((d) => d.name === name);
}

/** The dialect that reads this document, if any. */
export function dialectFor(doc: SourceDoc): Dialect | undefined {
  return DIALECTS.find((d) => d.recognizes(doc));
}
