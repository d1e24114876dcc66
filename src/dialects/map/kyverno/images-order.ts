/**
 * Whether a translated rule reading Kyverno's `images` still reads what Kyverno reads. Kyverno parses `images`
 * once, from the object its policy context was made from (pkg/engine/context AddImageInfos: the loader keeps a
 * pointer to that resource, and nothing registers it again after a rule's patch), so every rule of a policy
 * sees the images the object came with. The translation's `images` variable (lowering/jmes-cel/images.ts)
 * reads the object its mutation is given, which holds what the mutations before it wrote. Both read the same
 * where no earlier mutation of the policy writes a place on the path of a container list of a pod spec that
 * the rule reads (and nearly so where it writes another list: see imagesChanged).
 *
 * Writes are read from the generated CEL: a JSONPatch's `path`s and `from`s up to their first computed part
 * (independent-entries.ts writePaths), an ApplyConfiguration's fields down through its typed literals
 * (`Object{metadata: Object.metadata{labels: ...}}` writes `metadata.labels`). Anything else writes anywhere:
 * the answer errs towards a refusal. Only the places of the kinds the reading rule matches count: an earlier
 * rule for Pods does not change a Deployment's images.
 */
import type { MatchSpec } from '../../../ir/match.js';
import { IMAGE_LISTS, POD_SPEC_FIELDS } from '../../kyverno/context-images.js';
import { blankStrings, overlaps, writePaths, type Path } from './independent-entries.js';

/** A mutation as the policy holds it. */
interface Mutation {
  readonly patchType: 'ApplyConfiguration' | 'JSONPatch';
  readonly expression: string;
}

/** The kinds `match` names, or undefined for any kind (a wildcard, a rule without kinds). */
function kindsOf(match: MatchSpec): string[] | undefined {
  const kinds = [...(match.any ?? []), ...(match.all ?? [])].flatMap((c) => c.kinds ?? []);
  return kinds.length === 0 || kinds.some((k) => /[*?]/.test(k.kind)) ? undefined : kinds.map((k) => k.kind);
}

/** The places of the `lists` of `images` on `kinds`: a kind's pod-spec lists, none for a kind without images. */
function imagePlaces(kinds: readonly string[] | undefined, lists: readonly string[]): Path[] {
  const specs = kinds === undefined ? [...new Set(POD_SPEC_FIELDS.values())] : kinds.map((k) => POD_SPEC_FIELDS.get(k)).filter((f): f is readonly string[] => f !== undefined);
  return specs.flatMap((fields) => lists.map((list) => [...fields, list]));
}

/** The mutations one earlier rule of the policy became, and the kinds it matches (its mutations act on those only). */
export interface EarlierRule {
  readonly mutations: readonly Mutation[];
  readonly match: MatchSpec;
}

/**
 * What the mutations of `earlier` may have changed of Kyverno's `images` for a rule matching `match` that reads
 * the lists `read`, rules of other kinds aside:
 * - `read`: a list it reads (or a place the analysis cannot tell): the rule would read other images;
 * - `other`: only lists it does not read: it reads the same entries, but its CEL fails where a changed
 *   container of another list lost its name or got an image Kyverno cannot parse, where Kyverno's rule, reading
 *   the images the object came with, does not;
 * - `none`.
 */
export function imagesChanged(earlier: readonly EarlierRule[], match: MatchSpec, read: readonly string[]): 'read' | 'other' | 'none' {
  const kinds = kindsOf(match);
  const readPlaces = imagePlaces(kinds, read);
  const otherPlaces = imagePlaces(kinds, IMAGE_LISTS.filter((l) => !read.includes(l)));
  let other = false;
  for (const rule of earlier) {
    const theirs = kindsOf(rule.match);
    if (kinds !== undefined && theirs !== undefined && !theirs.some((k) => kinds.includes(k))) continue;
    for (const m of rule.mutations) {
      const writes = m.patchType === 'JSONPatch' ? writePaths(m.expression) : applyConfigurationWrites(m.expression);
      if (writes === undefined) return 'read';
      if (writes.some((w) => readPlaces.some((p) => overlaps(w, p)))) return 'read';
      if (writes.some((w) => otherPlaces.some((p) => overlaps(w, p)))) other = true;
    }
  }
  return other ? 'other' : 'none';
}

/**
 * The places an ApplyConfiguration expression writes, when it is one `Object{...}` literal: each field's
 * place, but where its value is itself a typed literal (`Object.spec.template{...}`), the places of that
 * literal's fields. Undefined for any other expression (a condition, a variable, anything computed).
 */
export function applyConfigurationWrites(expression: string): Path[] | undefined {
  const cel = blankStrings(expression.trim());
  const out: Path[] = [];
  const end = typedLiteral(cel, 0, [], out);
  return end === cel.length ? out : undefined;
}

const TYPE_NAME = /^Object(?:\.[A-Za-z_][A-Za-z0-9_]*)*\s*\{/;
const FIELD = /^\s*\??([A-Za-z_][A-Za-z0-9_]*)\s*:\s*/;

/** Reads the typed literal at `at` (placed at `path`) into `out`; where it ends, or -1 when it is none. */
function typedLiteral(cel: string, at: number, path: Path, out: Path[]): number {
  const head = TYPE_NAME.exec(cel.slice(at));
  if (head === null) return -1;
  let i = at + head[0].length;
  for (;;) {
    i = skipSpace(cel, i);
    if (cel[i] === '}') return i + 1;
    const field = FIELD.exec(cel.slice(i));
    if (field === null) return -1;
    i += field[0].length;
    const place = [...path, field[1]!];
    const nested = TYPE_NAME.test(cel.slice(i)) ? typedLiteral(cel, i, place, out) : -1;
    if (nested >= 0) i = nested;
    else {
      out.push(place);
      i = valueEnd(cel, i);
      if (i < 0) return -1;
    }
    i = skipSpace(cel, i);
    if (cel[i] === ',') i++;
    else if (cel[i] !== '}') return -1;
  }
}

function skipSpace(cel: string, i: number): number {
  while (i < cel.length && /\s/.test(cel[i]!)) i++;
  return i;
}

/** Where the value starting at `i` ends: at the `,` or `}` closing it, brackets and (blanked) strings skipped. */
function valueEnd(cel: string, i: number): number {
  let depth = 0;
  for (; i < cel.length; i++) {
    const ch = cel[i]!;
    if (ch === '"' || ch === "'") {
      i = cel.indexOf(ch, i + 1);
      if (i < 0) return -1;
    } else if (ch === '{' || ch === '[' || ch === '(') depth++;
    else if (ch === '}' || ch === ']' || ch === ')') {
      if (depth === 0) return ch === '}' ? i : -1;
      depth--;
    } else if (ch === ',' && depth === 0) return i;
  }
  return -1;
}
