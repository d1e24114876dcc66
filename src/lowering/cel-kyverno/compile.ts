/**
 * A MutatingAdmissionPolicy or MutatingPolicy CEL expression (env.ts: the environment it was written for) as a
 * Kyverno JMESPath expression with the same value, plus the exact condition under which the CEL fails: a
 * Kyverno rule states the value in a `{{ }}` hole and the failure in its preconditions (a rule that fails under
 * that condition, where the policy's failurePolicy is Fail). Only the forms below are compiled; anything else is
 * refused, never approximated.
 *
 * Every compiled term has
 * - `j`: JMESPath evaluated only where the CEL does not fail, with the CEL's value there. It never raises an
 *   error other than Kyverno's NotFound on a missing key, and that only where the CEL fails too (a field read
 *   whose key is missing), so it is safe as a comparison operand or function argument, which swallow NotFound;
 * - `err`: a JMESPath boolean (cond.ts) that never raises, true exactly where the CEL fails.
 *
 * The forms and why each is exact:
 * - reads `object.a.b["c"]`, `oldObject...`, `request.<field>`: CEL fails ("no such key") exactly when a key on
 *   the way is missing (or its parent is no map): `err` is the negated presence test of the whole chain;
 *   `object`, `object.metadata` (and `object.spec` of struct-spec kinds) are always there (cel-guard.ts);
 * - `has(P.f)`, `P.?f`, `.hasValue()`, `.orValue(d)`, `.value()`, `optional.of/none`: presence tests; an
 *   optional chain never fails after its first `?` (cel-go keeps the rest of the chain optional);
 * - `==`, `!=`: CEL's heterogeneous equality and JMESPath's deep equality agree on JSON values (numbers
 *   compare by value in both, different types are unequal in both); an optional equals an optional only;
 * - `&&`, `||`: CEL absorbs an error on one side when the other side decides the result: `err` says exactly
 *   that; the value uses `== true` tests so an operand that failed reads as false;
 * - `c ? a : b`: `(c && [a] || [b])[0]` (a one-element list is truthy whatever it holds);
 * - `+ - *` on ints: Kyverno's add/subtract/multiply of float64, exact for integers within ±2^53 (JSON numbers
 *   beyond that are rounded by every JSON decoder involved); `%`: modulo, which fails on 0 as CEL does;
 * - `+` on strings: join; `string(int)`: to_string (Go's JSON text of an integral float64 is its digits);
 *   `int(string)`: to_number where the string is an optional sign and decimal digits, a failure otherwise;
 * - `x in [literals]`: contains; `s.startsWith/endsWith/contains(t)`: starts_with/ends_with/contains;
 *   `size(x)`: length (Unicode code points of a string in both, items of a list, keys of a map).
 * A MutatingPolicy's `request` also carries the admission request's `object` and `oldObject` (the object as
 * the request brought it, before any policy of the webhook call mutated it: reads through it are marked
 * `admission`, and the generator checks that nothing written before the read changes them) and the user's
 * `roles` and `clusterRoles` (lists, empty where Kyverno's context holds null or nothing). Calls of Kyverno's
 * CEL libraries are refused, each with the class its Kyverno counterpart gives (kyvernoLibraryRefusal).
 * Operand types come from the literal, the operation, or the kind's schema (kube-apiserver hands MAP objects
 * decoded into their Go types, so a field holds its schema type; built-in kinds have no floating-point
 * fields); an operand of unknown type is refused. CEL's cost limit is not reproduced: these forms have no
 * loops, so their cost is bounded by the object's size, far below the limit.
 */
import type { Expr } from '../../cel/ast.js';
import { OP } from '../../cel/ast.js';
import { parse } from '../../cel/index.js';
import { jmesField, jmesLiteral } from '../../dialects/kyverno/emit-text.js';
import { notYet, type Refusal } from '../../dialects/generate-report.js';
import type { KindSchema } from '../../engines/ssa.js';
import type { JsonValue } from '../../ir/json.js';
import type { Atom, MapType, TypeRef } from '../../merge/ssa/schema.js';
import { isEmptyTypeRef } from '../../merge/ssa/schema.js';
import { ALWAYS, keyOf, type Facts } from '../cel-guard.js';
import { and, atom, equals, FALSE, not, or, render, TRUE, type Cond } from './cond.js';
import { cannot } from '../../dialects/generate-report.js';
import { MAP_ENV, qualifiedName, type CelEnv } from './env.js';

export type Ty = 'string' | 'int' | 'double' | 'bool' | 'null' | 'list' | 'map' | 'dyn';

export type Root = 'object' | 'oldObject' | 'request';

/**
 * A document read: `fields` below `root`; `presence` when only whether the field is there matters (a write
 * strictly below it, which needs it there, leaves that unchanged).
 */
