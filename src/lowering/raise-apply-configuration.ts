/**
 * Raising: a MAP ApplyConfiguration (`merge ssa object = cel "Object{...}"` of literals) becomes the `set` ops
 * its structured merge performs (apply-configuration.ts), when that holds for every kind the policy can
 * match. The kinds come from the match's resource rules through the built-in resource table; a rule with a
 * wildcard, a subresource or a resource without a known schema leaves the merge as it is, since the typing
 * (and so the apiserver's verdict) depends on the kind, unless the patch only touches `metadata`.
 */
import { kindSchema, type KindSchema } from '../engines/ssa.js';
import type { MatchClause } from '../ir/match.js';
import type { Expr } from '../cel/ast.js';
import { OP } from '../cel/ast.js';
import { parse } from '../cel/index.js';
import type { Guard, MergeOp, Op, Origin, Policy, SetOp } from '../ir/nodes.js';
import { kindOfResource } from '../k8s/resources.js';
import { applyConfigurationOps, objectTree, objectTreeWithComputed } from './apply-configuration.js';
import { exprToGuard } from './cel-guard.js';
import { kindFacts } from './kind-facts.js';
import { exprText } from './cel-kyverno/closed.js';
import { dropUnusedLazyLets } from './unused-lets.js';

/** The schemas of every kind the policy's resource rules name, or undefined when one is unknown or open. */
export function matchedKindSchemas(p: Policy): KindSchema[] | undefined {
  const clauses: MatchClause[] = [...(p.match.all ?? []), ...(p.match.any ?? []), ...p.rules.flatMap((r) => [...(r.match?.all ?? []), ...(r.match?.any ?? [])])];
  const out: KindSchema[] = [];
  let sawRules = false;
  for (const c of clauses) {
    if (c.kinds?.length) return undefined;
    for (const r of c.resources ?? []) {
      sawRules = true;
      for (const group of r.groups) {
        for (const version of r.versions) {
          for (const resource of r.resources) {
            if (group === '*' || version === '*' || resource.includes('*') || resource.includes('/')) return undefined;
            const gvk = kindOfResource({ group, version, resource });
            const schema = gvk && kindSchema(gvk);
            if (!schema) return undefined;
            if (!out.some((s) => s.schema === schema.schema && s.typeRef === schema.typeRef)) out.push(schema);
          }
        }
      }
    }
  }
  return sawRules && out.length > 0 ? out : undefined;
}

function isRootSsaMerge(op: Op): op is MergeOp {
  return op.kind === 'merge' && op.strategy === 'ssa' && op.path.root === 'object' && op.path.segments.length === 0 && op.value.kind === 'cel';
}

function sameOps(a: readonly SetOp[], b: readonly SetOp[]): boolean {
  return JSON.stringify(a.map((o) => [o.path.segments, o.value])) === JSON.stringify(b.map((o) => [o.path.segments, o.value]));
}

/**
 * Every kind, custom resources included, types `metadata` as ObjectMeta; so a patch of `metadata` alone is
 * typed the same whatever the match, and any built-in kind stands for all of them.
 */
function metadataOnly(): KindSchema[] | undefined {
  const pod = kindSchema({ group: '', version: 'v1', kind: 'Pod' });
  return pod ? [pod] : undefined;
}

/**
 * How far a raising goes: `computed` also raises apply configurations whose scalar leaves are computed from
 * the request (set ops with CEL values) and conditionals on any CEL condition (a `when` on a CEL guard), for
 * a target that compiles CEL itself (Kyverno: cel-kyverno/compile.ts) and refuses what it cannot state.
 */
export interface RaiseOptions {
  computed?: boolean;
  /** The expression's text, for the source of computed leaves. */
  text?: string;
}

