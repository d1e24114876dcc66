/**
 * The fused merge (fused-apply.ts) of a patch whose map levels have keys known in advance (a PatchTemplate,
 * src/compile/apply-template.ts: an ApplyConfiguration's `Object{...}` literal), planned once per schema
 * type: per key, its type node and whether the atomic guard goes on below it, so that the walk reads
 * `r[key]` in the template's order instead of enumerating the patch and looking each key up in the schema.
 */
import type { JsonValue } from '../../ir/json.js';
import type { PlannedMerge } from './fused-plan-code.js';
import { templateMayHoldUnmarshaler } from './go-decode-types.js';
import type { TypeNode } from './type-nodes.js';

/**
 * One map level of a patch: its keys in enumeration order and, per key, the template of a literal map value
 * (`children`) or of every item of a list value whose items are all such literals (`items`).
 */
export interface PatchTemplate {
  readonly keys: readonly string[];
  readonly children: readonly (PatchTemplate | undefined)[];
  readonly items: readonly (PatchTemplate | undefined)[];
}

/** One map level of a templated patch, typed: what mergeMap derives per key, derived once. */
export class MapPlan {
  /**
   * Per key, the last frozen value (a compiled constant, src/cel/mutation.ts constantObjectJson, the same
   * object at every evaluation) found to type strictly here with the guard `constantGuard`: frozen, so its
   * content is what was checked. Bounded: one value per key.
   */
  readonly typedConstants: (JsonValue | undefined)[];
  readonly constantGuards: boolean[];
  /** The plan's merge written out (fused-plan-code.ts), made on first use; null where the walk's loop stays. */
  code: PlannedMerge | null | undefined = undefined;

  constructor(
    readonly node: TypeNode,
    readonly keys: readonly string[],
    /** The key's node: the declared field's, else the element type's of an open map. */
    readonly children: readonly TypeNode[],
    /** The key is a declared field (the guard goes on below it; it stops at element types). */
    readonly declared: readonly boolean[],
    /** The plan of a key whose patch value is a literal map, when its node merges maps (else the generic walk). */
    readonly subPlans: readonly (MapPlan | undefined)[],
    /** The plan of the items of a key whose patch value is a list of literal maps, at an associative list's item node. */
    readonly itemPlans: readonly (MapPlan | undefined)[],
    /**
     * Whether a value of the patch that the template does not build (a leaf) may be a container where the
     * schema takes one, at this level or below: only such a value can bring a map of the object into the
     * result when the planned merge succeeds (one at a scalar-only node makes it give up: a map or list does
     * not type there). False lets a caller skip looking for the object's maps in the patch.
     */
    readonly leafContainers: boolean,
  ) {
    this.typedConstants = keys.map(() => undefined);
    this.constantGuards = keys.map(() => false);
  }
}

/** A node whose only form is a scalar: the merge keeps a fitting scalar there and gives up on anything else. */
export function scalarOnly(n: TypeNode): boolean {
  return n.atom !== undefined && n.scalar !== undefined && n.map === undefined && n.list === undefined;
}

/**
 * The plan of `template` at `node`, or undefined when the generic walk must take the level (a key the
 * struct does not declare, a node that does not merge maps: the walk then gives up as the generic one would).
 */
export function planMap(template: PatchTemplate, node: TypeNode): MapPlan | undefined {
  if (node.atom === undefined || node.map === undefined || node.map.elementRelationship === 'atomic') return undefined;
  const children: TypeNode[] = [];
  const declared: boolean[] = [];
  const subPlans: (MapPlan | undefined)[] = [];
  const itemPlans: (MapPlan | undefined)[] = [];
  let leafContainers = false;
  for (let i = 0; i < template.keys.length; i++) {
    const key = template.keys[i]!;
    const field = node.declaredNode(key);
    const child = field ?? (node.closed ? undefined : node.elementNode);
    if (child === undefined) return undefined;
    children.push(child);
    declared.push(field !== undefined);
    const sub = template.children[i];
    subPlans.push(sub === undefined ? undefined : planMap(sub, child));
    const items = template.items[i];
    // fused-apply.ts mergeValue takes a list only at an associative list node.
    const mergesItems = items !== undefined && child.atom !== undefined && child.list?.elementRelationship === 'associative';
    const itemPlan = mergesItems ? planMap(items, child.item) : undefined;
    itemPlans.push(itemPlan);
    // A literal the plan does not cover is merged by the generic walk, which may take its values whole.
    if (sub !== undefined) leafContainers ||= subPlans[i]?.leafContainers ?? true;
    else if (items !== undefined) leafContainers ||= itemPlan?.leafContainers ?? true;
    else leafContainers ||= !scalarOnly(child);
  }
  return new MapPlan(node, template.keys, children, declared, subPlans, itemPlans, leafContainers);
}

/**
 * An ApplyConfiguration's template with its plan for the last schema type it was merged at (a policy's
 * mutations all type one kind, nearly always): held by the merge op (src/interpreter/ops/merge.ts) and
 * handed to the engine with each merge (EngineContext.patchShape).
 */
export class PatchShape {
  private node: TypeNode | undefined;
  private plan: MapPlan | undefined;
  private unmarshalerNode: TypeNode | undefined;
  private unmarshaler = true;

  constructor(readonly template: PatchTemplate) {}

  /** go-decode-types.ts templateMayHoldUnmarshaler at `node`, decided on the first merge at it. */
  mayHoldUnmarshaler(node: TypeNode): boolean {
    if (this.unmarshalerNode !== node) {
      this.unmarshaler = templateMayHoldUnmarshaler(this.template, node);
      this.unmarshalerNode = node;
    }
    return this.unmarshaler;
  }

  /** The plan at `node`, made on the first merge at it. */
  planAt(node: TypeNode): MapPlan | undefined {
    if (this.node !== node) {
      this.plan = planMap(this.template, node);
      this.node = node;
    }
    return this.plan;
  }
}
