/** The operations Gatekeeper's mutating webhook is registered for (`pkg/mutation/match/apply_to.go`). */
export const GATEKEEPER_MUTATION_OPERATIONS: readonly string[] = ['CREATE', 'UPDATE'];

/**
 * Lowers a Gatekeeper `applyTo[].operations` list to the operations it really admits, for a MatchClause:
 * empty or `*` admit every operation the mutation webhook sees (CREATE and UPDATE); an explicit list keeps
 * only those two (DELETE and CONNECT "do not match until the mutation webhook supports them",
 * `MutationApplyTo.MatchesOperation`). `null` means the entry can never match and should be dropped.
 */
export function gatekeeperApplyToOperations(operations: readonly string[] | undefined): string[] | null {
  if (!operations || operations.length === 0 || operations.includes('*')) return [...GATEKEEPER_MUTATION_OPERATIONS];
  const kept = GATEKEEPER_MUTATION_OPERATIONS.filter((op) => operations.includes(op));
  return kept.length > 0 ? kept : null;
}

/**
 * How a request without an operation (audit, Gatekeeper expansion, gator: operation `''`) meets an
 * explicit operations list:
 * - `coversMutations`: Gatekeeper matches it only when the list covers every mutation operation (`*`, or
 *   both CREATE and UPDATE), so a CREATE-only mutator is not applied by expansion;
 * - `wildcardOnly`: everywhere else only `*` admits it (Kyverno compares the empty operation with the
 *   list; Kubernetes rules always see an operation).
 */
export type NoOperationRule = 'coversMutations' | 'wildcardOnly';

export type OperationTest = (operation: string) => boolean;

/** An operations criterion; `undefined` when the list is absent or empty (no constraint). */
export function compileOperations(list: readonly string[] | undefined, noOperation: NoOperationRule): OperationTest | undefined {
  if (!list || list.length === 0) return undefined;
  if (list.includes('*')) return () => true;
  const set = new Set(list);
  const admitsNone =
    noOperation === 'coversMutations' && GATEKEEPER_MUTATION_OPERATIONS.every((op) => set.has(op));
  return (op) => (op === '' ? admitsNone : set.has(op));
}
