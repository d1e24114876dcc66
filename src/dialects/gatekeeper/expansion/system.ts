/**
 * Gatekeeper's expansion system (pkg/expansion/system.go): the installed templates, and `expand`, which turns a
 * generator into the resources it would create. Every template matching the generator's GVK builds one
 * resultant (resultant.ts); each resultant is mutated as a `Generated` object with no admission operation; then
 * each is expanded again, recursively (a CronJob into a Job into a Pod), to a depth of 30. The list comes back
 * deepest first, as upstream appends a resultant's own resultants before it.
 */
import type { JsonObject } from '../../../ir/json.js';
import { expandResource, type Built } from './resultant.js';
import { TemplateDb } from './template-db.js';
import { gvkOfObject, type ExpansionTemplate } from './template.js';
import { validateTemplate } from './validate.js';
import { stringAt } from './unstructured.js';

/** A safeguard: the template graph has no cycles, so recursion this deep means a bug (system.go). */
export const MAX_RECURSION_DEPTH = 30;

export type Source = 'Original' | 'Generated';

/** mutationtypes.Mutable: an object with what the mutators' match needs besides it. */
export interface Mutable {
  object: JsonObject;
  /** The Namespace object (`{}` for gator's cluster-scoped objects), or null when none is known. */
  namespace: JsonObject | null;
  username: string;
  source: Source;
  /** The admission operation; expansion mutates with none (''), whatever the generator's operation was. */
  operation?: string;
}

export interface Resultant {
  object: JsonObject;
  templateName: string;
  enforcementAction: string;
}

/** What the mutation system does to one object: the mutated object, or the error that stopped it. */
export type MutateFn = (m: Mutable) => Built<JsonObject>;

export class ExpansionSystem {
  readonly db = new TemplateDb();

  /** `mutate` absent: resultants are not mutated (a nil mutation system upstream). */
  constructor(private readonly mutate?: MutateFn) {}

  /** UpsertTemplate: the template is validated first (ValidateTemplate), then installed. */
  upsertTemplate(template: ExpansionTemplate): string | null {
    const problem = validateTemplate(template);
    if (problem) return problem.message;
    return this.db.upsert(template);
  }

  removeTemplate(template: ExpansionTemplate): string | null {
    if (template.name === '') return 'cannot remove template with empty name';
    this.db.remove(template);
    return null;
  }

  /** Expand: every resultant of `base`, recursively, each mutated; [] when no template matches. */
  expand(base: Mutable): Built<Resultant[]> {
    const out: Resultant[] = [];
    const err = this.expandRecursive(base, out, 0);
    return err === null ? { ok: true, value: out } : { ok: false, error: err };
  }

  private expandRecursive(base: Mutable, out: Resultant[], depth: number): string | null {
    if (depth >= MAX_RECURSION_DEPTH) return `maximum recursion depth of ${MAX_RECURSION_DEPTH} reached`;
    const res = this.expandOnce(base);
    if (!res.ok) return res.error;
    for (const r of res.value) {
      const err = this.expandRecursive({ object: r.object, namespace: base.namespace, username: base.username, source: base.source }, out, depth + 1);
      if (err !== null) return err;
    }
    out.push(...res.value);
    return null;
  }

  private expandOnce(base: Mutable): Built<Resultant[]> {
    const gvk = gvkOfObject(base.object);
    if (gvk.group === '' && gvk.version === '' && gvk.kind === '') {
      return { ok: false, error: `cannot expand resource ${stringAt(base.object, ['metadata', 'name'])} with empty GVK` };
    }
    const resultants: Resultant[] = [];
    for (const t of this.db.templatesForGVK(gvk)) {
      const built = expandResource(base.object, base.namespace, t);
      if (!built.ok) return built;
      resultants.push({ object: built.value, templateName: t.name, enforcementAction: t.enforcementAction });
    }
    if (!this.mutate) return { ok: true, value: resultants };
    for (const r of resultants) {
      const mutated = this.mutate({ object: r.object, namespace: base.namespace, username: base.username, source: 'Generated' });
      if (!mutated.ok) return { ok: false, error: `failed to mutate resultant resource ${stringAt(r.object, ['metadata', 'name'])}: ${mutated.error}` };
      r.object = mutated.value;
    }
    return { ok: true, value: resultants };
  }
}