export interface Read {
  root: Root;
  fields: string[];
  presence?: boolean;
  /**
   * Read through a MutatingPolicy's `request.object` / `request.oldObject`: the object as the admission request
   * brought it, which Kyverno's `request.object` is only until a rule (of this or an earlier policy) writes.
   */
  admission?: boolean;
}

export interface Term {
  j: string;
  ty: Ty;
  err: Cond;
  /** The boolean value as a condition, for bool terms. */
  cond?: Cond;
  /** A chain of reads from a root, when the term is one (optional from `optionalFrom` on). */
  path?: { root: Root; fields: string[]; optionalFrom?: number; admission?: boolean };
  /** For optional terms: when the value is present (`j` is then the value). */
  present?: Cond;
  /** For strings: holds no character a YAML double-quoted scalar would need escaped. */
  plain?: boolean;
  /** A literal JSON value, when the term is one. */
  literal?: { json: JsonValue };
  /** `j` raises an error (not just NotFound) where `err` holds: it must be evaluated only after `!err`. */
  risky?: boolean;
  reads: Read[];
}

export interface CompileEnv {
  /** Paths known present on every object the policy mutates (cel-guard.ts facts). */
  facts?: Facts;
  /** The kinds the policy mutates, for field types. */
  kinds?: readonly KindSchema[];
  /** The CEL environment of the expressions (default: kube-apiserver's MAP environment). */
  cel?: CelEnv;
}

class Refuse {
  constructor(readonly refusal: Refusal) {}
}

const yet = (why: string): never => {
  throw new Refuse(notYet(why));
};

const impossible = (why: string): never => {
  throw new Refuse(cannot(why));
};

/**
 * Kyverno's CEL libraries (pkg/cel/libs) and what Kyverno's rules have in their place: a counterpart that is
 * not written yet (`yet`), or none (`cannot`). Keyed by namespace, or by global function name.
 */
const KYVERNO_LIBRARIES: Readonly<Record<string, { cls: 'yet' | 'cannot'; why: string }>> = {
  resource: { cls: 'yet', why: "Kyverno's resource library (an apiCall context entry reads the cluster's objects)" },
  http: { cls: 'yet', why: "Kyverno's http library (an apiCall context entry with a service calls it)" },
  globalContext: { cls: 'yet', why: "Kyverno's globalContext library (a globalReference context entry reads it)" },
  imagedata: { cls: 'yet', why: "Kyverno's imagedata library (an imageRegistry context entry reads the registry)" },
  image: { cls: 'yet', why: "Kyverno's image library: image() parses a reference as go-containerregistry does (index.docker.io, library/), which neither Kyverno's `images` context (docker.io, no library/) nor image_normalize() states; a regular-expression translation is not written yet" },
  parseImageReference: { cls: 'yet', why: "Kyverno's image library (see image())" },
  isImage: { cls: 'yet', why: "Kyverno's image library (see image())" },
  regex: { cls: 'yet', why: "cel-go's regex library (regex_replace_all() expands `$1` where regex.replace() expands `\\1`)" },
  base64: { cls: 'yet', why: "Kyverno's base64 library (base64_encode()/base64_decode() work on strings where CEL's work on bytes)" },
  gzip: { cls: 'cannot', why: "Kyverno's gzip library (JMESPath has no gzip function)" },
};

/** Why a call of Kyverno's CEL libraries is not translated, with the class of its counterpart. */
function kyvernoLibraryRefusal(e: Extract<Expr, { kind: 'call' }>): never {
  const name = qualifiedName(e) ?? e.fn;
  // image.GetMetadata() reads the registry, as imagedata.Get() does.
  const ns = name === 'image.GetMetadata' ? 'imagedata' : e.target?.kind === 'ident' ? e.target.name : e.fn;
  const entry = KYVERNO_LIBRARIES[ns] ?? { cls: 'yet', why: "a function of Kyverno's CEL libraries" };
  return entry.cls === 'cannot' ? impossible(`${name}(): ${entry.why}`) : yet(`${name}(): ${entry.why}`);
}

const ROOT_JMES: Record<Root, string> = { object: 'request.object', oldObject: 'request.oldObject', request: 'request' };

/** admission/v1 AdmissionRequest fields the Kyverno context holds as the MAP `request` does, with their types. */
type FieldTree = Ty | { readonly [k: string]: FieldTree };

const REQUEST_FIELDS: { readonly [k: string]: FieldTree } = {
  kind: { group: 'string', version: 'string', kind: 'string' },
  resource: { group: 'string', version: 'string', resource: 'string' },
  subResource: 'string',
  name: 'string',
  namespace: 'string',
  operation: 'string',
  userInfo: { username: 'string', uid: 'string', groups: 'list' },
  dryRun: 'bool',
};

