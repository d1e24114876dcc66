/**
 * A Kyverno foreach whose strategic merge writes only scalar leaves of maps outside the iterated list, each
 * element its own (kyverno/policies add-apparmor: one annotation per container, named after it). Kyverno
 * merges the element's patch into what the elements before it left: a leaf is set, the maps above it made
 * where missing. As one JSONPatch: the maps the patch names are made once where missing (checked against the
 * object as the rule finds it) where some element passes, then each passing element sets its leaves, in
 * Kyverno's order, so that a leaf two elements write keeps the later one's value.
 *
 * Only maps of plain keys lead to the leaves; a key may be computed (`{{ }}`) at a leaf only. Anything else
 * (a list, a null that deletes, an empty map, anchors, directives) is refused.
 */
import { parseAnchor } from '../../../../grammars/kyverno-anchor.js';
import { isJsonObject, type JsonObject, type JsonValue } from '../../../ir/json.js';
import { notYet, type Refusal } from '../../generate-report.js';
import { and, fieldPlace, patch, ROOT, translationLimit, type Cel, type Place } from './cel-patch.js';
import { containersThenLoop, ensureContainers } from './foreach-containers.js';
import { refused, smpEnv, writeProblem, type RuleCompiler } from './rule.js';
import type { RuleScope } from './scope.js';
import { leafValue, type SmpEnv } from './smp.js';

type R<T> = T | Refusal;

/** How a refusal names the loop: over one list of the object, or over several joined. */
export type LeavesLoopKind = 'beside' | 'joined';

const WHERE: Record<LeavesLoopKind, string> = {
  beside: 'in a foreach strategic merge that does not write the iterated list (only maps and their scalar leaves are translated there)',
  joined: 'in a foreach strategic merge over joined lists (no patch names their elements: only maps and their scalar leaves are translated there)',
};

/** A map the patch names on the way to its leaves. */
interface MapNode {
  readonly place: Place;
  /** The path from the root, for the schema check of its leaves. */
  readonly steps: readonly string[];
  readonly children: Map<string, MapNode>;
}

interface Leaf {
  readonly parent: MapNode;
  readonly key: string;
  readonly value: string | number | boolean;
}

/** The loop's patches over the elements of `list` (`e`, `i`) that pass `guards`, or a refusal. */
export function leavesLoop(rc: RuleCompiler, kind: LeavesLoopKind, order: 'asc' | 'desc', list: Cel, e: string, i: string, scope: RuleScope, guards: readonly Cel[], pattern: JsonValue): R<Cel> {
  if (!isJsonObject(pattern)) return notYet('this foreach merge');
  const root: MapNode = { place: ROOT, steps: [], children: new Map() };
  const leaves: Leaf[] = [];
  const bad = collect(rc, WHERE[kind], pattern, root, leaves);
  if (bad) return bad;
  if (leaves.length === 0) return notYet('a foreach strategic merge that writes nothing');
  const writes: Cel[] = [];
  const env = smpEnv(rc, scope);
  for (const leaf of leaves) {
    const value = scalarLeaf(leaf.value, env);
    if (refused(value)) return value;
    if (!leaf.key.includes('{{')) {
      writes.push(patch('add', fieldPlace(leaf.parent.place, leaf.key).ptr, value));
      continue;
    }
    // Kyverno substitutes the key (it must come out a string); the pointer escapes it.
    const key = rc.template(leaf.key, scope);
    if (refused(key)) return key;
    writes.push(patch('add', [...leaf.parent.place.ptr, '/', { cel: `jsonpatch.escapeKey(string(${key}))` }], value));
  }
  return containersThenLoop(list, e, i, and(guards)!, ensureContainers(root), `[${writes.join(', ')}]`, order);
}

/** Walks the map `p` at `node`: its maps into the tree, its scalars into `leaves`. */
function collect(rc: RuleCompiler, where: string, p: JsonObject, node: MapNode, leaves: Leaf[]): Refusal | undefined {
  for (const [key, v] of Object.entries(p)) {
    if (key.startsWith('$') || parseAnchor(key) !== undefined) return notYet(`the key ${JSON.stringify(key)} ${where}`);
    const steps = [...node.steps, key];
    if (isJsonObject(v)) {
      if (key.includes('{{')) return notYet(`the variable in the key ${JSON.stringify(key)} above other keys ${where}`);
      if (Object.keys(v).length === 0) return notYet(`the empty map ${key} ${where}`);
      const child: MapNode = { place: fieldPlace(node.place, key), steps, children: new Map() };
      node.children.set(key, child);
      const bad = collect(rc, where, v, child, leaves);
      if (bad) return bad;
      continue;
    }
    if (v === null || Array.isArray(v)) return notYet(`${v === null ? 'a null (a deletion)' : 'a list'} at ${key} ${where}`);
    // A plain key is checked against the kinds' schemas; a computed one cannot be (as smp.ts templatedKey).
    if (!key.includes('{{')) {
      const problem = writeProblem(rc.env.match, steps, typeof v === 'string' && v.includes('{{') ? undefined : v);
      if (problem) return problem;
    }
    leaves.push({ parent: node, key, value: v });
  }
  return undefined;
}

/**
 * A leaf's value as CEL. A substituted value that may not be a scalar would be merged by Kyverno (null
 * removes, a map merges): this loop writes scalars only, so the CEL fails on anything else.
 */
function scalarLeaf(v: string | number | boolean, env: SmpEnv): R<Cel> {
  const leaf = leafValue(v, env);
  if (refused(leaf) || !leaf.substituted) return refused(leaf) ? leaf : leaf.cel;
  env.note('a `{{ }}` value a foreach writes into each element must substitute to a scalar: the CEL fails on null, a map or a list, which Kyverno merges');
  const x = env.fresh('x');
  const notScalar = translationLimit('a substituted value that is not a scalar, which Kyverno merges into each element, is not translated');
  return `[dyn(${leaf.cel})].map(${x}, ${x} == null || type(${x}) == map || type(${x}) == list ? ${notScalar} : ${x})[0]`;
}
