/**
 * The construction steps the four mutator kinds share (pkg/mutation/mutators/core/mutator.go and the
 * per-kind MutatorFor* functions), each returning upstream's message, plus assembly of the IR policy.
 */
import { parseLocation, type LocationError } from '../../../grammars/gatekeeper-location.js';
import { diagnostic, type Diagnostic } from '../../diagnostics/diagnostic.js';
import type { Guard, Op, Policy } from '../../ir/nodes.js';
import type { Path } from '../../ir/path.js';
import type { YamlPath } from '../../io/source.js';
import { DIALECT, type FieldReader } from './fields.js';
import { DEFAULT_MAX_DEPTH } from '../../io/yaml-load.js';
import { fieldPath as fieldName } from '../../validate/field-error.js';
import { locationToSegments, type LocationPath } from './location.js';
import type { DecodedMatch, ApplyToEntry } from './match.js';
import { buildMatchSpec } from './match.js';
import { buildTester, lowerPathTests, type PathTest } from './path-tests.js';

export type MutatorKind = 'Assign' | 'AssignMetadata' | 'ModifySet' | 'AssignImage';

export const LOCATION_FIELD: YamlPath = ['spec', 'location'];
export const PATH_TESTS_FIELD: YamlPath = ['spec', 'parameters', 'pathTests'];

/** A construction check failed: the mutator is refused with upstream's message, pointing at `at`. */
export class Refusal {
  constructor(readonly diagnostic: Diagnostic) {}
}

export function refuse(r: FieldReader, message: string, at: YamlPath): Refusal {
  return new Refusal(diagnostic('TM2004', { phase: 'parse', message, span: r.span(at), dialect: DIALECT }));
}

/** core.ValidateName. */
export function checkName(r: FieldReader, name: string): Refusal | null {
  return name.length > 63 ? refuse(r, 'maximum name length is 63 characters', ['metadata', 'name']) : null;
}

/**
 * A location (or subPath) that does not parse: TM2003 pointing at the offending character inside the YAML
 * string, with upstream's wrapped message (`<prefix>: <parser error>`).
 */
function syntaxRefusal(r: FieldReader, field: YamlPath, prefix: string, err: LocationError): Refusal {
  const span = r.has(field) ? r.doc.spanInString(field, err.start, err.end) : r.span(field);
  return new Refusal(diagnostic('TM2003', { phase: 'parse', message: `${prefix}: ${err.message}`, span, dialect: DIALECT }));
}

/**
 * The deepest location transmute follows. An object read from YAML is at most DEFAULT_MAX_DEPTH levels deep,
 * so a longer location can never reach anything; refusing it keeps every walk over a path's segments bounded.
 */
export const MAX_LOCATION_SEGMENTS = DEFAULT_MAX_DEPTH;

function tooDeep(r: FieldReader, field: YamlPath, p: LocationPath): Refusal | undefined {
  if (p.length <= MAX_LOCATION_SEGMENTS) return undefined;
  const message = `${fieldName(field)} has ${p.length} segments; transmute follows at most ${MAX_LOCATION_SEGMENTS} (no object it reads is deeper)`;
  return new Refusal(diagnostic('TM1007', { phase: 'parse', message, span: r.span(field), dialect: DIALECT }));
}

export function parseLocationField(r: FieldReader, text: string, prefix: string): LocationPath | Refusal {
  const parsed = parseLocation(text);
  if (!parsed.ok) return syntaxRefusal(r, LOCATION_FIELD, prefix, parsed.error);
  return tooDeep(r, LOCATION_FIELD, parsed.path) ?? parsed.path;
}

/** core.CheckKeyNotChanged: `foo[name: bar].name` would rename the element it selects. */
export function checkKeyNotChanged(r: FieldReader, p: LocationPath): Refusal | null {
  if (p.length === 0) return refuse(r, 'empty path', LOCATION_FIELD);
  if (p.length < 2) return null;
  const last = p[p.length - 1]!;
  const secondLast = p[p.length - 2]!;
  if (secondLast.type !== 'List') return null;
  if (last.type !== 'Object') return refuse(r, "invalid path format: child of a list can't be a list", LOCATION_FIELD);
  if (last.reference === secondLast.keyField) return refuse(r, 'invalid path format: changing the item key is not allowed', LOCATION_FIELD);
  return null;
}

/** A pathTest as written in the document. */
export interface RawPathTest {
  subPath: string;
  condition: string;
}

