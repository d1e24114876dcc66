/**
 * The one Kyverno foreach shape MAP states exactly: over `request.object.<list>`, a strategic merge of
 * `{<list>: [{"(key)": "{{element.key}}", ...body}]}`, i.e. "merge body into every item that has this key"
 * (the conditional anchor selects the items with the element's key; kyverno/pkg/engine/mutate foreach).
 * The body becomes path ops on `<list>[key: *]`: scalars are set, `+(field)` sets only where missing.
 */
import { isJsonObject, type JsonObject, type JsonValue } from '../../ir/json.js';
import type { ForEachOp, Guard, Op } from '../../ir/nodes.js';
import type { Segment } from '../../ir/path.js';
import { parse as parseYaml } from 'yaml';
import { NAMED_LISTS } from '../../lowering/raise-kyverno-smp.js';

// `|| `[]`` only turns a missing list into an empty one: no iteration either way.
const LIST = /^request\.object((?:\.[A-Za-z_][A-Za-z0-9_]*)+)(?:\[\])?(?:\s*\|\|\s*`\[\]`)?$/;
const ADD_IF_MISSING = /^\+\((.+)\)$/;

function bodyOps(v: JsonObject, segs: Segment[], origin: ForEachOp['origin'], out: Op[]): string | undefined {
  for (const [rawKey, x] of Object.entries(v)) {
    const add = ADD_IF_MISSING.exec(rawKey);
    const key = add ? add[1]! : rawKey;
    if (!add && /^[+=<^X]?\(.*\)$|^\$/.test(rawKey)) return `the strategic-merge anchor ${JSON.stringify(rawKey)} in a foreach`;
    if (JSON.stringify(x).includes('{{')) return 'a foreach patch with variables beyond the selecting key';
    if (isJsonObject(x) && !add && Object.keys(x).length > 0) {
      const r = bodyOps(x, [...segs, { kind: 'field', name: key }], origin, out);
      if (r) return r;
      continue;
    }
    if (Array.isArray(x) || isJsonObject(x) || x === null) return `a ${x === null ? 'null' : Array.isArray(x) ? 'list' : 'map'} value in a foreach strategic merge`;
    const last: Segment = add ? { kind: 'field', name: key, test: 'notExist' } : { kind: 'field', name: key };
    out.push({ kind: 'set', path: { root: 'object', segments: [...segs, last] }, value: { kind: 'literal', json: x as JsonValue, origin }, origin });
  }
  return undefined;
}

export function forEachOps(op: ForEachOp): Op[] | string {
  const list = 'kind' in op.list && op.list.kind === 'jmes' ? LIST.exec(op.list.expr.text.trim()) : null;
  if (!list) return 'a foreach over anything but a list of the object';
  const fields = list[1]!.slice(1).split('.');
  const [when] = op.body;
  if (op.body.length !== 1 || when?.kind !== 'when' || when.else?.length || when.then.length > 2) return 'this foreach body';
  const g = when.guard;
  if (g.kind !== 'neq' || g.path.root !== 'vars' || g.value.kind !== 'literal' || g.value.json !== null) return 'this foreach condition';
  if (when.then.length === 2) return jsonPatchBody(op, fields, when.then, { kind: 'each' });
  const inner = when.then[0]!;
  if (inner.kind === 'when' && !inner.else?.length && inner.then.length === 2) {
    const selected = elementSelection(inner.guard, op.bind);
    if (typeof selected === 'string') return selected;
    return jsonPatchBody(op, fields, inner.then, selected);
  }
  const merge = when.then[0]!;
  if (merge.kind !== 'merge' || merge.strategy !== 'smp' || merge.path.segments.length > 0 || merge.value.kind !== 'templated') return 'this foreach body';
  // Each iteration's merge moves its element to the front (kyaml Prepend): only a Descending loop over every
  // element leaves the list in its order; kyverno/foreach.ts writes the other orders.
  if (op.order !== 'desc') return 'a foreach strategic merge in Ascending order';
  let node: JsonValue = merge.value.json;
  for (const f of fields) {
    if (!isJsonObject(node) || Object.keys(node).length !== 1 || !(f in node)) return 'a foreach patch that is not the iterated list';
    node = node[f]!;
  }
  if (!Array.isArray(node) || node.length !== 1 || !isJsonObject(node[0])) return 'a foreach patch that is not one list item';
  const item = node[0];
  const anchors = Object.keys(item).filter((k) => /^\(.+\)$/.test(k));
  if (anchors.length !== 1) return 'a foreach item without exactly one selecting key';
  const key = anchors[0]!.slice(1, -1);
  // `[key: *]` reaches every element; Kyverno fails the rule on one without the key ({{element.key}}): only
  // lists whose elements always carry it (the API server requires their names) read the same.
  if (key !== 'name' || !NAMED_LISTS.has(fields[fields.length - 1]!)) return `a foreach item selected by ${anchors[0]} in a list whose elements may lack it`;
  const want = new RegExp(`^\\{\\{\\s*${op.bind.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}\\.${key.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}\\s*\\}\\}$`);
  if (typeof item[anchors[0]!] !== 'string' || !want.test(item[anchors[0]!] as string)) return 'a foreach item selected by something other than its own key';
  const body: JsonObject = {};
  for (const [k, v] of Object.entries(item)) if (k !== anchors[0]) body[k] = v;
  const out: Op[] = [];
  const segs: Segment[] = [...fields.map((name): Segment => ({ kind: 'field', name })), { kind: 'keyedGlob', key }];
  const why = bodyOps(body, segs, op.origin, out);
  if (why) return why;
  // An item whose `+()` keys it all has already is dropped by the anchor cleanup: that element is not merged,
  // so not moved to the front, and the list comes out reordered (kyverno/foreach.ts writes those moves). A
  // leaf written unconditionally keeps every item (lowering/raise-kyverno-foreach.ts asks the same).
  if (!out.some((o) => o.kind === 'set' && o.path.segments.every((x) => !('test' in x) || x.test === undefined))) return 'a foreach strategic merge whose every leaf is below a +() anchor';
  return out;
}

