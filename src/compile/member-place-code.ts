/**
 * The two walks map-run-patch.ts makes along a JSONPatch step's path of object members, written out per path
 * (issue 17): read with the path's keys as constants, each look-up is one V8 caches, where a loop over the
 * pieces sees every key of every path at one place. Made for the paths a JSONPatch op keeps (PlaceMemo: the
 * constant paths of its steps), once per path.
 */
import { copyForNewKeys } from '../ir/json-copy.js';
import type { JsonObject, JsonValue } from '../ir/json.js';
import { Constants, instantiate, literal } from './source.js';

/** What the write of a member needs: the owned maps, the copies the patch made so far, and where to say an owned map changed. */
export interface MemberWrite {
  owned: { has(v: object): boolean };
  /** Made at the first copy: a write through maps the run owns, the usual one, copies nothing. */
  created: (JsonObject | JsonValue[])[] | undefined;
  inPlace: boolean;
}

export interface MemberPlaceCode {
  /** The map holding the member (path[1 .. last - 1] all present, non-null, non-list objects), or undefined. */
  parent(doc: JsonObject): JsonObject | undefined;
  /**
   * Sets the member to `value` in `doc` (whose path parent() found): the maps from the root down to the
   * member's are a copy this write made earlier, an owned map reached through owned maps (written in place),
   * or copied (pushed to `created`). Returns the root.
   */
  write(doc: JsonObject, value: JsonValue, w: MemberWrite): JsonObject;
}

/** Paths longer than this keep the loop. */
const MAX_DEPTH = 12;

/** The code of the member at `path` (decoded pieces, the first the root's empty one), or undefined. */
export function memberPlaceCode(path: readonly string[]): MemberPlaceCode | undefined {
  const last = path.length - 1;
  if (last < 1 || last > MAX_DEPTH || path.includes('__proto__')) return undefined;
  const k = new Constants();
  const parent: string[] = ['let c = doc;'];
  for (let j = 1; j < last; j++) {
    const key = literal(path[j]!);
    parent.push(`if (!own(c, ${key})) return undefined;`, `c = c[${key}];`, "if (c === null || typeof c !== 'object' || Array.isArray(c)) return undefined;");
  }
  parent.push('return c;');
  // Level j's map is m{j}; m0 the root.
  const write: string[] = ['let chain = true;', 'let m0 = doc;', level('m0', undefined, undefined)];
  for (let j = 1; j < last; j++) write.push(`let m${j} = m${j - 1}[${literal(path[j]!)}];`, level(`m${j}`, `m${j - 1}`, path[j]!));
  write.push(`m${last - 1}[${literal(path[last]!)}] = value;`, 'return m0;');
  const body = [
    'const own = h.hasOwn;',
    `const copy = ${k.ref(copyForNewKeys)};`,
    'return {',
    `parent(doc) { ${parent.join('\n')} },`,
    `write(doc, value, w) { ${write.join('\n')} },`,
    '};',
  ].join('\n');
  return instantiate<MemberPlaceCode>(body, k);
}

/** The statements making map `m` writable (see MemberPlaceCode.write); `above` holds it under `key`. */
function level(m: string, above: string | undefined, key: string | undefined): string {
  const link = above === undefined ? '' : `${above}[${literal(key!)}] = ${m};`;
  return [
    `if (w.created !== undefined && w.created.includes(${m})) chain = false;`,
    `else if (chain && w.owned.has(${m})) w.inPlace = true;`,
    `else { ${m} = copy(${m}); (w.created ??= []).push(${m}); ${link} chain = false; }`,
  ].join('\n');
}