export function readPathTests(r: FieldReader): RawPathTest[] {
  const items = r.array(PATH_TESTS_FIELD) ?? [];
  return items.map((_, i) => {
    const p = [...PATH_TESTS_FIELD, i];
    r.object(p, ['subPath', 'condition']);
    return {
      subPath: r.string([...p, 'subPath']) ?? '',
      condition: r.enumString([...p, 'condition'], ['MustExist', 'MustNotExist']) ?? '',
    };
  });
}

/** core.NewTester: parse every subPath, then tester.New (prefix rule and conflicts). */
export function buildPathTests(
  r: FieldReader,
  kind: MutatorKind,
  name: string,
  location: LocationPath,
  raw: readonly RawPathTest[],
): ReadonlyMap<number, string> | Refusal {
  const tests: PathTest[] = [];
  for (let i = 0; i < raw.length; i++) {
    const { subPath, condition } = raw[i]!;
    const parsed = parseLocation(subPath);
    if (!parsed.ok) {
      return syntaxRefusal(r, [...PATH_TESTS_FIELD, i, 'subPath'], `problem parsing sub path \`${subPath}\` for ${kind} ${name}`, parsed.error);
    }
    const deep = tooDeep(r, [...PATH_TESTS_FIELD, i, 'subPath'], parsed.path);
    if (deep) return deep;
    tests.push({ subPath: parsed.path, condition });
  }
  const tester = buildTester(location, tests);
  if (!tester.ok) return refuse(r, tester.message, [...PATH_TESTS_FIELD, tester.index, 'subPath']);
  return tester.tests;
}

/**
 * The IR path of a location with its tests on the segments, plus what cannot be said with segments:
 * a guard that is always false when a test has a condition no node satisfies, and warnings for int64 keys
 * beyond 2^53.
 */
export function targetPath(
  r: FieldReader,
  location: LocationPath,
  tests: ReadonlyMap<number, string>,
): { path: Path; guards: Guard[]; warnings: Diagnostic[] } {
  const { segments, lossyKeys } = locationToSegments(location);
  const lowered = lowerPathTests(segments, tests);
  const origin = r.origin(LOCATION_FIELD);
  const guards: Guard[] = lowered.unsatisfiableDepths.map(() => ({ kind: 'const', value: false, origin: r.origin(PATH_TESTS_FIELD) }));
  const warnings = lossyKeys.map((k) =>
    diagnostic('TM4003', {
      phase: 'parse',
      dialect: DIALECT,
      message: `list key value ${k.value} is beyond 2^53 and is held as ${k.stored} in the IR; it may match a different element`,
      span: k.node.keyValueRange ? r.doc.spanInString(LOCATION_FIELD, k.node.keyValueRange.start, k.node.keyValueRange.end) : r.span(LOCATION_FIELD),
    }),
  );
  return { path: { root: 'object', segments: lowered.segments, origin }, guards, warnings };
}

export interface PolicyParts {
  kind: MutatorKind;
  name: string;
  op: Op;
  applyTo: readonly ApplyToEntry[] | null;
  match: DecodedMatch;
  guards?: Guard[];
}

/**
 * One policy per mutator, run with every other Gatekeeper mutator to a fix-point: `id` is `<Kind>/<name>`,
 * one rule whose body is the mutator's op.
 */
export function buildPolicy(r: FieldReader, parts: PolicyParts): Policy {
  const { spec, sourceGuard } = buildMatchSpec(r, parts.applyTo, parts.match);
  const guards = [...(sourceGuard ? [sourceGuard] : []), ...(parts.guards ?? [])];
  return {
    id: `${parts.kind}/${parts.name}`,
    match: spec,
    guards,
    rules: [{ name: parts.kind, guards: [], body: [parts.op], origin: r.origin(['spec']) }],
    semantics: { order: 'fixpoint' },
    origin: r.origin([]),
  };
}

export interface MutatorHeader {
  kind: MutatorKind;
  apiVersion: string;
  name: string;
}

/** How a mutator takes part in implied-schema conflict detection (pkg/mutation/schema); null: not at all. */
export interface SchemaRole {
  terminalType: 'Unknown' | 'Set' | 'String';
  mustTerminate: boolean;
}

/** A mutator that passed every construction check, with its IR policy and what the system layer needs. */
export interface GatekeeperMutator extends MutatorHeader {
  location: LocationPath;
  /** null for AssignMetadata, which has no applyTo. */
  applyTo: ApplyToEntry[] | null;
  schema: SchemaRole | null;
  source: DecodedMatch['source'];
  policy: Policy;
}