/**
 * `let $patch = "- path: /<list>/{{elementIndex}}/<fields>\n  op: add\n  value: ..."` then the JSON patch of
 * it (Kyverno's add creates missing parents and replaces what is there): a set on every item.
 */
function jsonPatchBody(op: ForEachOp, fields: readonly string[], body: readonly Op[], element: Segment): Op[] | string {
  const [bind, patch] = body;
  if (bind?.kind !== 'let' || bind.value.kind !== 'templated' || typeof bind.value.json !== 'string') return 'this foreach body';
  if (patch?.kind !== 'jsonPatch' || patch.profile !== 'kyverno' || patch.steps.length > 0 || patch.stepsFrom?.kind !== 'jmes' || !patch.stepsFrom.expr.text.includes(bind.name)) return 'this foreach body';
  if (!op.indexBind) return 'a foreach without an index';
  let steps: unknown;
  try {
    steps = parseYaml(bind.value.json);
  } catch {
    return 'a foreach JSON patch that is not YAML';
  }
  if (!Array.isArray(steps)) return 'a foreach JSON patch that is not a list';
  const prefix = `/${fields.join('/')}/{{${op.indexBind}}}/`;
  const out: Op[] = [];
  for (const step of steps) {
    if (!isJsonObject(step) || step.op !== 'add' || typeof step.path !== 'string' || !('value' in step)) return 'a foreach JSON patch step other than add';
    const path = step.path.replace(/\{\{\s*/g, '{{').replace(/\s*\}\}/g, '}}');
    if (!path.startsWith(prefix)) return 'a foreach JSON patch outside the iterated item';
    const rest = path.slice(prefix.length).split('/');
    if (rest.some((r) => r === '' || /^\d+$|^-$|[~{}]/.test(r)) || JSON.stringify(step.value).includes('{{') || step.value === null) return 'this foreach JSON patch path or value';
    const segs: Segment[] = [...fields.map((name): Segment => ({ kind: 'field', name })), element, ...rest.map((name): Segment => ({ kind: 'field', name }))];
    out.push({ kind: 'set', path: { root: 'object', segments: segs }, value: { kind: 'literal', json: step.value as JsonValue, origin: op.origin }, origin: op.origin });
  }
  return out;
}

const CONDITIONS = /^kyverno_conditions\(`([\s\S]*)`\)$/;

/**
 * A foreach precondition `{{ element.<field> || '' }}` Equals "<word>" as the keyed selection of the items
 * whose field holds the word. The `|| ''` makes a missing field compare unequal instead of failing the rule
 * (Kyverno's JMESPath raises on a missing key, kyverno.md §1.6 8); a word that starts with a letter and holds
 * no wildcard is compared as a plain string (Equals tries durations and quantities only on what parses as
 * one, kyverno.md §1.5).
 */
function elementSelection(g: Guard, bind: string): Segment | string {
  const m = g.kind === 'jmes' ? CONDITIONS.exec(g.expr.text.trim()) : null;
  if (!m) return 'this foreach condition';
  let doc: unknown;
  try {
    doc = JSON.parse(m[1]!);
  } catch {
    return 'this foreach condition';
  }
  const list = isJsonObject(doc as JsonValue) ? (doc as JsonObject) : undefined;
  const keys = list ? Object.keys(list) : [];
  const conds = keys.length === 1 && (keys[0] === 'all' || keys[0] === 'any') ? list![keys[0]!] : undefined;
  if (!Array.isArray(conds) || conds.length !== 1 || !isJsonObject(conds[0])) return 'this foreach condition';
  const { key, operator, value, ...rest } = conds[0];
  if (Object.keys(rest).some((k) => k !== 'message') || operator !== 'Equals' || typeof key !== 'string' || typeof value !== 'string') return 'this foreach condition';
  const escaped = bind.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
  const field = new RegExp(`^\\{\\{\\s*${escaped}\\.([A-Za-z_][A-Za-z0-9_]*)\\s*\\|\\|\\s*''\\s*\\}\\}$`).exec(key);
  if (!field || !/^[A-Za-z][A-Za-z0-9._-]*$/.test(value)) return 'a foreach condition other than an element field (with a default) equal to a word';
  return { kind: 'keyed', key: field[1]!, value, create: false };
}
