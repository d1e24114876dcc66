/**
 * merge.ts isNormal generated per schema (issue 17): the compiled merge (compiled-merge.ts) needs the whole
 * resource in kyaml's normal form before it may leave the fields its pattern does not name as they are, and
 * the first merge of every document verifies that by a walk over the schema's merge lists (a Pod: its
 * containers, their ports, env and mounts, volumes...). The generic walk looks every schema node up as it
 * goes; here each schema node gets a function with its field names and merge keys written in, and the same
 * checks in the same order, so the answer is isNormal's. What it records in NormalForms too, with one
 * difference: it does not ask whether a map is known (see below), so where isNormal trusts a map known from
 * a recent merge, it walks the map and may record, verified, lists isNormal did not visit.
 * test/merge/smp/normal-check.test.ts compares both over random documents, with and without known facts.
 */
import { Constants, instantiate, literal } from '../../compile/source.js';
import { hasOwn, type JsonValue } from '../../ir/json.js';
import { scalarText } from './go-text.js';
import { isNormal, isPlainList } from './merge.js';
import type { NormalForms } from './normal-forms.js';
import { isLeafMergeList, KNOWN, UNMEMOIZED_LIST_MAX, type SmpSchema } from './schema.js';

export type NormalCheck = (v: JsonValue, normalForms: NormalForms | undefined) => boolean;

const checks = new WeakMap<SmpSchema, NormalCheck | null>();

const HELP = { hasOwn, isNormal, isPlainList, scalarText };

/** isNormal(v, schema, normalForms) for a known schema; the generic walk where code cannot be generated. */
export function normalCheck(schema: SmpSchema): NormalCheck {
  let check = checks.get(schema);
  if (check === undefined) checks.set(schema, (check = generate(schema) ?? null));
  return check ?? ((v, normalForms) => isNormal(v, schema, normalForms));
}

interface Gen {
  readonly k: Constants;
  readonly h: string;
  readonly names: Map<SmpSchema, string>;
  readonly fns: string[];
}

function generate(root: SmpSchema): NormalCheck | undefined {
  const k = new Constants();
  const g: Gen = { k, h: k.ref(HELP), names: new Map(), fns: [] };
  const name = functionFor(root, g);
  return instantiate<NormalCheck>(`${g.fns.join('\n')}\nreturn ${name};`, k);
}

/** merge.ts ownField with a constant name. */
function ownRead(key: string, g: Gen, obj = 'v'): string {
  return key in Object.prototype ? `(${g.h}.hasOwn(${obj}, ${literal(key)}) ? ${obj}[${literal(key)}] : undefined)` : `${obj}[${literal(key)}]`;
}

/**
 * merge.ts isPlainList for merge keys `keys` (at least one): every element a map with every key a non-empty
 * scalar, and no two elements with the same key text (sameText: equal, or of different types and equal as
 * text). Returns the function's name.
 */
function plainListFunction(keys: readonly string[], g: Gen): string {
  const name = `p${g.names.size}_${g.fns.length}`;
  const reads = keys.map((key, i) => `const k${i} = ${ownRead(key, g, 'el')}; if (k${i} === undefined || k${i} === null || typeof k${i} === 'object' || k${i} === '') return false;`);
  const same = keys.map((key, i) => `((x = p[${literal(key)}]) === k${i} || (typeof x !== typeof k${i} && ${g.h}.scalarText(x) === ${g.h}.scalarText(k${i})))`).join(' && ');
  g.fns.push(`function ${name}(v) {
for (let i = 0; i < v.length; i++) {
const el = v[i];
if (el === null || typeof el !== 'object' || Array.isArray(el)) return false;
${reads.join('\n')}
for (let j = 0; j < i; j++) { const p = v[j]; let x; if (${same}) return false; }
}
return true;
}`);
  return name;
}

/** The name of the check of `schema`, generating it (and those it calls) once; schemas may be recursive. */
function functionFor(schema: SmpSchema, g: Gen): string {
  const known = g.names.get(schema);
  if (known !== undefined) return known;
  const name = `c${g.names.size}`;
  g.names.set(schema, name);
  const s = g.k.ref(schema);
  const lines = ['if (v === null) return false;', "if (typeof v !== 'object') return true;"];
  const keys = schema.merge;
  if (keys === undefined) lines.push('if (Array.isArray(v)) return true;');
  else {
    const element = keys.length > 0 ? functionFor(schema.items ?? KNOWN, g) : undefined;
    const plain = keys.length === 0 ? `${g.h}.isPlainList(v, ${g.k.ref(keys)})` : `${plainListFunction(keys, g)}(v)`;
    lines.push(
      'if (Array.isArray(v)) {',
      // As isNormal: a short list of plain elements is checked again rather than remembered.
      isLeafMergeList(schema) ? `if (v.length <= ${UNMEMOIZED_LIST_MAX}) return ${plain};` : '',
      `if (nf !== undefined && nf.has(v, ${s})) return true;`,
      `if (!${plain}) return false;`,
      element === undefined ? '' : `for (let i = 0; i < v.length; i++) if (!${element}(v[i], nf)) return false;`,
      `if (nf !== undefined) nf.addVerified(v, ${s});`,
      'return true;',
      '}',
    );
  }
  const fields = schema.fieldNames;
  if (schema.values !== undefined) lines.push(`return ${g.h}.isNormal(v, ${s}, nf);`);
  else if (fields !== undefined && fields.length > 0) {
    // Unlike isNormal, no look-up of the map itself: a map is known only as a recent merge result, and
    // walking it again to its lists (looked up) costs less than asking for every map of every document.
    fields.forEach((field, i) => {
      const check = functionFor(schema.fieldSchemas![i]!, g);
      lines.push(`{ const f = ${ownRead(field, g)}; if (f !== undefined && !${check}(f, nf)) return false; }`);
    });
    lines.push('return true;');
  } else lines.push('return true;');
  g.fns.push(`function ${name}(v, nf) {\n${lines.filter((l) => l !== '').join('\n')}\n}`);
  return name;
}
