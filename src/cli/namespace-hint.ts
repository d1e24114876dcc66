/**
 * A request denied because a namespace selector needed the Namespace of the resource and none was given: the
 * cluster holds it for kube-apiserver and Gatekeeper, and the message is theirs. Offline the Namespace comes
 * from the command line, which the note on the denial says.
 */
import type { Diagnostic } from '../diagnostics/diagnostic.js';
import { isMissingNamespaceError } from '../k8s/clause.js';

export const NAMESPACE_HINT = 'offline, the Namespace of the resource is given with --namespace-object FILE or as a Namespace document among the -r inputs';

/** `diagnostics` with the note added to each denial of that kind (the others as they are). */
export function withNamespaceHints(diagnostics: readonly Diagnostic[]): Diagnostic[] {
  return diagnostics.map((d) => (d.severity === 'error' && isMissingNamespaceError(d.message) ? { ...d, related: [...(d.related ?? []), { message: NAMESPACE_HINT }] } : d));
}
