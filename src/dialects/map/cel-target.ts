/**
 * The two CEL policy targets share one emitter (emit-policies.ts): kube-apiserver's MutatingAdmissionPolicy
 * and Kyverno's MutatingPolicy. They differ in the CEL environment an expression runs in:
 * - MAP: `object, oldObject, params, request, namespaceObject, variables, authorizer` and Kubernetes' libraries;
 * - MutatingPolicy (mpol/compiler/compiler.go): no `params`, no `authorizer`; `request` is the whole admission
 *   request (it also carries `object`, `oldObject`, `roles`, `clusterRoles`); Kyverno's libraries on top.
 * CEL read from one of them is carried over to the other only where it means the same there.
 */
import { parse } from '../../cel/index.js';
import type { Expr } from '../../cel/ast.js';
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
  switch (e.kind) {
    case 'ident':
      if (!bound.has(e.name) && !e.leadingDot) out.push({ name: e.name, start: e.start, end: e.end });
      break;
    case 'literal':
      break;
    case 'select':
      freeIdentifiers(e.operand, bound, out);
      break;
    case 'index':
      freeIdentifiers(e.operand, bound, out);
      freeIdentifiers(e.index, bound, out);
      break;
    case 'call':
      if (e.target) freeIdentifiers(e.target, bound, out);
      for (const a of e.args) freeIdentifiers(a, bound, out);
      break;
    case 'list':
      for (const x of e.elements) freeIdentifiers(x, bound, out);
      break;
    case 'map':
      for (const en of e.entries) {
        freeIdentifiers(en.key, bound, out);
        freeIdentifiers(en.value, bound, out);
      }
      break;
    case 'struct':
      for (const f of e.fields) freeIdentifiers(f.value, bound, out);
      break;
    case 'comprehension': {
      freeIdentifiers(e.range, bound, out);
      const inner = new Set(bound);
      inner.add(e.iterVar);
      if (e.iterVar2) inner.add(e.iterVar2);
      for (const a of e.args) freeIdentifiers(a, inner, out);
      break;
    }
  }
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
  let found: string | undefined;
  const visit = (x: Expr): void => {
    if (found) return;
    switch (x.kind) {
      case 'call':
        if (!x.target && KYVERNO_FUNCTIONS.has(x.fn)) found = x.fn;
        if (x.target) visit(x.target);
        return x.args.forEach(visit);
      case 'select':
        return visit(x.operand);
      case 'index':
        visit(x.operand);
        return visit(x.index);
      case 'list':
        return x.elements.forEach(visit);
      case 'map':
        return x.entries.forEach((en) => (visit(en.key), visit(en.value)));
      case 'struct':
        return x.fields.forEach((f) => visit(f.value));
      case 'comprehension':
        visit(x.range);
        return x.args.forEach(visit);
      default:
        return;
    }
  };
  visit(e);
  return found;
}

const KYVERNO_REQUEST_FIELDS = new Set(['object', 'oldObject', 'roles', 'clusterRoles']);

/** A field of Kyverno's request that kube-apiserver's request lacks, selected anywhere in `e`. */
function kyvernoRequestField(e: Expr): string | undefined {
  let found: string | undefined;
  const visit = (x: Expr, bound: ReadonlySet<string>): void => {
    if (found) return;
    if (x.kind === 'select' && x.operand.kind === 'ident' && x.operand.name === 'request' && !bound.has('request') && KYVERNO_REQUEST_FIELDS.has(x.field)) {
      found = x.field;
      return;
    }
    switch (x.kind) {
      case 'select':
        return visit(x.operand, bound);
      case 'index':
        visit(x.operand, bound);
        return visit(x.index, bound);
      case 'call':
        if (x.target) visit(x.target, bound);
        return x.args.forEach((a) => visit(a, bound));
      case 'list':
        return x.elements.forEach((a) => visit(a, bound));
      case 'map':
        return x.entries.forEach((en) => (visit(en.key, bound), visit(en.value, bound)));
      case 'struct':
        return x.fields.forEach((f) => visit(f.value, bound));
      case 'comprehension': {
        visit(x.range, bound);
        const inner = new Set(bound).add(x.iterVar);
        if (x.iterVar2) inner.add(x.iterVar2);
        return x.args.forEach((a) => visit(a, inner));
      }
      default:
        return;
    }
  };
  visit(e, new Set());
  return found;
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
