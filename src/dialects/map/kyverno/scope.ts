/**
 * What Kyverno's JMESPath context roots mean in a CEL policy: `request.object` is `object`, the other request
 * fields Kyverno reads from the admission request are `request.<field>`, context entries are the policy's
 * `variables`, foreach elements are comprehension variables. The MutatingPolicy environment's request also
 * carries the user's roles and cluster roles (mpol/compiler); kube-apiserver's does not.
 */
import type { Binding, JmesCelScope } from '../../../lowering/jmes-cel/index.js';

function requestBinding(target: 'map' | 'kyverno-mpol'): Binding {
  const fields: Record<string, Binding> = {
    object: { cel: 'object' },
    oldObject: { cel: 'oldObject' },
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
  ) {
    this.names = new Map(names);
  }

  root(name: string): Binding | undefined {
    if (name === 'request') return requestBinding(this.target);
    return this.names.get(name);
  }

  /** A new scope with `name` bound (a later binding of the same name hides the earlier one). */
  with(name: string, cel: string): RuleScope {
    const names = new Map(this.names);
    names.set(name, { cel });
    return new RuleScope(this.target, names);
  }
}
