/**
 * The two CEL policy targets share one emitter (emit-policies.ts): kube-apiserver's MutatingAdmissionPolicy
 * and Kyverno's MutatingPolicy. They differ in the CEL environment an expression runs in:
 * - MAP: `object, oldObject, params, request, namespaceObject, variables, authorizer` and Kubernetes' libraries;
 * - MutatingPolicy (mpol/compiler/compiler.go): no `params`, no `authorizer`; `request` is the whole admission
 *   request (it also carries `object`, `oldObject`, `roles`, `clusterRoles`); Kyverno's libraries on top.
 * CEL read from one of them is carried over to the other only where it means the same there.
 */
import { parse } from '../../cel/index.js';
import { scopedSubexpressions, subexpressions, type Expr } from '../../cel/ast.js';
import { cannot, notYet, type Refusal } from '../generate-report.js';

export interface CelTarget {
  dialect: 'map' | 'kyverno-mpol';
  /** The target's name in messages. */
  label: string;
  /** The variables its expressions may name. */
  variables: readonly string[];
  /** The oldest Kubernetes version the output must run on: its CEL libraries bound what may be emitted. */
  k8sVersion?: string;
  /**
   * CEL written for `from`'s environment as CEL of this target (identical when it means the same), or why not.
   * `renames` maps free identifiers to the expressions that replace them (MAP `params` inlined as a variable).
   */
  carry(text: string, from: string, renames?: ReadonlyMap<string, string>): string | Refusal;
}

/** The free identifiers of an expression (names a comprehension binds are not free inside it), with their spans. */
export function freeIdentifiers(e: Expr, bound: ReadonlySet<string> = new Set(), out: { name: string; start: number; end: number }[] = []): typeof out {
  if (e.kind === 'ident') {
    if (!bound.has(e.name) && !e.leadingDot) out.push({ name: e.name, start: e.start, end: e.end });
    return out;
  }
  for (const [sub, b] of scopedSubexpressions(e, bound)) freeIdentifiers(sub, b, out);
  return out;
}

/** `text` with each free identifier in `renames` replaced by its expression. */
function rename(text: string, idents: ReturnType<typeof freeIdentifiers>, renames: ReadonlyMap<string, string>): string {
  let out = '';
  let at = 0;
  for (const id of [...idents].sort((a, b) => a.start - b.start)) {
    const to = renames.get(id.name);
    if (to === undefined) continue;
    out += text.slice(at, id.start) + to;
    at = id.end;
  }
  return out + text.slice(at);
}

/** Kyverno's CEL libraries (pkg/cel/libs): namespaces, and global functions. */
const KYVERNO_NAMESPACES = new Set(['resource', 'http', 'image', 'imagedata', 'globalContext', 'json', 'yaml', 'x509', 'hash', 'math', 'time', 'random', 'transform', 'gzip', 'user', 'base64', 'regex']);
const KYVERNO_FUNCTIONS = new Set(['image', 'parseImageReference']);

/** A Kyverno global library function called anywhere in `e`. */
function kyvernoFunction(e: Expr): string | undefined {
  if (e.kind === 'call' && !e.target && KYVERNO_FUNCTIONS.has(e.fn)) return e.fn;
  for (const sub of subexpressions(e)) {
    const found = kyvernoFunction(sub);
    if (found) return found;
  }
  return undefined;
}

const KYVERNO_REQUEST_FIELDS = new Set(['object', 'oldObject', 'roles', 'clusterRoles']);

/** A field of Kyverno's request that kube-apiserver's request lacks, selected anywhere in `e`. */
function kyvernoRequestField(e: Expr, bound: ReadonlySet<string> = new Set()): string | undefined {
  if (e.kind === 'select' && e.operand.kind === 'ident' && e.operand.name === 'request' && !bound.has('request') && KYVERNO_REQUEST_FIELDS.has(e.field)) return e.field;
  for (const [sub, b] of scopedSubexpressions(e, bound)) {
    const found = kyvernoRequestField(sub, b);
    if (found) return found;
  }
  return undefined;
}

function carryInto(target: 'map' | 'kyverno-mpol', text: string, from: string, renames: ReadonlyMap<string, string> | undefined): string | Refusal {
  if (from !== 'map' && from !== 'kyverno-mpol') return text;
  const parsed = parse(text);
  if (!parsed.ok) return notYet(`the CEL expression ${text.trim()}, which does not parse`);
  const idents = freeIdentifiers(parsed.value);
  const free = new Set(idents.map((i) => i.name));
  if (target === 'kyverno-mpol' && from === 'map') {
    if (free.has('authorizer')) return cannot(`the authorizer checks of ${text.trim()} (Kyverno's MutatingPolicy environment has no authorizer)`);
    if (free.has('params') && !renames?.has('params')) return cannot(`a parameter object (params): MutatingPolicy has no paramKind`);
  }
  if (target === 'map' && from === 'kyverno-mpol') {
    // Kyverno's request carries the object and the user's roles; kube-apiserver's does not. Kyverno's
    // libraries are caught when the emitted CEL is compiled in the target's environment.
    const field = kyvernoRequestField(parsed.value);
    if (field) return cannot(`request.${field} in ${text.trim()} (Kyverno's request carries it, kube-apiserver's does not)`);
    const lib = [...free].find((n) => KYVERNO_NAMESPACES.has(n)) ?? kyvernoFunction(parsed.value);
    if (lib) return cannot(`Kyverno's ${lib} CEL library (in ${text.trim().slice(0, 120)}), which kube-apiserver's CEL environment does not have`);
  }
  return renames && renames.size > 0 ? rename(text, idents, renames) : text;
}

export const MAP_TARGET: CelTarget = {
  dialect: 'map',
  label: 'MutatingAdmissionPolicy',
  variables: ['object', 'oldObject', 'params', 'request', 'namespaceObject', 'variables', 'authorizer'],
  carry: (text, from, renames) => carryInto('map', text, from, renames),
};

export const MPOL_TARGET: CelTarget = {
  dialect: 'kyverno-mpol',
  label: 'Kyverno MutatingPolicy',
  variables: ['object', 'oldObject', 'request', 'namespaceObject', 'variables'],
  carry: (text, from, renames) => carryInto('kyverno-mpol', text, from, renames),
};
