/**
 * The installed ExpansionTemplates and their graph (pkg/expansion/db.go): an edge from template A to B when A's
 * `generatedGVK` is one of B's `applyTo` GVKs, so that B expands what A generates. Installing a template whose
 * edges close a cycle fails with "template forms expansion cycle"; the template stays installed, and every
 * template of a strongly connected component larger than one is marked in conflict and no longer expands
 * anything (templatesForGVK skips it), until a change breaks the cycle.
 */
import type { GroupVersionKind } from '../../../k8s/request.js';
import { applyToGvks, gvkKey, type ExpansionTemplate } from './template.js';
import { compareUtf8 } from '../../../util/bytes.js';

interface TemplateState {
  template: ExpansionTemplate;
  hasConflicts: boolean;
}

function byteOrder(a: string, b: string): number {
  return compareUtf8(a, b);
}

export class TemplateDb {
  private readonly store = new Map<string, TemplateState>();
  /** GVK → templates whose applyTo names it. */
  private readonly matchers = new Map<string, Set<string>>();
  /** GVK → templates that generate it. */
  private readonly generators = new Map<string, Set<string>>();
  /** Out-edges of the template graph; a vertex, once added, stays (as in the upstream graph). */
  private readonly edges = new Map<string, Set<string>>();

  /** db.upsert: the error upstream returns, or null. */
  upsert(template: ExpansionTemplate): string | null {
    const id = template.name;
    const old = this.store.get(id);
    if (old) this.handleRemove(id);
    const added = this.handleAdd(template);
    if (typeof added === 'string') return `adding template to db: ${added}`;
    if (added || old?.hasConflicts) this.updateCycles();
    return added ? 'template forms expansion cycle' : null;
  }

  remove(template: ExpansionTemplate): void {
    const old = this.store.get(template.name);
    if (!old) return;
    this.handleRemove(template.name);
    if (old.hasConflicts) this.updateCycles();
  }

  /** The templates in a cycle (db.getConflicts). */
  conflicts(): Set<string> {
    return new Set([...this.store].filter(([, s]) => s.hasConflicts).map(([id]) => id));
  }

  /** The installed templates that expand `gvk`, by name (upstream iterates a Go map, in no fixed order). */
  templatesForGVK(gvk: GroupVersionKind): ExpansionTemplate[] {
    const ids = [...(this.matchers.get(gvkKey(gvk)) ?? [])].sort(byteOrder);
    return ids.map((id) => this.store.get(id)!).filter((s) => !s.hasConflicts).map((s) => s.template);
  }

  /** handleAdd: true when an edge closed a cycle, or the error of adding an edge twice. */
  private handleAdd(template: ExpansionTemplate): boolean | string {
    const id = template.name;
    this.store.set(id, { template, hasConflicts: false });
    add(this.generators, gvkKey(template.generatedGVK), id);
    for (const gvk of applyToGvks(template.applyTo)) add(this.matchers, gvkKey(gvk), id);
    if (!this.edges.has(id)) this.edges.set(id, new Set());
    let cycle = false;
    for (const [from, to] of this.edgesFor(template)) {
      cycle = this.createsCycle(from, to) || cycle;
      const out = this.edges.get(from)!;
      if (out.has(to)) return `adding edge for template ${id}: edge already exists`;
      out.add(to);
    }
    return cycle;
  }

  private handleRemove(id: string): void {
    const template = this.store.get(id)!.template;
    this.store.delete(id);
    drop(this.generators, gvkKey(template.generatedGVK), id);
    for (const gvk of applyToGvks(template.applyTo)) drop(this.matchers, gvkKey(gvk), id);
    for (const [from, to] of this.edgesFor(template)) this.edges.get(from)?.delete(to);
  }

  /** edgesForTemplate: out-edges to the templates expanding its output, in-edges from those generating its input. */
  private edgesFor(template: ExpansionTemplate): [string, string][] {
    const id = template.name;
    const out: [string, string][] = [];
    for (const t of this.matchers.get(gvkKey(template.generatedGVK)) ?? []) out.push([id, t]);
    for (const gvk of applyToGvks(template.applyTo)) for (const t of this.generators.get(gvkKey(gvk)) ?? []) out.push([t, id]);
    return out;
  }

  /** graph.CreatesCycle: an edge from → to closes a cycle when `to` already reaches `from` (or they are one). */
  private createsCycle(from: string, to: string): boolean {
    if (from === to) return true;
    const seen = new Set<string>();
    const stack = [to];
    while (stack.length > 0) {
      const v = stack.pop()!;
      if (v === from) return true;
      if (seen.has(v)) continue;
      seen.add(v);
      for (const next of this.edges.get(v) ?? []) stack.push(next);
    }
    return false;
  }

  /** updateCycles: a template is in conflict exactly when its strongly connected component has several members. */
  private updateCycles(): void {
    for (const s of this.store.values()) s.hasConflicts = false;
    for (const scc of stronglyConnected(this.edges)) {
      if (scc.length <= 1) continue;
      for (const id of scc) {
        const s = this.store.get(id);
        if (s) s.hasConflicts = true;
      }
    }
  }
}

function add(index: Map<string, Set<string>>, key: string, id: string): void {
  let set = index.get(key);
  if (!set) index.set(key, (set = new Set()));
  set.add(id);
}

function drop(index: Map<string, Set<string>>, key: string, id: string): void {
  const set = index.get(key);
  if (!set) return;
  set.delete(id);
  if (set.size === 0) index.delete(key);
}

/** Tarjan's strongly connected components, iterative so a long chain of templates cannot exhaust the stack. */
export function stronglyConnected(edges: ReadonlyMap<string, ReadonlySet<string>>): string[][] {
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const onStack = new Set<string>();
  const stack: string[] = [];
  const components: string[][] = [];
  let counter = 0;
  for (const root of edges.keys()) {
    if (index.has(root)) continue;
    const work: { v: string; next: Iterator<string> }[] = [];
    const visit = (v: string) => {
      index.set(v, counter);
      low.set(v, counter);
      counter++;
      stack.push(v);
      onStack.add(v);
      work.push({ v, next: (edges.get(v) ?? new Set<string>()).values() });
    };
    visit(root);
    while (work.length > 0) {
      const frame = work[work.length - 1]!;
      const step = frame.next.next();
      if (!step.done) {
        const w = step.value;
        if (!index.has(w)) visit(w);
        else if (onStack.has(w)) low.set(frame.v, Math.min(low.get(frame.v)!, index.get(w)!));
        continue;
      }
      work.pop();
      const parent = work[work.length - 1];
      if (parent) low.set(parent.v, Math.min(low.get(parent.v)!, low.get(frame.v)!));
      if (low.get(frame.v) === index.get(frame.v)) {
        const component: string[] = [];
        let w: string;
        do {
          w = stack.pop()!;
          onStack.delete(w);
          component.push(w);
        } while (w !== frame.v);
        components.push(component);
      }
    }
  }
  return components;
}