/**
 * Request fields admission/v1 and authentication/v1 tag `omitempty`, with their empty value in JMESPath. The
 * CEL `request` is the request's JSON form (engines/cel.ts requestValue), so it lacks them when empty: a bare
 * read fails there with "no such key" and `has()` is false. Kyverno's context may hold some empty (its
 * namespace is `''` for a cluster-scoped object, AddNamespace), so presence is written as "not empty" on the
 * Kyverno side.
 */
const REQUEST_OMITEMPTY: ReadonlyMap<string, string> = new Map([
  ['name', "''"],
  ['namespace', "''"],
  ['subResource', "''"],
  ['userInfo.username', "''"],
  ['userInfo.uid', "''"],
  ['userInfo.groups', '`[]`'],
]);

/**
 * `dryRun`, a pointer CreateAdmissionRequest always sets: always in the CEL `request`, while Kyverno's context
 * holds it only when the request says.
 */
const REQUEST_DRY_RUN = 'dryRun';

/** The omitempty request field at `path` (REQUEST_OMITEMPTY) holds a value the CEL `request` keeps: not empty. */
function requestFieldSet(path: string, j: string): Cond {
  const empty = REQUEST_OMITEMPTY.get(path)!;
  return empty === "''" ? atom(`(${j} || '') != ''`, { neg: `(${j} || '') == ''` }) : atom(`length(${j} || ${empty}) > \`0\``, { neg: `length(${j} || ${empty}) == \`0\`` });
}

/** MutatingPolicy: Kyverno's RequestType also holds the user's roles and cluster roles (string lists). */
const MPOL_REQUEST_LISTS = new Set(['roles', 'clusterRoles']);

/** Request fields always present (no `omitempty` in admission/v1: kind, resource, operation, userInfo). */
const REQUEST_PRESENT = new Set(['kind', 'resource', 'operation', 'userInfo', 'kind.group', 'kind.version', 'kind.kind', 'resource.group', 'resource.version', 'resource.resource']);

