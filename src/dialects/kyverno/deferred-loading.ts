/**
 * Kyverno's deferred loading of context data (pkg/engine/context/deferred.go; on unless disabled,
 * toggle.EnableDeferredLoading, in the webhook and the CLI alike). Before a query runs, Kyverno loads every
 * loader not loaded yet whose name the query's *text* mentions (evaluate.go Query → loadDeferred), in the
 * order the loaders were added: `images` (added with the policy context, context.go AddImageInfos), then the
 * rule's context entries, then a foreach's. A load that fails fails the query, and is tried again by the next
 * query that mentions it.
 *
 * The match is textual (NewDeferredLoader: `(?:\A|\z|\s|[^.0-9A-Za-z])NAME\b`), so a name in a string
 * literal (`contains(name, 'cm')`), in a filter's field (`[?cm]`) or in a branch the query never evaluates
 * (`a || cm` with `a` set) loads the entry as well: where its load fails, the query fails, though reading
 * values on access would never have reached it.
 */
import { OFFLINE } from '../../cel/lib/kyverno-context.js';
import type { ExprScope } from '../../interpreter/engines.js';
import { EvalFailure } from '../../interpreter/failure.js';
import { ImagesFailure } from './context-images.js';
import { QueryImages } from './document.js';

/** A load that failed, which fails the query: its message is the loader's error. */
export interface LoadFailure {
  readonly message: string;
}

/** The name of the loader of Kyverno's `images` context entry. */
const IMAGES = 'images';

const matchers = new Map<string, RegExp>();

/**
 * Whether NewDeferredLoader's pattern for `name` matches `query`. `[^.0-9A-Za-z]` holds every character of
 * RE2's `\s` and `\z` can start no match of a name, so the start of the text or one such character must
 * come before it; `\b` is ASCII in RE2 and in a RegExp without the `u` flag. Upstream writes the name into
 * its pattern as it is; here it is matched as text (entry names are plain identifiers in practice).
 */
export function mentions(query: string, name: string): boolean {
  if (!query.includes(name)) return false;
  let re = matchers.get(name);
  if (re === undefined) {
    re = new RegExp(`(?:^|[^.0-9A-Za-z])${name.replace(/[.*+?^${}()|[\]\\/-]/g, '\\$&')}\\b`);
    if (matchers.size > 4096) matchers.clear();
    matchers.set(name, re);
  }
  return re.test(query);
}

/** The `images` of `query`, read once for its load and its document, when its text mentions them; else undefined. */
export function queryImages(scope: ExprScope, query: string): QueryImages | undefined {
  return mentions(query, IMAGES) ? new QueryImages(scope) : undefined;
}

/**
 * Loads what Kyverno's deferred loaders would before running `query` against `scope`: `images` when the text
 * mentions them (`images`, queryImages of the query), then the scope's lazy context entries the text mentions (outermost first). The first load
 * that fails is returned as the query's failure, which a caller may catch as it catches any failed query (a
 * variable entry with a `default` takes it: loaders/variable.go), as Kyverno's Query returns the load's error.
 */
export function loadMentioned(scope: ExprScope, query: string, images: QueryImages | undefined): LoadFailure | undefined {
  const extracted = images?.get();
  if (extracted instanceof ImagesFailure) return extracted;
  if (scope.loadLazy === undefined) return undefined;
  try {
    scope.loadLazy((name) => mentions(query, name));
  } catch (e) {
    // Data this run lacks (a registry's image metadata, a network service) is not a load Kyverno fails: the
    // evaluation stops there, as it did before (runners count it unsupported or not run).
    if (e instanceof EvalFailure && !e.diagnostic.message.includes(OFFLINE)) return { message: e.diagnostic.message };
    throw e;
  }
  return undefined;
}
