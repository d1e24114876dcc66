/**
 * What Kyverno's JMESPath context roots mean in a CEL policy: `request.object` is `object`, the other request
 * fields Kyverno reads from the admission request are `request.<field>`, context entries are the policy's
 * `variables`, foreach elements are comprehension variables. The MutatingPolicy environment's request also
 * carries the user's roles and cluster roles (mpol/compiler); kube-apiserver's does not.
 */
import type { Binding, JmesCelScope } from '../../../lowering/jmes-cel/index.js';

/**
 * `existing`: a mutate-existing rule, run by Kyverno's background controller on each target. Its patch lands
 * on the target, which is the MutatingPolicy's `object`; `request.object` still names the trigger, which
 * Kyverno's CEL request carries.
 */
function requestBinding(target: 'map' | 'kyverno-mpol', existing: boolean): Binding {
  const fields: Record<string, Binding> = {
    object: { cel: existing ? 'request.object' : 'object' },
    oldObject: { cel: existing ? 'request.oldObject' : 'oldObject' },
    operation: { cel: 'request.operation' },
    namespace: { cel: 'request.namespace' },
    name: { cel: 'request.name' },
    kind: { cel: 'request.kind' },
    resource: { cel: 'request.resource' },
    subResource: { cel: 'request.subResource' },
    userInfo: { cel: 'request.userInfo' },
    uid: { cel: 'request.uid' },
    dryRun: { cel: 'request.dryRun' },
  };
  if (target === 'kyverno-mpol') {
    fields.roles = { cel: 'request.roles' };
    fields.clusterRoles = { cel: 'request.clusterRoles' };
  }
  return { fields };
}

/** A scope: the request, plus names bound by the rule (context entries, foreach elements). */
export class RuleScope implements JmesCelScope {
  private readonly names: Map<string, Binding>;

  constructor(
    readonly target: 'map' | 'kyverno-mpol',
    names: ReadonlyMap<string, Binding> = new Map(),
    readonly existing = false,
  ) {
    this.names = new Map(names);
    if (existing && !this.names.has('target')) this.names.set('target', { cel: 'object' });
  }

  root(name: string): Binding | undefined {
    if (name === 'request') return requestBinding(this.target, this.existing);
    return this.names.get(name);
  }

  /** A new scope with `name` bound (a later binding of the same name hides the earlier one). */
  with(name: string, cel: string): RuleScope {
    const names = new Map(this.names);
    names.set(name, { cel });
    return new RuleScope(this.target, names, this.existing);
  }
}
