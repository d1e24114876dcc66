/**
 * The shape of the patch a MAP ApplyConfiguration builds, read from its CEL syntax (issue 17): the
 * expression is nearly always an `Object{...}` literal tree, so the maps of its patch have keys known before
 * any evaluation. merge/ssa/fused-plan.ts plans the fused merge of such a patch once per schema type, and the
 * walk then follows the plan instead of enumerating the patch and looking each key up in the schema.
 *
 * A template is made only where the JSON map's enumeration order is the literal's key order: no key that is
 * an array index (JavaScript enumerates those first, by value), no `__proto__`, no optional `?f:` field or
 * entry (whose key may be missing), no repeated key. Below a key whose value is anything else than a
 * non-empty such literal, the template says nothing (`undefined`: the walk's generic path handles it).
 */
import type { Expr } from '../cel/ast.js';
import type { PatchTemplate } from '../merge/ssa/fused-plan.js';

/** The template of an ApplyConfiguration's CEL syntax (cel-syntax.ts), or undefined when its root is not such a literal. */
export function applyConfigurationTemplate(e: Expr | undefined): PatchTemplate | undefined {
  return e !== undefined && e.kind === 'struct' && e.typeName.startsWith('Object') ? templateOf(e) : undefined;
}

function templateOf(e: Expr): PatchTemplate | undefined {
  const keys: string[] = [];
  const values: Expr[] = [];
  if (e.kind === 'struct') {
    if (!e.typeName.startsWith('Object')) return undefined;
    for (const f of e.fields) {
      if (f.optional) return undefined;
      keys.push(f.name);
      values.push(f.value);
    }
  } else if (e.kind === 'map') {
    for (const en of e.entries) {
      if (en.optional || en.key.kind !== 'literal' || en.key.lit.type !== 'string') return undefined;
      keys.push(en.key.lit.value);
      values.push(en.value);
    }
  } else return undefined;
  // An empty map is a leaf of the merge (the generic path decides).
  if (keys.length === 0 || !keys.every(plainKey) || new Set(keys).size !== keys.length) return undefined;
  const children = values.map((v) => (v.kind === 'struct' || v.kind === 'map' ? templateOf(v) : undefined));
  const items = values.map(itemTemplate);
  // A literal below that takes no template stops the parent's too: its value's shape is then not known
  // (an optional entry, a key enumerated out of order), and a template's values are trusted to be maps.
  for (let i = 0; i < values.length; i++) {
    const v = values[i]!;
    if ((v.kind === 'struct' || v.kind === 'map') && children[i] === undefined && !emptyLiteral(v)) return undefined;
  }
  return { keys, children, items };
}

/**
 * The one template of every item of a list value: a list literal of literals of one template (no optional
 * element), or a `map()` whose transform is a literal; else undefined (the generic walk merges the items).
 */
function itemTemplate(e: Expr): PatchTemplate | undefined {
  if (e.kind === 'comprehension') {
    const transform = e.macro === 'map' ? e.args[e.args.length - 1] : undefined;
    return transform !== undefined && (transform.kind === 'struct' || transform.kind === 'map') ? templateOf(transform) : undefined;
  }
  if (e.kind !== 'list' || e.elements.length === 0 || e.optional.some(Boolean)) return undefined;
  const first = templateOf(e.elements[0]!);
  if (first === undefined) return undefined;
  for (let i = 1; i < e.elements.length; i++) if (!sameTemplate(first, templateOf(e.elements[i]!))) return undefined;
  return first;
}

function sameTemplate(a: PatchTemplate | undefined, b: PatchTemplate | undefined): boolean {
  if (a === undefined || b === undefined) return a === b;
  if (a.keys.length !== b.keys.length) return false;
  for (let i = 0; i < a.keys.length; i++) {
    if (a.keys[i] !== b.keys[i] || !sameTemplate(a.children[i], b.children[i]) || !sameTemplate(a.items[i], b.items[i])) return false;
  }
  return true;
}

function emptyLiteral(e: Expr): boolean {
  return (e.kind === 'struct' && e.fields.length === 0) || (e.kind === 'map' && e.entries.length === 0);
}

/** A key JavaScript enumerates in insertion order (not an array index) and that is an own data property. */
function plainKey(key: string): boolean {
  return key !== '__proto__' && !/^(0|[1-9][0-9]*)$/.test(key);
}