/** The sets of one `Object{...}` literal, the same for every kind, or undefined. */
function literalOps(e: Expr, kindsOrAny: readonly KindSchema[] | undefined, origin: Origin, opts: RaiseOptions = {}): SetOp[] | undefined {
  const tree = opts.computed && opts.text !== undefined ? objectTreeWithComputed(e, opts.text) : objectTree(e);
  if (typeof tree === 'string') return undefined;
  const kinds = kindsOrAny ?? (Object.keys(tree).every((k) => k === 'metadata') ? metadataOnly() : undefined);
  if (!kinds) return undefined;
  let result: SetOp[] | undefined;
  for (const k of kinds) {
    const ops = applyConfigurationOps(k.schema, k.typeRef, tree, origin);
    if (typeof ops === 'string') return undefined;
    if (result && !sameOps(result, ops)) return undefined;
    result = ops;
  }
  return result;
}

/**
 * The ops of an ApplyConfiguration expression: an `Object{...}` literal, or `cond ? A : B` over such
 * expressions where `cond` raises to a guard that cannot error (cel-guard.ts); `Object{}` merges nothing.
 */
function expressionOps(e: Expr, kinds: readonly KindSchema[] | undefined, origin: Origin, opts: RaiseOptions = {}): Op[] | undefined {
  if (e.kind === 'call' && e.fn === OP.cond && e.target === undefined && e.args.length === 3) {
    const c = e.args[0]!;
    const celGuard: Guard | undefined = opts.computed && opts.text !== undefined ? { kind: 'cel', expr: { text: exprText(opts.text, c), origin }, origin } : undefined;
    const guard = exprToGuard(c, origin, kindFacts(kinds)) ?? celGuard;
    const then = guard && expressionOps(e.args[1]!, kinds, origin, opts);
    const otherwise = then && expressionOps(e.args[2]!, kinds, origin, opts);
    if (!guard || !then || !otherwise) return undefined;
    if (then.length === 0 && otherwise.length === 0) return [];
    if (then.length === 0) return [{ kind: 'when', guard: negate(guard), then: otherwise, origin }];
    return [otherwise.length === 0 ? { kind: 'when', guard, then, origin } : { kind: 'when', guard, then, else: otherwise, origin }];
  }
  return literalOps(e, kinds, origin, opts);
}

function negate(g: Guard): Guard {
  if (g.kind === 'not') return g.arg;
  if (g.kind === 'exists') return { kind: 'notExists', path: g.path, origin: g.origin };
  if (g.kind === 'notExists') return { kind: 'exists', path: g.path, origin: g.origin };
  return { kind: 'not', arg: g, origin: g.origin };
}

/** The ops replacing one merge, or undefined to keep it. */
function raiseMerge(op: MergeOp, kinds: readonly KindSchema[] | undefined, computed: boolean): Op[] | undefined {
  if (op.value.kind !== 'cel') return undefined;
  const text = op.value.expr.text;
  const parsed = parse(text);
  return parsed.ok ? expressionOps(parsed.value, kinds, op.origin, { computed, text }) : undefined;
}

export function raiseApplyConfiguration(policies: Policy[]): Policy[] {
  return raise(policies, false);
}

/** raiseApplyConfiguration, computed leaves and CEL conditions included (RaiseOptions). */
export function raiseApplyConfigurationComputed(policies: Policy[]): Policy[] {
  return raise(policies, true);
}

function raise(policies: Policy[], computed: boolean): Policy[] {
  return policies.map((p) => {
    if (!p.rules.some((r) => r.body.some(isRootSsaMerge))) return p;
    // Unknown kinds (wildcards, custom resources): only patches of metadata are raised.
    const kinds = matchedKindSchemas(p);
    let changed = false;
    const rules = p.rules.map((r) => {
      let ruleChanged = false;
      const body = r.body.flatMap((op): Op[] => {
        if (!isRootSsaMerge(op)) return [op];
        const raised = raiseMerge(op, kinds, computed);
        if (!raised) return [op];
        ruleChanged = true;
        return raised;
      });
      if (!ruleChanged) return r;
      changed = true;
      return dropUnusedLazyLets(p, { ...r, body });
    });
    return changed ? { ...p, rules } : p;
  });
}
