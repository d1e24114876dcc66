/**
 * What Kyverno's JMESPath context roots mean in a CEL policy: `request.object` is `object`, the other request
 * fields Kyverno reads from the admission request are `request.<field>`, context entries are the policy's
 * `variables`, foreach elements are comprehension variables. The MutatingPolicy environment's request also
 * carries the object and old object too (pkg/cel/compiler/request.go), not the user's roles.
 */
import { T, type Binding, type JmesCelScope, type Ty } from '../../../lowering/jmes-cel/index.js';

/**
 * `existing`: a mutate-existing rule, run by Kyverno's background controller on each target. Its patch lands
 * on the target, which is the MutatingPolicy's `object`; `request.object` still names the trigger, which
 * Kyverno's CEL request carries.
 */
function requestBinding(target: 'map' | 'kyverno-mpol', existing: boolean, objectType: Ty): Binding {
  const fields: Record<string, Binding> = {
    object: { cel: existing ? 'request.object' : 'object', type: objectType },
    oldObject: { cel: existing ? 'request.oldObject' : 'oldObject', type: T.nullable(objectType) },
    // The four operations are guaranteed at admission only; a background request may carry none.
    operation: existing ? { cel: 'request.operation', type: T.dyn } : { cel: 'request.operation' },
    // Kyverno's context always holds the namespace (AddNamespace: '' for a cluster-scoped object); the CEL
    // request leaves an empty one out (engines/cel.ts requestValue).
    namespace: { cel: 'request.?namespace.orValue("")', type: T.string },
    name: { cel: 'request.name' },
    kind: { cel: 'request.kind' },
    resource: { cel: 'request.resource' },
    subResource: { cel: 'request.subResource' },
    userInfo: { cel: 'request.userInfo' },
    uid: { cel: 'request.uid' },
    dryRun: { cel: 'request.dryRun' },
  };
  return { fields };
}

/** A scope: the request, plus names bound by the rule (context entries, foreach elements). */
export class RuleScope implements JmesCelScope {
  private readonly names: Map<string, Binding>;
  /** The context entries bound, in order (withEntry): Kyverno's deferred loaders. */
  private readonly entries: readonly string[];

  /**
   * @param objectType the type of the request's object, from the schemas of the kinds the rule matches (a rule
   *   on `Pod` in any group is typed as the built-in Pod, as Kyverno's rules are written for it)
   */
  constructor(
    readonly target: 'map' | 'kyverno-mpol',
    names: ReadonlyMap<string, Binding> = new Map(),
    readonly existing = false,
    readonly objectType: Ty = T.dyn,
    entries: readonly string[] = [],
  ) {
    this.names = new Map(names);
    this.entries = entries;
    if (existing && !this.names.has('target')) this.names.set('target', { cel: 'object', type: T.dyn });
  }

  root(name: string): Binding | undefined {
    if (name === 'request') return requestBinding(this.target, this.existing, this.objectType);
    return this.names.get(name);
  }

  /**
   * Every context entry of the rule (and of the foreach around the expression) is bound before its
   * expressions are compiled, or the rule is refused: any other name is absent from Kyverno's context.
   */
  absent(name: string): boolean {
    return name !== 'request' && !this.names.has(name);
  }

  deferred(): readonly string[] {
    return this.entries;
  }

  /** The kind of the request's object, when the rule's kinds fix it. */
  get objectKind(): string | undefined {
    const kind = this.objectType.k === 'map' ? this.objectType.fields.kind : undefined;
    return kind?.k === 'string' && kind.oneOf?.length === 1 ? kind.oneOf[0] : undefined;
  }

  /** A new scope with `name` bound to a structured binding. */
  withBinding(name: string, binding: Binding): RuleScope {
    return this.bound(name, binding, this.entries);
  }

  /** A new scope with `name` bound (a later binding of the same name hides the earlier one). */
  with(name: string, cel: string, type?: Ty): RuleScope {
    return this.bound(name, type === undefined ? { cel } : { cel, type }, this.entries);
  }

  /** `with`, for a context entry: one of Kyverno's deferred loaders (a name bound again is listed once). */
  withEntry(name: string, cel: string, type?: Ty): RuleScope {
    return this.bound(name, type === undefined ? { cel } : { cel, type }, [...this.entries.filter((n) => n !== name), name]);
  }

  private bound(name: string, binding: Binding, entries: readonly string[]): RuleScope {
    const names = new Map(this.names);
    names.set(name, binding);
    return new RuleScope(this.target, names, this.existing, this.objectType, entries);
  }
}
