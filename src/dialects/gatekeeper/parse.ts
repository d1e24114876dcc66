/**
 * A set of Gatekeeper mutators as the mutation system holds them: every accepted mutator becomes a fix-point
 * policy, in Gatekeeper's order (kind, then name), and the mutators the implied-schema database puts in a
 * conflict stay in the set but are disabled, as upstream keeps them installed but skips them
 * (pkg/mutation/system.go). Keeping them also keeps the bound on passes at installed mutators + 1.
 */
import { diagnostic, type Diagnostic } from '../../diagnostics/diagnostic.js';
import type { ParseOptions, ParseResult } from '../dialect.js';
import { isJsonObject, type JsonObject } from '../../ir/json.js';
import type { Guard, Origin, Policy } from '../../ir/nodes.js';
import type { SourceDoc } from '../../io/source.js';
import { DIALECT } from './fields.js';
import { isExpansionTemplateDoc } from './expansion/template.js';
import { parseMutators, type GatekeeperMutator } from './mutators.js';
import { findSchemaConflicts, type SchemaConflict, type SchemaEntry } from './schema-conflicts.js';
import { pushAll } from '../../util/arrays.js';

export function schemaEntry(m: GatekeeperMutator): SchemaEntry | null {
  if (m.schema === null || m.applyTo === null) return null;
  return { id: m.policy.id, location: m.location, applyTo: m.applyTo, terminalType: m.schema.terminalType, mustTerminate: m.schema.mustTerminate };
}

/** Where a mutator's location is written (its op's path), for diagnostics about it. */
function locationOrigin(policy: Policy): Origin {
  const op = policy.rules[0]?.body[0];
  return (op && 'path' in op ? op.path.origin : undefined) ?? policy.origin;
}

/** A mutator caught in a schema conflict: a constant-false guard at its location disables it. */
function disabled(policy: Policy): Policy {
  const guard: Guard = { kind: 'const', value: false, origin: locationOrigin(policy) };
  return { ...policy, guards: [guard, ...policy.guards] };
}

function conflictDiagnostic(m: GatekeeperMutator, c: SchemaConflict): Diagnostic {
  const others = c.ids.filter((id) => id !== m.policy.id);
  // No catalogue code names this yet; TM2004 (invalid policy) as a warning is the closest (see the report).
  return diagnostic('TM2004', {
    phase: 'parse',
    severity: 'warning',
    dialect: DIALECT,
    message: `${m.policy.id} is disabled: its location conflicts with ${others.join(', ')} in the implied schema of ${c.binding} (ErrConflictingSchema); Gatekeeper skips every mutator in a conflict`,
    span: locationOrigin(m.policy),
  });
}

/** Case data of a conformance run (ConformanceParseOptions.conformance): `expectedConflicts` is checked here. */
function checkExpectedConflicts(opts: ParseOptions | undefined, found: ReadonlyMap<string, SchemaConflict>, mutators: readonly GatekeeperMutator[]): Diagnostic[] {
  const hints = (opts as { conformance?: JsonObject } | undefined)?.conformance;
  if (!isJsonObject(hints) || !Array.isArray(hints.expectedConflicts)) return [];
  const want = hints.expectedConflicts.filter((x): x is string => typeof x === 'string').sort();
  const got = mutators.filter((m) => found.has(m.policy.id)).map((m) => m.name).sort();
  if (want.join('\n') === got.join('\n')) return [];
  return [
    diagnostic('TM7004', {
      phase: 'parse',
      dialect: DIALECT,
      message: `expected the schema conflicts to disable [${want.join(', ')}], they disable [${got.join(', ')}]`,
    }),
  ];
}

/** An ExpansionTemplate outside `transmute expand`: admitted, then left out of the mutation system's IR. */
function ignoredTemplate(doc: SourceDoc): Diagnostic {
  const name = isJsonObject(doc.value) && isJsonObject(doc.value.metadata) && typeof doc.value.metadata.name === 'string' ? doc.value.metadata.name : '';
  return diagnostic('TM2010', {
    phase: 'parse',
    dialect: DIALECT,
    message: `ExpansionTemplate ${name} is ignored here: only 'transmute expand' expands workloads into the resources they create`,
    span: doc.spanOf(['kind']),
  });
}

/** Dialect.parse for Gatekeeper. */
export function parseGatekeeper(docs: readonly SourceDoc[], opts?: ParseOptions): ParseResult {
  const { mutators, diagnostics } = parseMutators(docs);
  const entries = mutators.map(schemaEntry).filter((e): e is SchemaEntry => e !== null);
  const conflicts = findSchemaConflicts(entries);
  const policies = mutators.map((m) => {
    const c = conflicts.get(m.policy.id);
    if (!c) return m.policy;
    diagnostics.push(conflictDiagnostic(m, c));
    return disabled(m.policy);
  });
  pushAll(diagnostics, checkExpectedConflicts(opts, conflicts, mutators));
  pushAll(diagnostics, docs.filter(isExpansionTemplateDoc).map(ignoredTemplate));
  return { policies, diagnostics };
}