const PLAIN = /^[^"\\\x00-\x1f\x7f]*$/;

function lit(json: JsonValue): Term {
  const ty: Ty = json === null ? 'null' : typeof json === 'string' ? 'string' : typeof json === 'boolean' ? 'bool' : typeof json === 'number' ? (Number.isInteger(json) ? 'int' : 'double') : Array.isArray(json) ? 'list' : 'map';
  const t: Term = { j: jmesLiteral(json), ty, err: FALSE, literal: { json }, reads: [] };
  if (typeof json === 'boolean') t.cond = { k: 'const', v: json };
  if (typeof json === 'string') t.plain = PLAIN.test(json);
  return t;
}

function pathJmes(root: Root, fields: readonly string[]): string {
  return fields.reduce((acc, f) => `${acc}.${jmesField(f)}`, ROOT_JMES[root]);
}

/** The term as a safe boolean condition (a non-boolean value reads as false). */
function boolCond(t: Term): Cond {
  if (t.cond) return t.cond;
  return equals(t.j, '`true`', { risky: t.risky === true });
}

/** The reads of a term whose value (not only its presence) is used. */
function valueReads(t: Term): Read[] {
  return t.reads.map(({ presence: _p, ...r }) => r);
}

function isRisky(...ts: Term[]): boolean {
  return ts.some((t) => t.risky === true);
}

/** Wraps a condition's text for use as an operand of `&&`. */
function operand(c: Cond): string {
  const j = render(c);
  return c.k === 'and' || c.k === 'or' ? `(${j})` : j;
}

function union(...ts: Term[]): Read[] {
  return ts.flatMap((t) => t.reads);
}

/** Schema field types of the matched kinds, when every kind agrees. */
function schemaTy(kinds: readonly KindSchema[] | undefined, fields: readonly string[]): Ty | 'struct' | undefined {
  if (!kinds || kinds.length === 0) return undefined;
  let out: Ty | 'struct' | undefined;
  for (const k of kinds) {
    let tr: TypeRef = k.typeRef;
    for (const f of fields) {
      const resolved: Atom | undefined = k.schema.resolve(tr);
      const map: MapType | undefined = resolved?.map;
      if (!map) return undefined;
      const field = map.fieldIndex.get(f);
      const next: TypeRef | undefined = field?.type ?? (isEmptyTypeRef(map.elementType) ? undefined : map.elementType);
      if (!next) return undefined;
      tr = next;
    }
    const atom = k.schema.resolve(tr);
    if (!atom) return undefined;
    let t: Ty | 'struct';
    if (atom.map && !atom.list && atom.scalar === undefined) t = atom.map.fields.length > 0 ? 'struct' : 'map';
    else if (atom.list && !atom.map && atom.scalar === undefined) t = 'list';
    else if (!atom.map && !atom.list && atom.scalar === 'string') t = 'string';
    else if (!atom.map && !atom.list && atom.scalar === 'numeric') t = 'int';
    else if (!atom.map && !atom.list && atom.scalar === 'boolean') t = 'bool';
    else return undefined;
    if (out !== undefined && out !== t) return undefined;
    out = t;
  }
  return out;
}

export class CelToJmes {
  private readonly facts: Facts;
  private readonly cel: CelEnv;

  constructor(private readonly env: CompileEnv = {}) {
    this.facts = env.facts ?? ALWAYS;
    this.cel = env.cel ?? MAP_ENV;
  }

  /** The compiled expression, or why it cannot be compiled exactly. */
  compile(e: Expr): Term | Refusal {
    try {
      return this.term(e);
    } catch (x) {
      if (x instanceof Refuse) return x.refusal;
      throw x;
    }
  }

  // ------------------------------------------------------------------------------------ reads

  private known(root: Root, fields: readonly string[]): boolean {
    if (root === 'request') return fields.length === 0 || REQUEST_PRESENT.has(fields.join('.'));
    if (root === 'oldObject') return false;
    return this.facts.has(keyOf('object', fields));
  }

  /** The parent at `fields` is a map whenever present: the short presence test is exact there. */
  private mapWhenPresent(root: Root, fields: readonly string[]): boolean {
    if (root === 'request') return fields.length === 0 || typeof REQUEST_FIELDS[fields[0]!] === 'object';
    if (fields.length === 0) return root === 'object';
    const t = schemaTy(this.env.kinds, fields);
    return t === 'map' || t === 'struct';
  }

  /** `fields` present below `root` (every key on the way). */
  present(root: Root, fields: readonly string[]): Cond {
    let out: Cond = TRUE;
    // Only the deepest unknown step needs a test: a present key implies its parents.
    for (let n = fields.length; n >= 1; n--) {
      if (this.known(root, fields.slice(0, n))) break;
      const parent = fields.slice(0, n - 1);
      const p = pathJmes(root, parent);
      const key = jmesLiteral(fields[n - 1]!);
      out = this.mapWhenPresent(root, parent) ? atom(`contains(keys(${p} || \`{}\`), ${key})`) : atom(`type(${p}) == 'object' && contains(keys(${p}), ${key})`);
      break;
    }
    return out;
  }

  private fieldTy(root: Root, fields: readonly string[]): Ty {
    if (root === 'request') {
      let t: FieldTree | undefined = REQUEST_FIELDS;
      for (const f of fields) t = typeof t === 'object' ? t[f] : undefined;
      return t === undefined ? 'dyn' : typeof t === 'object' ? 'map' : t;
    }
    if (root === 'object' && fields.length <= 1 && (fields.length === 0 || fields[0] === 'metadata')) return 'map';
    const t = schemaTy(this.env.kinds, fields);
    return t === undefined ? 'dyn' : t === 'struct' ? 'map' : t;
  }

  private pathTerm(root: Root, fields: string[], optionalFrom?: number, admission = false): Term {
    if (root === 'request' && fields.length > 0) {
      let t: FieldTree | undefined = REQUEST_FIELDS;
      for (const f of fields) t = typeof t === 'object' ? t[f] : undefined;
      if (t === undefined) yet(`request.${fields.join('.')} (not in Kyverno's request context as ${this.cel.name === 'map' ? 'MAP' : 'the MutatingPolicy'} reads it)`);
    }
    const ty = this.fieldTy(root, fields);
    const j = pathJmes(root, fields);
    const requestPath = root === 'request' ? fields.join('.') : undefined;
    if (requestPath === REQUEST_DRY_RUN) {
      // Always there in CEL; where Kyverno's context leaves it out, false.
      const t: Term = { j: `(${j} || \`false\`)`, ty, err: FALSE, cond: equals(`(${j} || \`false\`)`, '`true`'), reads: [{ root, fields }] };
      if (optionalFrom !== undefined) t.present = TRUE;
      return t;
    }
    const empty = requestPath === undefined ? undefined : REQUEST_OMITEMPTY.get(requestPath);
    if (requestPath !== undefined && empty !== undefined) {
      const set = requestFieldSet(requestPath, j);
      const t: Term = { j: `(${j} || ${empty})`, ty, err: optionalFrom === undefined ? not(set) : FALSE, reads: [{ root, fields }] };
      if (optionalFrom !== undefined) t.present = set;
      if (ty === 'string') t.plain = false;
      return t;
    }
    const mark = admission ? { admission: true } : {};
    const reads: Read[] = [{ root, fields, ...mark }];
    if (optionalFrom === undefined) {
      const t: Term = { j, ty, err: not(this.present(root, fields)), path: { root, fields, ...mark }, reads };
      if (ty === 'bool') t.cond = equals(j, '`true`');
      return t;
    }
    // Before the first `?` the chain must be there; from it on a missing key is an absent optional.
    return {
      j,
      ty,
      err: not(this.present(root, fields.slice(0, optionalFrom))),
      path: { root, fields, optionalFrom, ...mark },
      present: this.present(root, fields),
      reads: [{ root, fields, presence: true, ...mark }],
    };
  }

  /** A selection (or string-key index) on `operand`. */
  private select(operand: Expr, field: string, optional: boolean): Term {
    const base = this.term(operand);
    if (!base.path) return yet('a field read on a computed value');
    const { root, fields, optionalFrom, admission } = base.path;
    if (root === 'request' && fields.length === 0 && this.cel.requestCarriesObjects) {
      // Kyverno's RequestType: the admission request's objects, and the user's roles.
      if (field === 'object' || field === 'oldObject') {
        if (optional) return yet(`request.?${field}`);
        return this.pathTerm(field, [], undefined, true);
      }
      if (MPOL_REQUEST_LISTS.has(field)) {
        if (optional) return yet(`request.?${field}`);
        // Always a list in CEL; Kyverno's context holds null (no roles) or nothing (no user info) there.
        return { j: `(request.${field} || \`[]\`)`, ty: 'list', err: FALSE, reads: [{ root: 'request', fields: [field] }] };
      }
    }
    const next = [...fields, field];
    const from = optionalFrom ?? (optional ? fields.length : undefined);
    return this.pathTerm(root, next, from, admission === true);
  }

  // ------------------------------------------------------------------------------------ terms

  term(e: Expr): Term {
    switch (e.kind) {
      case 'literal':
        return this.literal(e);
      case 'ident':
        if (e.name === 'object' || e.name === 'oldObject' || e.name === 'request') return this.pathTerm(e.name, []);
        if (e.name === 'params') return yet('a parameter object that is not a literal');
        if (e.name === 'variables') return yet(`${this.cel.name === 'map' ? 'MAP' : 'MutatingPolicy'} variables read as a whole`);
        if (e.name === 'namespaceObject') return yet('namespaceObject (the Namespace would need an apiCall context entry)');
        if (e.name === 'authorizer') return yet('an authorizer check (a SubjectAccessReview through an apiCall context entry)');
        return yet(`the identifier ${e.name}`);
      case 'select':
        if (e.testOnly) return this.has(e.operand, e.field);
        if (e.operand.kind === 'ident' && e.operand.name === 'variables') return yet(`the variable ${e.field}, which is not inlined`);
        return this.select(e.operand, e.field, e.optional);
      case 'index': {
        if (e.index.kind === 'literal' && e.index.lit.type === 'string') return this.select(e.operand, e.index.lit.value, e.optional);
        return yet('an index that is not a string literal');
      }
      case 'list':
      case 'map': {
        const json = literalJson(e);
        return json === undefined ? yet('a list or map built from computed values') : lit(json);
      }
      case 'struct':
        return yet(`an ${e.typeName} value inside an expression`);
      case 'comprehension':
        return yet(`the ${e.macro} macro`);
      case 'call':
        return this.call(e);
    }
  }

  private literal(e: Extract<Expr, { kind: 'literal' }>): Term {
    const l = e.lit;
    switch (l.type) {
      case 'string':
      case 'bool':
        return lit(l.value);
      case 'null':
        return lit(null);
      case 'int': {
        const n = typeof l.value === 'bigint' ? Number(l.value) : l.value;
        return Number.isSafeInteger(n) ? lit(n) : yet('an integer beyond ±2^53');
      }
      case 'double':
        return Number.isFinite(l.value) && !Number.isInteger(l.value) ? { ...lit(l.value), ty: 'double' } : yet('an integral or non-finite double');
      default:
        return yet(`a ${l.type} literal`);
    }
  }

  private has(operand: Expr, field: string): Term {
    const base = this.term(operand);
    if (!base.path || base.path.optionalFrom !== undefined) return yet('has() on a computed value');
    const { root, fields, admission } = base.path;
    if (root === 'request' && fields.length === 0 && this.cel.requestCarriesObjects && (field === 'object' || field === 'oldObject' || MPOL_REQUEST_LISTS.has(field))) {
      // Kyverno's RequestType always has them (null objects included).
      return { j: '`true`', ty: 'bool', cond: TRUE, err: base.err, reads: [] };
    }
    const requestPath = [...fields, field].join('.');
    if (root === 'request' && requestPath === REQUEST_DRY_RUN) return { j: '`true`', ty: 'bool', cond: TRUE, err: base.err, reads: [] };
    if (root === 'request' && REQUEST_OMITEMPTY.has(requestPath)) {
      const cond = requestFieldSet(requestPath, pathJmes(root, [...fields, field]));
      return { j: render(cond), ty: 'bool', cond, err: base.err, reads: [{ root, fields: [...fields, field], presence: true }] };
    }
    const cond = this.present(root, [...fields, field]);
    return { j: render(cond), ty: 'bool', cond, err: base.err, reads: [{ root, fields: [...fields, field], presence: true, ...(admission ? { admission: true } : {}) }] };
  }

  private call(e: Extract<Expr, { kind: 'call' }>): Term {
    if (this.cel.extraLibraries.includes('kyverno')) {
      const ns = e.target?.kind === 'ident' && !this.cel.variables.includes(e.target.name) ? e.target.name : e.target === undefined ? e.fn : undefined;
      if (ns !== undefined && Object.prototype.hasOwnProperty.call(KYVERNO_LIBRARIES, ns)) return kyvernoLibraryRefusal(e);
    }
    if (e.target === undefined) {
      switch (e.fn) {
        case OP.eq:
        case OP.ne:
          return this.equality(e.args[0]!, e.args[1]!, e.fn === OP.ne);
        case OP.and:
        case OP.or:
          return this.logical(e.args[0]!, e.args[1]!, e.fn === OP.and);
        case OP.not: {
          const a = this.bool(e.args[0]!);
          const cond = not(boolCond(a));
          return { j: render(cond), ty: 'bool', cond, err: a.err, reads: a.reads };
        }
        case OP.cond:
          return this.conditional(e.args[0]!, e.args[1]!, e.args[2]!);
        case OP.add:
        case OP.sub:
        case OP.mul:
        case OP.mod:
          return this.arithmetic(e.fn, e.args[0]!, e.args[1]!);
        case OP.lt:
        case OP.le:
        case OP.gt:
        case OP.ge:
          return this.ordering(e.fn, e.args[0]!, e.args[1]!);
        case OP.in:
          return this.membership(e.args[0]!, e.args[1]!);
        case 'size':
          return this.size(e.args[0]!);
        case 'string':
          return this.toString(e.args[0]!);
        case 'int':
          return this.toInt(e.args[0]!);
        case 'dyn':
          return this.term(e.args[0]!);
        default:
          return yet(`the function ${e.fn}()`);
      }
    }
    if (e.target.kind === 'ident' && e.target.name === 'optional') {
      if (e.fn === 'of' && e.args.length === 1) {
        const { cond: _cond, ...v } = this.term(e.args[0]!);
        if (v.present) return yet('an optional of an optional');
        return { ...v, present: TRUE };
      }
      if (e.fn === 'none' && e.args.length === 0) return { j: '`null`', ty: 'null', err: FALSE, present: FALSE, reads: [] };
      return yet(`optional.${e.fn}()`);
    }
    const target = this.term(e.target);
    switch (e.fn) {
      case 'hasValue': {
        if (!target.present) return yet('hasValue() on a value that is not optional');
        const cond = target.present;
        return { j: render(cond), ty: 'bool', cond, err: target.err, reads: target.reads };
      }
      case 'orValue': {
        if (!target.present) return yet('orValue() on a value that is not optional');
        const d = this.term(e.args[0]!);
        const { present, ...value } = target;
        // JMESPath's `||` takes the default only for a missing or falsy value: exact where no value of the
        // field's type is falsy (numbers), or where the only falsy one is the default itself ("" for strings).
        const falsyIsDefault = value.ty === 'int' || (value.ty === 'string' && d.literal?.json === '');
        if (falsyIsDefault && target.path && d.ty === value.ty && !isRisky(d)) {
          const j = `(${value.j} || ${d.j})`;
          return { ...value, j, err: target.err, reads: valueReads(target), ...(value.ty === 'string' ? { plain: value.plain === true && d.plain === true } : {}) };
        }
        return this.choose(present, { ...value, reads: valueReads(target) }, d, target.err);
      }
      case 'value': {
        if (!target.present) return yet('value() on a value that is not optional');
        const { present, ...rest } = target;
        return { ...rest, err: or(target.err, not(present)), reads: valueReads(target) };
      }
      case 'size':
        if (e.args.length === 0) return this.size(e.target);
        return yet('size() with an argument');
      case 'startsWith':
      case 'endsWith':
      case 'contains': {
        const s = this.typed(target, 'string');
        const t = this.typed(this.term(e.args[0]!), 'string');
        const fn = e.fn === 'startsWith' ? 'starts_with' : e.fn === 'endsWith' ? 'ends_with' : 'contains';
        const cond = atom(`${fn}(${s.j}, ${t.j})`, { risky: true });
        return { j: render(cond), ty: 'bool', cond, err: or(s.err, t.err), risky: true, reads: union(s, t) };
      }
      default:
        return yet(`the method ${e.fn}()`);
    }
  }

  private bool(e: Expr): Term {
    const t = this.term(e);
    if (t.present) return yet('an optional value used as a boolean');
    if (t.ty === 'bool') return t;
    return yet('a condition whose type is not known to be bool');
  }

  private typed(t: Term, ty: Ty): Term {
    if (t.present) return yet('an optional value used as a plain value');
    if (t.ty !== ty) return yet(`an operand whose type is not known to be ${ty}`);
    return t;
  }

  private equality(a: Expr, b: Expr, negate: boolean): Term {
    const x = this.term(a);
    const y = this.term(b);
    // Equal to a literal other than null, a read is there: the presence test around it is redundant.
    const implied = (t: Term, other: Term): Cond[] =>
      t.path && other.literal && other.literal.json !== null ? [this.present(t.path.root, t.path.fields)] : [];
    const eq = (): Cond => equals(x.j, y.j, { implies: [...implied(x, y), ...implied(y, x)], risky: isRisky(x, y) });
    let cond: Cond;
    if (x.present && y.present) {
      cond = or(and(x.present, y.present, eq()), and(not(x.present), not(y.present)));
    } else if (x.present || y.present) {
      // An optional never equals a plain value (different types).
      cond = FALSE;
    } else cond = eq();
    if (negate) cond = not(cond);
    return { j: render(cond), ty: 'bool', cond, err: or(x.err, y.err), reads: [...valueReads(x), ...valueReads(y)], ...(isRisky(x, y) ? { risky: true } : {}) };
  }

  private logical(a: Expr, b: Expr, isAnd: boolean): Term {
    const x = this.bool(a);
    const y = this.bool(b);
    const cx = boolCond(x);
    const cy = boolCond(y);
    // A side that does not fail and has the deciding value decides (false for &&, true for ||).
    const decides = (t: Term, c: Cond): Cond => and(not(t.err), isAnd ? not(c) : c);
    const err = and(or(x.err, y.err), not(decides(x, cx)), not(decides(y, cy)));
    const cond = isAnd ? and(cx, cy) : or(cx, cy);
    return { j: render(cond), ty: 'bool', cond, err, reads: union(x, y), ...(isRisky(x, y) ? { risky: true } : {}) };
  }

  /** `c ? a : b` over already compiled parts. */
  private choose(c: Cond, a: Term, b: Term, cErr: Cond): Term {
    if (a.present || b.present) return yet('a conditional between optional values');
    const ty: Ty = a.ty === b.ty ? a.ty : 'dyn';
    const err = or(cErr, and(c, a.err), and(not(c), b.err));
    const reads = union(a, b);
    if (c.k === 'const') return { ...(c.v ? a : b), err, reads };
    const out: Term = { j: `(${operand(c)} && [${a.j}] || [${b.j}])[0]`, ty, err, reads, ...(isRisky(a, b) ? { risky: true } : {}) };
    if (ty === 'bool') out.cond = or(and(c, boolCond(a)), and(not(c), boolCond(b)));
    if (ty === 'string') out.plain = a.plain === true && b.plain === true;
    return out;
  }

  private conditional(c: Expr, a: Expr, b: Expr): Term {
    const ct = this.bool(c);
    const cond = boolCond(ct);
    const out = this.choose(cond, this.term(a), this.term(b), ct.err);
    return { ...out, reads: [...ct.reads, ...out.reads] };
  }

  private arithmetic(fn: string, a: Expr, b: Expr): Term {
    const x = this.term(a);
    const y = this.term(b);
    if (fn === OP.add && x.ty === 'string' && y.ty === 'string' && !x.present && !y.present) {
      return { j: `join('', [${x.j}, ${y.j}])`, ty: 'string', err: or(x.err, y.err), plain: x.plain === true && y.plain === true, risky: true, reads: union(x, y) };
    }
    const p = this.typed(x, 'int');
    const q = this.typed(y, 'int');
    const name = fn === OP.add ? 'add' : fn === OP.sub ? 'subtract' : fn === OP.mul ? 'multiply' : 'modulo';
    // CEL fails on a zero modulus; so does Kyverno's modulo, but the failure is stated, not left to the engine.
    const zero = fn === OP.mod ? (q.literal ? (q.literal.json === 0 ? TRUE : FALSE) : equals(q.j, '`0`', { risky: isRisky(q) })) : FALSE;
    return { j: `${name}(${p.j}, ${q.j})`, ty: 'int', err: or(p.err, q.err, and(not(q.err), zero)), risky: true, reads: union(p, q) };
  }

  private ordering(fn: string, a: Expr, b: Expr): Term {
    const x = this.term(a);
    const y = this.term(b);
    const num = (t: Term): Term => (t.ty === 'int' || t.ty === 'double' ? this.typed(t, t.ty) : yet('an ordering of values that are not numbers'));
    const p = num(x);
    const q = num(y);
    const op = fn === OP.lt ? '<' : fn === OP.le ? '<=' : fn === OP.gt ? '>' : '>=';
    // A comparison of something that is not a number is null: evaluated only where both are (risky).
    const cond = atom(`${p.j} ${op} ${q.j}`, { risky: true });
    return { j: render(cond), ty: 'bool', cond, err: or(p.err, q.err), risky: true, reads: union(p, q) };
  }

  private membership(a: Expr, b: Expr): Term {
    const key = this.term(a);
    if (key.literal && typeof key.literal.json === 'string' && b.kind !== 'list') {
      const m = this.term(b);
      if (!m.path || m.path.optionalFrom !== undefined || m.ty !== 'map') return yet('"k" in a value not known to be a map');
      const cond = this.present(m.path.root, [...m.path.fields, key.literal.json]);
      return { j: render(cond), ty: 'bool', cond, err: m.err, reads: [{ root: m.path.root, fields: [...m.path.fields, key.literal.json], presence: true, ...(m.path.admission ? { admission: true } : {}) }] };
    }
    const list = this.term(b);
    if (!list.literal || !Array.isArray(list.literal.json) || key.present) return yet('`in` on a list that is not a literal');
    const cond = atom(`contains(${list.j}, ${key.j})`, { risky: isRisky(key) });
    return { j: render(cond), ty: 'bool', cond, err: key.err, reads: key.reads, ...(isRisky(key) ? { risky: true } : {}) };
  }

  /** size(): code points of a string (JMESPath counts runes too), items of a list, keys of a map. */
  private size(a: Expr): Term {
    const x = this.term(a);
    if (x.present || (x.ty !== 'string' && x.ty !== 'list' && x.ty !== 'map')) return yet('size() of a value that is not known to be a string, list or map');
    return { j: `length(${x.j})`, ty: 'int', err: x.err, risky: true, reads: valueReads(x) };
  }

  private toString(a: Expr): Term {
    const x = this.term(a);
    if (x.present) return yet('string() of an optional');
    if (x.ty === 'string') return x;
    if (x.ty === 'int' || x.ty === 'bool') return { j: `to_string(${x.j})`, ty: 'string', err: x.err, plain: true, reads: x.reads, ...(isRisky(x) ? { risky: true } : {}) };
    return yet('string() of a value whose type is not known');
  }

  private toInt(a: Expr): Term {
    const x = this.term(a);
    if (x.present) return yet('int() of an optional');
    if (x.ty === 'int') return x;
    if (x.ty !== 'string') return yet('int() of a value that is not known to be a string');
    // strconv.ParseInt(s, 10, 64): an optional sign and decimal digits.
    const bad = atom(`!regex_match('^[+-]?[0-9]+$', ${x.j})`, { neg: `regex_match('^[+-]?[0-9]+$', ${x.j})`, risky: true });
    return { j: `to_number(${x.j})`, ty: 'int', err: or(x.err, and(not(x.err), bad)), reads: x.reads, ...(isRisky(x) ? { risky: true } : {}) };
  }
}

/** The JSON of a list / map literal of literals, or undefined. */
function literalJson(e: Expr): JsonValue | undefined {
  switch (e.kind) {
    case 'literal':
      switch (e.lit.type) {
        case 'string':
        case 'bool':
          return e.lit.value;
        case 'null':
          return null;
        case 'int': {
          const n = typeof e.lit.value === 'bigint' ? Number(e.lit.value) : e.lit.value;
          return Number.isSafeInteger(n) ? n : undefined;
        }
        default:
          return undefined;
      }
    case 'list': {
      if (e.optional.some(Boolean)) return undefined;
      const out: JsonValue[] = [];
      for (const x of e.elements) {
        const v = literalJson(x);
        if (v === undefined) return undefined;
        out.push(v);
      }
      return out;
    }
    case 'map': {
      const out: Record<string, JsonValue> = {};
      for (const m of e.entries) {
        if (m.optional || m.key.kind !== 'literal' || m.key.lit.type !== 'string') return undefined;
        const v = literalJson(m.value);
        if (v === undefined || Object.prototype.hasOwnProperty.call(out, m.key.lit.value)) return undefined;
        Object.defineProperty(out, m.key.lit.value, { value: v, enumerable: true, writable: true, configurable: true });
      }
      return out;
    }
    case 'call':
      return e.fn === 'dyn' && e.target === undefined && e.args.length === 1 ? literalJson(e.args[0]!) : undefined;
    default:
      return undefined;
  }
}

/** Compiles CEL source text. */
export function compileCelText(text: string, env: CompileEnv = {}): Term | Refusal {
  const parsed = parse(text);
  if (!parsed.ok) return notYet('a CEL expression that does not parse');
  return new CelToJmes(env).compile(parsed.value);
}

export function isTerm(x: Term | Refusal): x is Term {
  return typeof (x as Term).j === 'string';
}

/** Kyverno's variable pattern cannot hold nested braces: a hole body must have none (vars.go RegexVariables). */
export function holeSafe(j: string): boolean {
  return /^(?:\{[^{}]*\}|[^{}])*$/.test(j);
}
