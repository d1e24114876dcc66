/**
 * Why a construct the raisings (src/lowering/raise-kyverno-*.ts) left as it is cannot be a Gatekeeper
 * mutator, said in Gatekeeper's terms and at the construct's position: which anchor, which variable, which
 * list, which operator. Each explanation is a Refusal: `cannot` when Gatekeeper has no way to state the
 * construct with the same meaning (the reasons below are Gatekeeper's fixed limits: a mutator writes one
 * location with a constant, the object's name or namespace, or external data; pathTests test existence
 * only, of prefixes of the location; no mutator deletes, reorders or inserts by position; keyed elements
 * are appended; there are no variables and no background mutation), `yet` when it could and transmute does
 * not translate it.
 *
 * Kyverno keeps these constructs as IR nodes the generator cannot emit: `merge smp` patches (with anchors
 * and `{{ }}` variables), `jsonPatch kyverno` steps (or their templated text bound to `$patch`), `forEach`
 * loops over a JMESPath list, `jmes "kyverno_conditions(...)"` preconditions and `let`s of
 * `kyverno_context(...)` entries (src/dialects/kyverno/opaque.ts).
 */
import { parse as parseYaml } from 'yaml';
import { isJsonObject, type JsonValue } from '../../ir/json.js';
import type { ForEachOp, Guard, JsonPatchOp, LetOp, MergeOp, Op, Value } from '../../ir/nodes.js';
import type { Path } from '../../ir/path.js';
import { printPath } from '../../ir/path-text.js';
import { readOpaque } from '../kyverno/opaque.js';
import { ELEMENT, listStrategy, type KindRef, type SchemaStep } from '../../lowering/raise-kyverno-kinds.js';
import { fieldPointer } from '../../lowering/raise-kyverno-json-patch.js';
import { objectList, runsOnEveryObject } from '../../lowering/raise-kyverno-foreach.js';
import { constantExpression, constantLet } from '../../lowering/raise-kyverno-constants.js';
import { cannot, isRefusal, notYet, type Refusal } from '../generate-report.js';

export interface ExplainContext {
  /** The exact kinds the rule matches, when known (lists merge by their schema). */
  kinds?: readonly KindRef[];
  /** The rule's bindings by name, the last one of each name (context entries, `$patch`, element aliases). */
  lets: ReadonlyMap<string, LetOp>;
}

const ANCHOR = /^([+<=X^])?\((.+)\)$/;
/** A regular expression that splits an image reference into domain, path and tag exactly as AssignImage does. */
const GATEKEEPER_IMAGE_SPLIT = "'^((?:[^/]*[.:][^/]*|localhost)/)?([^:@]*)(.*)$'";
const HOLE = /\{\{((?:\{[^{}]*\}|[^{}])*)\}\}/;
const PATTERN_CHARS = /[*?|&!<>]/;

// ------------------------------------------------------------------------------------------- variables

/** The body of the first outermost `{{ }}` in a string, inner holes kept as written. */
function firstHole(s: string): string | undefined {
  if (!HOLE.test(s)) return undefined;
  const whole = holeText(s);
  return whole.slice(2, whole.endsWith('}}') ? -2 : undefined).trim();
}

/** The bodies of every outermost `{{ }}` of a string, inner holes kept as written. */
function outerHoles(s: string): string[] {
  const out: string[] = [];
  let rest = s;
  while (HOLE.test(rest)) {
    const whole = holeText(rest);
    out.push(whole.slice(2, whole.endsWith('}}') ? -2 : undefined).trim());
    rest = rest.slice(rest.indexOf(whole) + whole.length);
  }
  return out;
}

/** A hole's text for a message: one line, at most 160 characters. */
function short(text: string): string {
  const one = text.replace(/\s+/g, ' ').trim();
  return one.length > 160 ? `${one.slice(0, 160)}…` : one;
}

/** The whole variable as written, for messages. */
function holeText(s: string): string {
  const start = s.indexOf('{{');
  if (start < 0) return s;
  // The outermost hole: count braces pairs from the first `{{`.
  let depth = 0;
  for (let i = start; i < s.length - 1; i++) {
    if (s[i] === '{' && s[i + 1] === '{') {
      depth++;
      i++;
    } else if (s[i] === '}' && s[i + 1] === '}') {
      depth--;
      i++;
      if (depth === 0) return s.slice(start, i + 1);
    }
  }
  return s.slice(start);
}

const PLAIN_PATH = /^[A-Za-z_][A-Za-z0-9_]*(?:\.(?:[A-Za-z_][A-Za-z0-9_-]*|"(?:[^"\\]|\\.)*"))*$/;

/** What a hole reads, in a user's words, and whether Gatekeeper could state it (a literal binding). */
function describeHole(body: string, ctx: ExplainContext): { what: string; constant?: boolean } {
  const expr = body.replace(/^-/, '').trim();
  const withoutDefault = expr.replace(/\s*\|\|\s*('[^']*'|`[^`]*`)\s*$/, '');
  const root = /^[A-Za-z_][A-Za-z0-9_]*/.exec(withoutDefault)?.[0] ?? '';
  if (root === 'images') return { what: `Kyverno's image data ${short(`{{${expr}}}`)} (the image reference as Kyverno parses and normalises it)` };
  if (root === 'element' || /^element\d+$/.test(root) || root === 'elementIndex' || /^elementIndex\d+$/.test(root)) {
    return { what: `the loop element ${short(`{{${expr}}}`)}` };
  }
  if (withoutDefault.startsWith('request.userInfo') || root === 'serviceAccountName' || root === 'serviceAccountNamespace' || withoutDefault.startsWith('request.roles') || withoutDefault.startsWith('request.clusterRoles')) {
    return { what: `the requesting user ${short(`{{${expr}}}`)}` };
  }
  const let_ = ctx.lets.get(root);
  if (let_ && root !== 'request' && withoutDefault === root) {
    if (let_.value.kind === 'literal') return { what: `the context variable ${root}, the constant ${JSON.stringify(let_.value.json)}`, constant: true };
    if (!dependsOnAdmission(let_, ctx)) return { what: `the context variable ${root} (${describeLet(let_)}), which reads only constants`, constant: true };
    return { what: `the context variable ${root} (${describeLet(let_)})` };
  }
  if (root === 'request' && PLAIN_PATH.test(withoutDefault)) return { what: `the value of ${withoutDefault} read by ${short(`{{${expr}}}`)}` };
  if (!expressionDependsOnAdmission(expr, ctx)) return { what: `the JMESPath expression ${short(`{{${expr}}}`)}, which reads only constants`, constant: true };
  return { what: `the JMESPath expression ${short(`{{${expr}}}`)}` };
}

/** Whether an expression can read anything that varies with the request (the object, the user, a loop element). */
function expressionDependsOnAdmission(expr: string, ctx: ExplainContext): boolean {
  return !constantExpression(expr, ctx.lets);
}

/** Whether a binding's value varies with the request or comes from the cluster. */
function dependsOnAdmission(l: LetOp, ctx: ExplainContext): boolean {
  return !constantLet(l, ctx.lets);
}

/** What a context entry binding computes. */
function describeLet(l: LetOp): string {
  const v = l.value;
  if (v.kind === 'literal') return `the constant ${JSON.stringify(v.json)}`;
  if (v.kind === 'jmes') {
    const opaque = readOpaque(v.expr.text);
    if (opaque?.kind === 'context' && isJsonObject(opaque.json)) {
      const entry = opaque.json;
      if (typeof entry.unresolved === 'string') {
        const type = /\((configMap|apiCall|imageRegistry|globalReference)\)/.exec(entry.unresolved)?.[1] ?? 'external';
        const from: Record<string, string> = {
          configMap: 'a ConfigMap read from the cluster',
          apiCall: 'a call to the Kubernetes API or a service',
          imageRegistry: 'an image registry',
          globalReference: 'a global context entry',
          external: 'the cluster',
        };
        return `loaded from ${from[type]}`;
      }
      if (isJsonObject(entry.variable)) {
        const jp = entry.variable.jmesPath;
        return typeof jp === 'string' ? `computed by the JMESPath ${jp}` : 'computed from Kyverno variables';
      }
    }
    return `computed by ${v.expr.text}`;
  }
  if (v.kind === 'ref') return `a copy of ${printPath(v.path)}`;
  return 'computed at admission';
}

/** A value computed at admission, at `where`. */
function computed(where: string, template: string, ctx: ExplainContext): Refusal {
  // The first hole that varies with the request decides; only when none does is the value a constant.
  const holes = outerHoles(template);
  const hole = holes.find((x) => !describeHole(x, ctx).constant) ?? holes[0] ?? template;
  const h = describeHole(hole, ctx);
  const whole = holes.length === 1 && holeText(template) === template.trim();
  const name = whole ? /^request\.object\.metadata\.(name|namespace)$/.exec(hole.replace(/^-/, '').trim()) : null;
  if (name) {
    return cannot(
      `${where} set from ${short(`{{${hole}}}`)} (Kyverno fails the rule when the object has no ${name[1]} yet, as with generateName, where Gatekeeper's fromMetadata writes "")`,
    );
  }
  if (h.constant) return notYet(`${where} set from ${h.what} (evaluating constant variables at translation time)`);
  if (hole.includes(GATEKEEPER_IMAGE_SPLIT)) {
    return notYet(`${where} rewritten by regex_replace_all with the regular expression that splits an image reference as AssignImage does (an AssignImage; transmute does not read it back)`);
  }
  return cannot(`${where} computed from ${h.what} (Gatekeeper assigns only constants, the object's name or namespace, and external data)`);
}

// ------------------------------------------------------------------------------------------ conditions

function conditionText(c: Record<string, JsonValue | undefined>): string {
  const show = (v: JsonValue | undefined) => (typeof v === 'string' ? v : JSON.stringify(v ?? null));
  return `${show(c.key)} ${typeof c.operator === 'string' ? c.operator : '?'} ${show(c.value)}`;
}

/** `length(request.object.<list>[?k == 'v'])` and `request.object.<list>[?k == 'v'] | length(@)`. */
const KEYED_COUNT = /^length\(\s*request\.object\.((?:[A-Za-z_][A-Za-z0-9_]*\.)*[A-Za-z_][A-Za-z0-9_]*)\[\?\s*([A-Za-z_][A-Za-z0-9_]*)\s*==\s*'([^']*)'\s*\]\s*\)$/;
const KEYED_COUNT_PIPE = /^request\.object\.((?:[A-Za-z_][A-Za-z0-9_]*\.)*[A-Za-z_][A-Za-z0-9_]*)\[\?\s*([A-Za-z_][A-Za-z0-9_]*)\s*==\s*'([^']*)'\s*\]\s*\|\s*length\(@\)$/;

const LABEL_PATH = /^request\.object\.metadata\.labels\.(?:"((?:[^"\\]|\\.)*)"|([A-Za-z0-9_-]+))$/;

/** One Kyverno condition `{key, operator, value}`. */
function explainCondition(c: JsonValue, ctx: ExplainContext): Refusal {
  if (!isJsonObject(c)) return cannot('a malformed precondition');
  const text = `the precondition ${conditionText(c)}`;
  const keyText = typeof c.key === 'string' ? c.key : JSON.stringify(c.key ?? null);
  const valueText = typeof c.value === 'string' ? c.value : JSON.stringify(c.value ?? null);
  const side = keyText.includes('{{') ? keyText : valueText.includes('{{') ? valueText : undefined;
  if (side === undefined) return notYet(`${text}, which compares constants (folding it)`);
  const body = firstHole(side)!;
  const expr = body.replace(/^-/, '').trim();
  const base = expr.replace(/\s*\|\|\s*('[^']*'|`[^`]*`)\s*$/, '');
  const hasDefault = base !== expr;
  const op = typeof c.operator === 'string' ? c.operator.toLowerCase() : '';
  if (base === 'request.operation') return notYet(`${text} on the request's operation with this operator or value (applyTo operations)`);
  if (base === 'request.namespace') return notYet(`${text} on the request's namespace (match.namespaces)`);
  const meta = /^request\.object\.metadata\.(name|namespace)$/.exec(base);
  if (meta) {
    if (!hasDefault) {
      return cannot(
        `${text} (Kyverno fails the rule where the object carries no ${meta[1]}, ${meta[1] === 'name' ? 'as with generateName' : 'since the request carries it separately'}, the variable having no default; Gatekeeper's match.${meta[1] === 'name' ? 'name' : 'namespaces'} would only not match)`,
      );
    }
    return notYet(`${text} on the object's ${meta[1]} (match.${meta[1] === 'name' ? 'name' : 'namespaces'})`);
  }
  const label = LABEL_PATH.exec(base);
  if (label) {
    const name = label[1] ?? label[2];
    if (!hasDefault) {
      return cannot(`${text} (Kyverno fails the rule where the label ${name} is missing, since the variable has no default; a Gatekeeper labelSelector would only not match)`);
    }
    if (['equals', 'equal', 'notequals', 'notequal', 'in', 'notin'].includes(op) && !PATTERN_CHARS.test(valueText)) return notYet(`${text} on the label ${name} (match.labelSelector)`);
  }
  const keyed = KEYED_COUNT.exec(base) ?? KEYED_COUNT_PIPE.exec(base);
  if (keyed && ['equals', 'equal'].includes(op) && (c.value === 0 || c.value === '0')) {
    return notYet(`${text}, which tests that no element of ${keyed[1]} has ${keyed[2]} ${keyed[3]} (a MustNotExist pathTest on the keyed element [${keyed[2]}: ${keyed[3]}])`);
  }
  const h = describeHole(body, ctx);
  if (h.constant) return notYet(`${text} on ${h.what} (folding constant conditions)`);
  if (hasDefault && PLAIN_PATH.test(base) && root(base) === 'request' && base.startsWith('request.object.') && c.value === '' && ['equals', 'equal', 'notequals', 'notequal'].includes(op)) {
    return cannot(
      `${text}, which tests whether ${base.slice('request.'.length)} is ${op.startsWith('not') ? 'set to a non-empty value' : 'missing or empty'} (a test of the value, not only of existence; Gatekeeper's pathTests test only whether a path exists, and only on the mutator's own location)`,
    );
  }
  if (base.startsWith('element') || base.startsWith('images.')) {
    return cannot(`${text} on ${h.what} (Gatekeeper selects list elements only by one key field's exact value, and its pathTests test only whether a path exists)`);
  }
  if (root(base) === 'request' && PLAIN_PATH.test(base) && !base.startsWith('request.userInfo')) {
    return cannot(`${text} (Gatekeeper's pathTests test only whether a path exists; this precondition compares the value of ${base})`);
  }
  return cannot(`${text} on ${h.what} (Gatekeeper's pathTests test only whether a path exists; mutators evaluate no expressions)`);
}

function root(expr: string): string {
  return /^[A-Za-z_][A-Za-z0-9_]*/.exec(expr)?.[0] ?? '';
}

/** The first condition of a preconditions block Gatekeeper cannot state (a `cannot` first). */
function explainConditions(block: JsonValue, ctx: ExplainContext): Refusal {
  const list = Array.isArray(block) ? block : isJsonObject(block) ? [...((block.any as JsonValue[] | undefined) ?? []), ...((block.all as JsonValue[] | undefined) ?? [])] : [];
  if (isJsonObject(block) && Array.isArray(block.any) && block.any.length > 1) {
    const parts = block.any.map((c) => explainCondition(c, ctx));
    const hard = parts.find((p) => p.class === 'cannot');
    if (hard) return hard;
  }
  const refusals = list.map((c) => explainCondition(c, ctx));
  return refusals.find((r) => r.class === 'cannot') ?? refusals[0] ?? cannot('an empty preconditions block');
}

const pathText = printPath;

/** Why a guard (a rule's or a `when`'s) cannot become pathTests, applyTo operations or the match. */
export function explainGuard(g: Guard, ctx: ExplainContext, written?: string): Refusal {
  switch (g.kind) {
    case 'jmes': {
      const opaque = readOpaque(g.expr.text);
      if (opaque?.kind === 'conditions') return explainConditions(opaque.json, ctx);
      return cannot(`the JMESPath condition ${g.expr.text} (Gatekeeper's pathTests test only whether a path exists; mutators evaluate no expressions)`);
    }
    case 'cel':
      // The CEL raisings (src/lowering/raise-cel-guards.ts) turn the exact forms into structured guards; what
      // is left may still be a namespace, name or label condition the match could say.
      return notYet(`the CEL condition ${short(g.expr.text)} (a condition on the namespace, name or labels would be the match; one on other values has no mutator)`);
    case 'exists':
    case 'notExists': {
      const label = labelOf(g.path);
      if (label !== undefined) return notYet(`a condition on whether the label ${label} exists (match.labelSelector)`);
      if (g.path.root !== 'object') return rootRefusal(g.path, 'tests whether', `${pathText(g.path)} exists`);
      return cannot(
        `the condition that ${pathText(g.path)} ${g.kind === 'exists' ? 'exists' : 'is missing'} (Gatekeeper's pathTests test only prefixes of the mutator's own location${written ? `, ${written}` : ''})`,
      );
    }
    case 'eq':
    case 'neq':
    case 'in':
    case 'notIn':
    case 'match': {
      const label = labelOf(g.path);
      if (label !== undefined) return notYet(`a condition on the value of the label ${label} (match.labelSelector)`);
      let what: string;
      if (g.kind === 'match') what = `matches ${JSON.stringify(g.pattern)}`;
      else if (g.kind === 'eq' || g.kind === 'neq') what = `${g.kind === 'eq' ? 'equals' : 'differs from'} ${valueText(g.value)}`;
      else what = `is ${g.kind === 'notIn' ? 'not ' : ''}one of ${(g as { values: Value[] }).values.map(valueText).join(', ')}`;
      if (g.path.root === 'request' && g.path.segments[0]?.kind === 'field' && g.path.segments[0].name === 'namespace') return notYet(`a condition on the request's namespace (match.namespaces)`);
      if (g.path.root !== 'object') return rootRefusal(g.path, 'compares', `${pathText(g.path)}`);
      return cannot(`the condition that ${pathText(g.path)} ${what} (Gatekeeper's pathTests test only whether a path exists; this compares a field's value)`);
    }
    case 'not': {
      const inner = explainGuard(g.arg, ctx, written);
      return inner.class === 'cannot' ? inner : notYet(`a negated condition (${inner.why})`);
    }
    case 'and': {
      const parts = g.args.map((a) => explainGuard(a, ctx, written));
      return parts.find((p) => p.class === 'cannot') ?? parts[0] ?? notYet('an empty conjunction');
    }
    case 'or': {
      const parts = g.args.map((a) => explainGuard(a, ctx, written));
      return parts.find((p) => p.class === 'cannot') ?? notYet('alternative conditions (one mutator per alternative)');
    }
    case 'const':
      return notYet('a constant condition');
  }
}

function valueText(v: Value): string {
  return v.kind === 'literal' ? JSON.stringify(v.json) : v.kind;
}

function labelOf(p: Path): string | undefined {
  const [a, b, c, ...rest] = p.segments;
  if (p.root !== 'object' || rest.length > 0 || a?.kind !== 'field' || a.name !== 'metadata' || b?.kind !== 'field' || b.name !== 'labels' || c?.kind !== 'field') return undefined;
  return c.name;
}

function rootRefusal(p: Path, verb: string, what: string): Refusal {
  switch (p.root) {
    case 'oldObject':
      return cannot(`a condition that ${verb} ${what} (a Gatekeeper mutator sees only the admitted object, not the old one)`);
    case 'request':
      return p.segments[0]?.kind === 'field' && p.segments[0].name === 'userInfo'
        ? cannot(`a condition on the requesting user, ${what} (Gatekeeper's match has no user criteria)`)
        : cannot(`a condition that ${verb} ${what} (Gatekeeper matches requests only by kind, operation, namespace, name, labels and source)`);
    case 'namespaceObject':
      return notYet(`a condition that ${verb} ${what} on the namespace (match.namespaceSelector)`);
    case 'vars':
      return cannot(`a condition that ${verb} ${what} (Gatekeeper mutators have no variables)`);
    case 'params':
      return cannot(`a condition that ${verb} ${what} (Gatekeeper mutators take no parameters)`);
    default:
      return cannot(`a condition that ${verb} ${what}`);
  }
}

// --------------------------------------------------------------------------------- strategic merge

function dotted(at: readonly string[]): string {
  return at.length === 0 ? 'the object' : at.join('.').replace(/\.\[/g, '[');
}

function hasAnchor(v: JsonValue): boolean {
  if (Array.isArray(v)) return v.some(hasAnchor);
  if (!isJsonObject(v)) return false;
  return Object.entries(v).some(([k, x]) => ANCHOR.test(k.trim()) || hasAnchor(x));
}

function onlyAnchors(v: JsonValue): boolean {
  if (!isJsonObject(v)) return false;
  const entries = Object.entries(v);
  return entries.length > 0 && entries.every(([k, x]) => {
    const a = ANCHOR.exec(k.trim());
    return (a !== null && (a[1] === undefined || a[1] === '<')) || (isJsonObject(x) && onlyAnchors(x));
  });
}

interface MergeWalk {
  ctx: ExplainContext;
  issues: Refusal[];
  /** Inside a list element every resource element shares (`none`), or inside the element a foreach patches (`add`). */
  anchors: 'all' | 'add' | 'none';
  /** The list whose elements the walk is in, for messages. */
  list?: string;
}

function conditionValue(v: JsonValue): string {
  return typeof v === 'string' ? v : JSON.stringify(v);
}

function walkPatch(v: JsonValue, at: string[], schema: SchemaStep[], w: MergeWalk): void {
  if (!isJsonObject(v)) return;
  for (const [key, value] of Object.entries(v)) {
    const where = dotted([...at, key]);
    if (key.includes('{{')) {
      w.issues.push(cannot(`the key ${key} under ${dotted(at)}, computed from ${describeHole(firstHole(key) ?? key, w.ctx).what} (a Gatekeeper location is a fixed path)`));
      continue;
    }
    if (key.startsWith('$')) {
      if (key === '$patch' && value === 'delete') w.issues.push(cannot(`deleting ${dotted(at)} with $patch: delete (no Gatekeeper mutator deletes a field)`));
      else if (key === '$patch' && value === 'replace') w.issues.push(notYet(`replacing ${dotted(at)} wholesale with $patch: replace (an Assign of the whole map)`));
      else w.issues.push(notYet(`the strategic-merge directive ${key} at ${dotted(at)}`));
      continue;
    }
    const anchor = ANCHOR.exec(key.trim());
    if (anchor) {
      const [, modifier, name] = anchor as unknown as [string, string | undefined, string];
      const place = dotted([...at, name]);
      if (modifier === '<') {
        w.issues.push(
          cannot(
            `the global anchor ${key}: ${JSON.stringify(value)} at ${dotted(at)}${w.list ? ` (an element of ${w.list})` : ''}, which applies the rest of the patch only if ${w.list ? `some element of ${w.list} has ` : ''}${name}${isJsonObject(value) && Object.keys(value).length === 0 ? '' : ` matching ${conditionValue(value)}`} (Gatekeeper's pathTests test only whether places on each mutator's own location exist)`,
          ),
        );
        continue;
      }
      if (modifier === undefined) {
        if (w.list && w.anchors !== 'all') {
          w.issues.push(
            cannot(
              `the condition ${key}: ${conditionValue(value)} inside each element of ${w.list} (Kyverno patches only the elements it selects and its merge moves each patched element to the front of the list, so the others end up behind them; Gatekeeper keeps list order and its pathTests test only existence)`,
            ),
          );
        } else if (w.list) {
          w.issues.push(
            cannot(
              `the condition ${key}: ${conditionValue(value)} selecting elements of ${w.list} by value (Gatekeeper's glob [key: *] visits every element, and its pathTests test only whether a path exists)`,
            ),
          );
        } else {
          w.issues.push(
            cannot(`the condition ${key}: ${conditionValue(value)} at ${dotted(at)} (Gatekeeper's pathTests test only whether a path exists; this condition ${Array.isArray(value) || isJsonObject(value) ? 'matches a pattern against' : 'compares'} the value of ${place})`),
          );
        }
        continue;
      }
      if (modifier === '+') {
        if (w.anchors === 'none') {
          w.issues.push(
            cannot(
              `the add-if-absent anchor ${key} inside the elements of ${w.list ?? dotted(at)} (Kyverno decides it on the list's first element and applies that decision to every element, since the pattern copy is shared; Gatekeeper tests each element)`,
            ),
          );
          continue;
        }
        if (typeof value === 'string' && value.includes('{{')) w.issues.push(computed(place, value, w.ctx));
        else if (hasAnchor(value)) w.issues.push(notYet(`anchors inside the value of ${key} at ${dotted(at)}`));
        else walkPatch(value, [...at, name], [...schema, name], { ...w, anchors: w.anchors });
        continue;
      }
      w.issues.push(notYet(`the anchor ${key} at ${dotted(at)} (Kyverno's mutate writes it as a literal key)`));
      continue;
    }
    if (value === null) {
      w.issues.push(cannot(`deleting ${where} (a null in the patch deletes the key; no Gatekeeper mutator deletes a field)`));
    } else if (Array.isArray(value)) {
      walkList(value, [...at, key], [...schema, key], w);
    } else if (isJsonObject(value)) {
      walkPatch(value, [...at, key], [...schema, key], w);
    } else if (typeof value === 'string' && value.includes('{{')) {
      w.issues.push(computed(where, value, w.ctx));
    }
  }
}

function walkList(list: JsonValue[], at: string[], schema: SchemaStep[], w: MergeWalk): void {
  const where = dotted(at);
  if (!w.ctx.kinds) {
    w.issues.push(notYet(`the list ${where} (kyaml merges it by the schema of the object's kind, and the rule's kinds are not exact)`));
    return;
  }
  const strategy = listStrategy(w.ctx.kinds, schema);
  if (strategy === undefined) {
    w.issues.push(notYet(`the list ${where}, which kyaml merges differently for the kinds the rule matches (one mutator per kind)`));
    return;
  }
  if (strategy === 'replace') {
    const text = JSON.stringify(list);
    if (text.includes('{{')) {
      const hole = holeText(text);
      w.issues.push(cannot(`the list ${where} computed from ${describeHole(firstHole(hole) ?? hole, w.ctx).what} (Gatekeeper assigns only constants)`));
    } else if (hasAnchor(list)) {
      w.issues.push(cannot(`the anchored elements of ${where}, a list kyaml replaces whole (Kyverno writes one copy of the element per matching resource element in place of the list; Gatekeeper assigns constants only)`));
    } else w.issues.push(notYet(`the list ${where} with empty or null members (the anchor cleanup drops them before kyaml replaces the list)`));
    return;
  }
  if (strategy.length === 0) {
    w.issues.push(cannot(`the values added to ${where} (kyaml merges this list of values by putting the new ones first; ModifySet appends them)`));
    return;
  }
  const elements = list.filter((e) => !(isJsonObject(e) && onlyAnchors(e)));
  for (const e of list) if (isJsonObject(e) && onlyAnchors(e)) walkPatch(e, [...at, '[]'], [...schema, ELEMENT], { ...w, list: where });
  if (elements.length === 0) return;
  if (strategy.length > 1) {
    w.issues.push(cannot(`the elements of ${where}, which kyaml merges by ${strategy.join(' and ')} together (a Gatekeeper list element is selected by one key field)`));
    return;
  }
  const key = strategy[0]!;
  for (const e of elements) {
    if (!isJsonObject(e)) {
      w.issues.push(cannot(`a non-object element of ${where}, a list kyaml merges by ${key}`));
      continue;
    }
    if (key === 'name' && e['(name)'] === '*') {
      // Every named element, in the resource's order: only what is below it can stand in the way.
      const rest = Object.fromEntries(Object.entries(e).filter(([k]) => k !== '(name)'));
      const before = w.issues.length;
      walkPatch(rest, [...at, '[name: *]'], [...schema, ELEMENT], { ...w, anchors: 'none', list: where });
      if (w.issues.length === before) w.issues.push(notYet(`the elements of ${where} patched through (name): "*"`));
      continue;
    }
    const anchors = Object.keys(e).filter((k) => ANCHOR.test(k.trim()));
    if (anchors.length > 0 || hasAnchor(e)) {
      // Anchored elements are expanded against the resource's elements; explain the anchors themselves.
      const before = w.issues.length;
      walkPatch(e, [...at, '[]'], [...schema, ELEMENT], { ...w, anchors: w.anchors === 'all' ? 'none' : w.anchors, list: where });
      if (w.issues.length > before) continue;
      w.issues.push(cannot(`the anchored elements of ${where} (Kyverno expands them against the resource's elements and merges them first in the list; Gatekeeper keeps list order)`));
      continue;
    }
    const k = e[key];
    w.issues.push(
      cannot(
        `the element ${where}[${key}: ${k === undefined ? '?' : JSON.stringify(k)}] (Gatekeeper's Assign appends a new keyed list element where Kyverno's strategic merge prepends it, and Kyverno also moves an existing one to the front of the list)`,
      ),
    );
  }
}

/** Why a strategic merge patch stays a merge. */
export function explainMerge(op: MergeOp, ctx: ExplainContext, anchors: 'all' | 'add' = 'all'): Refusal {
  if (op.value.kind === 'cel') return notYet(`the CEL ${op.strategy === 'ssa' ? 'apply configuration' : 'merge patch'} ${short(op.value.expr.text)} (beyond the forms src/lowering/raise-apply-configuration.ts raises)`);
  if (op.value.kind !== 'literal' && op.value.kind !== 'templated') return cannot(`a merge patch computed at admission (${op.value.kind})`);
  if (op.strategy !== 'smp') return notYet(`a ${op.strategy} merge patch`);
  const w: MergeWalk = { ctx, issues: [], anchors };
  walkPatch(op.value.json, [], [], w);
  return w.issues.find((i) => i.class === 'cannot') ?? w.issues[0] ?? notYet('a strategic merge patch');
}

// ---------------------------------------------------------------------------------------- JSON patch

const ELEMENT_INDEX = /^\{\{\s*elementIndex\d*\s*\}\}$/;

/** One JSON patch step (op, path, value as written; the path may hold `{{elementIndex}}` inside a loop). */
function explainStep(step: { op: string; path: string; from?: string; value?: JsonValue }, ctx: ExplainContext, loop: boolean): Refusal | undefined {
  const tokens = step.path.split('/').slice(1);
  if (step.path === '') return cannot(`a JSON patch ${step.op} of the whole object (a location names at least one field)`);
  for (const t of tokens) {
    if (ELEMENT_INDEX.test(t) && loop) continue;
    if (t.includes('{{')) return cannot(`the JSON patch path ${step.path}, computed from ${describeHole(firstHole(t) ?? t, ctx).what} (a Gatekeeper location is a fixed path)`);
  }
  const index = tokens.find((t) => /^-?\d+$/.test(t));
  const last = tokens[tokens.length - 1];
  if (step.op === 'remove') {
    const element = last !== undefined && (ELEMENT_INDEX.test(last) || /^-?\d+$/.test(last));
    return cannot(
      element
        ? `removing the list element ${step.path} (no Gatekeeper mutator deletes a list element by position; ModifySet prune removes only members equal to given values)`
        : `removing ${step.path} (no Gatekeeper mutator deletes a field)`,
    );
  }
  if (loop && last !== undefined && ELEMENT_INDEX.test(last) && (step.op === 'add' || step.op === 'replace')) {
    return cannot(
      step.op === 'add'
        ? `inserting a list element before each element with add ${step.path} (Gatekeeper never inserts a list element at a position; keyed elements are appended)`
        : `replacing each list element in place with replace ${step.path} (a Gatekeeper location reaches list elements only as objects through a key field, and assigns constants)`,
    );
  }
  if (step.op === 'move' || step.op === 'copy') return cannot(`the JSON patch ${step.op} from ${step.from ?? '?'} to ${step.path} (Gatekeeper assigns constants, not values of other fields)`);
  if (step.op === 'test') return cannot(`the JSON patch test of ${step.path} (Kyverno fails the rule when the test fails; a Gatekeeper mutator cannot fail a request on a value)`);
  if (step.op === 'add' && last === '-') {
    return cannot(`the JSON patch add ${step.path} (Kyverno appends the value even when the list already holds it; Gatekeeper appends only with ModifySet, which skips values already present)`);
  }
  if (step.op === 'add' && last !== undefined && /^-?\d+$/.test(last)) {
    return cannot(
      last === '-1'
        ? `the JSON patch add ${step.path} (Kyverno appends the value even when the list already holds it; Gatekeeper appends only with ModifySet, which skips values already present)`
        : `inserting at position ${last} with add ${step.path} (Gatekeeper never inserts a list element at a position; keyed elements are appended)`,
    );
  }
  if (index !== undefined) return cannot(`the list position ${index} in ${step.path} (a Gatekeeper location selects list elements by a key field, never by position)`);
  const valueText = JSON.stringify(step.value ?? null);
  if (valueText.includes('{{')) return computed(`the JSON patch value at ${step.path}`, valueText, ctx);
  if (step.op === 'replace') {
    return cannot(`the JSON patch replace ${step.path} (Kyverno fails the rule when the path is missing; a Gatekeeper mutator never fails on a missing path, a MustExist pathTest only skips it)`);
  }
  return undefined;
}

/** A `$patch` text parsed with its variables kept as text, or undefined. */
function templatedSteps(text: string): { op: string; path: string; from?: string; value?: JsonValue }[] | undefined {
  // Holes become quoted placeholders so the YAML still parses; they are put back in the strings.
  const holes: string[] = [];
  let replaced = text;
  // Inside out, as Kyverno substitutes: an inner hole is replaced first, then the one around it.
  for (let pass = 0; pass < 20 && /\{\{(?:\{[^{}]*\}|[^{}])*\}\}/.test(replaced); pass++) {
    replaced = replaced.replace(/\{\{(?:\{[^{}]*\}|[^{}])*\}\}/g, (h) => {
      holes.push(h.replace(/__hole(\d+)__/g, (_, i: string) => holes[Number(i)]!));
      return `__hole${holes.length - 1}__`;
    });
  }
  let parsed: unknown;
  try {
    parsed = replaced.trimStart().startsWith('[') ? JSON.parse(replaced) : parseYaml(replaced);
  } catch {
    return undefined;
  }
  if (!Array.isArray(parsed)) return undefined;
  const restore = (v: unknown): JsonValue => {
    if (typeof v === 'string') return v.replace(/__hole(\d+)__/g, (_, i: string) => holes[Number(i)]!);
    if (Array.isArray(v)) return v.map(restore);
    if (isJsonObject(v as JsonValue)) return Object.fromEntries(Object.entries(v as object).map(([k, x]) => [restore(k) as string, restore(x)]));
    return v as JsonValue;
  };
  const out: { op: string; path: string; from?: string; value?: JsonValue }[] = [];
  for (const s of parsed) {
    const r = restore(s);
    if (!isJsonObject(r) || typeof r.op !== 'string' || typeof r.path !== 'string') return undefined;
    out.push({ op: r.op, path: r.path, ...(typeof r.from === 'string' ? { from: r.from } : {}), ...(r.value !== undefined ? { value: r.value } : {}) });
  }
  return out;
}

/** Why a Kyverno JSON patch stays a patch. `emit` says whether a raised step would be a mutator. */
export function explainJsonPatch(op: JsonPatchOp, ctx: ExplainContext, emit: (step: Op) => Refusal | undefined, loop = false): Refusal {
  let steps: { op: string; path: string; from?: string; value?: JsonValue }[] | undefined;
  if (op.stepsFrom) {
    const bound = op.stepsFrom.kind === 'jmes' && op.stepsFrom.expr.text === 'parse_yaml("$patch")' ? ctx.lets.get('$patch') : undefined;
    const text = bound && bound.value.kind === 'templated' && typeof bound.value.json === 'string' ? bound.value.json : undefined;
    if (op.stepsFrom.kind === 'templated') steps = Array.isArray(op.stepsFrom.json) ? (op.stepsFrom.json as never) : undefined;
    else if (text !== undefined) steps = templatedSteps(text);
    if (op.stepsFrom.kind === 'cel') return notYet(`the CEL JSON patch ${short(op.stepsFrom.expr.text)} (no raising reads a CEL JSON patch back into path operations)`);
    if (!steps) {
      const hole = text !== undefined ? holeText(text) : op.stepsFrom.kind === 'jmes' ? op.stepsFrom.expr.text : 'a computed value';
      return cannot(`a JSON patch computed by ${short(hole)} (a Gatekeeper mutator writes a fixed location with a constant)`);
    }
  } else steps = op.steps.map((s) => ({ op: s.op, path: s.path, ...(s.from !== undefined ? { from: s.from } : {}), ...(s.value?.kind === 'literal' ? { value: s.value.json } : {}) }));
  const refusals: Refusal[] = [];
  for (const s of steps) {
    const r = explainStep(s, ctx, loop);
    if (r) {
      refusals.push(r);
      continue;
    }
    // An add to a field path: what the generator says of the equivalent set.
    const segments = loop ? undefined : fieldPointer(s.path);
    if (segments && s.op === 'add') {
      const r2 = emit({ kind: 'set', path: { root: 'object', segments, origin: op.origin }, value: { kind: 'literal', json: s.value ?? null, origin: op.origin }, origin: op.origin });
      if (r2) refusals.push(r2);
    }
  }
  return refusals.find((r) => r.class === 'cannot') ?? refusals[0] ?? notYet('a JSON patch');
}

// ---------------------------------------------------------------------------------------------- loops

/** The patch ops of a loop body (lets and element preconditions around them), with the lets and guards seen. */
function bodyParts(ops: readonly Op[], lets: Map<string, LetOp>, guards: Guard[]): Op[] {
  const out: Op[] = [];
  for (const op of ops) {
    if (op.kind === 'let') lets.set(op.name, op);
    else if (op.kind === 'when' && !op.else?.length) {
      const g = op.guard;
      const isNullCheck = g.kind === 'neq' && g.path.root === 'vars' && g.value.kind === 'literal' && g.value.json === null;
      if (!isNullCheck) guards.push(g);
      out.push(...bodyParts(op.then, lets, guards));
    } else out.push(op);
  }
  return out;
}

/** The patch of the loop's own element: `{<F>: [{(name)|name: "{{element.name}}", ...rest}]}`. */
function ownElement(merge: MergeOp, fields: readonly string[]): { rest: Record<string, JsonValue>; anchored: boolean } | undefined {
  let at: JsonValue = merge.value.kind === 'literal' || merge.value.kind === 'templated' ? merge.value.json : null;
  for (const f of fields) {
    if (!isJsonObject(at) || Object.keys(at).length !== 1 || !Object.hasOwn(at, f)) return undefined;
    at = at[f]!;
  }
  if (!Array.isArray(at) || at.length !== 1 || !isJsonObject(at[0])) return undefined;
  const e = at[0];
  const isName = (v: JsonValue | undefined) => typeof v === 'string' && /^\{\{\s*element\.name\s*\}\}$/.test(v);
  const anchored = isName(e['(name)']);
  if (!anchored && !isName(e.name)) return undefined;
  const rest = Object.fromEntries(Object.entries(e).filter(([k]) => k !== '(name)' && k !== 'name'));
  return { rest, anchored };
}

/** Whether a patch writes some leaf whatever the object holds (outside every anchor). */
function hasPlainLeaf(v: JsonValue): boolean {
  if (!isJsonObject(v)) return false;
  return Object.entries(v).some(([k, x]) => !ANCHOR.test(k.trim()) && (isJsonObject(x) ? hasPlainLeaf(x) : x !== null && !(Array.isArray(x) && x.length === 0)));
}

function anchorKeys(v: JsonValue): string[] {
  if (!isJsonObject(v)) return [];
  return Object.entries(v).flatMap(([k, x]) => (ANCHOR.test(k.trim()) ? [k] : anchorKeys(x)));
}

/** Why a strategic merge of the loop's own element cannot be mutators on every element of the list. */
function explainOwnElement(op: ForEachOp, merge: MergeOp, fields: readonly string[], own: { rest: Record<string, JsonValue>; anchored: boolean }, guards: readonly Guard[], ctx: ExplainContext): Refusal[] {
  const name = fields.join('.');
  const out: Refusal[] = [];
  const strategy = ctx.kinds ? listStrategy(ctx.kinds, fields) : undefined;
  if (ctx.kinds && strategy === 'replace') {
    out.push(cannot(`the strategic merge of each element of ${name} (kyaml has no merge key for this list in the kind's schema, so it replaces the whole list with the one patched element)`));
  } else if (Array.isArray(strategy) && strategy.join() !== 'name') {
    out.push(cannot(`the strategic merge of each element of ${name} by its name (kyaml merges this list by ${strategy.join(' and ') || 'value'}, so the element is prepended as a new one)`));
  }
  if (op.order === 'asc') {
    out.push(cannot(`the loop over ${name} in ascending order with a strategic merge (each patched element moves to the front of the list, so the loop reverses the list; Gatekeeper keeps list order)`));
  }
  for (const [k] of Object.entries(own.rest)) {
    const a = ANCHOR.exec(k.trim());
    if (a && a[1] === '+') {
      out.push(cannot(`the add-if-absent anchor ${k} at the top of each element of ${name} (Kyverno decides it on the list's first element, since the pattern copy is shared; Gatekeeper tests each element)`));
    }
  }
  if (!own.anchored && hasAnchor(own.rest)) {
    out.push(cannot(`anchors in the element of ${name} named by name: "{{element.name}}" without the (name) condition (Kyverno then expands the element against every element of the list, resolving its anchors on the first one)`));
  }
  const w: MergeWalk = { ctx, issues: [], anchors: 'add', list: name };
  walkPatch(own.rest, [...fields, '[name: *]'], [...fields, ELEMENT], w);
  out.push(...w.issues);
  if (hasAnchor(own.rest) && !hasPlainLeaf(own.rest)) {
    const adds = anchorKeys(own.rest).join(', ');
    out.push(
      cannot(
        `the add-if-absent anchors ${adds} below each element of ${name} (Kyverno leaves an element that already has them unpatched, and its merge moves every patched element to the front, so the unpatched ones end up behind them; Gatekeeper keeps list order)`,
      ),
    );
  }
  if (guards.length > 0) {
    const g = explainGuard(guards.length === 1 ? guards[0]! : { kind: 'and', args: [...guards], origin: merge.origin }, ctx);
    out.push(
      g.class === 'cannot'
        ? g
        : cannot(`the preconditions on each element of ${name} with a strategic merge (the elements they leave out stay behind the patched ones, which the merge moves to the front; Gatekeeper keeps list order)`),
    );
  }
  return out;
}

/** Why a Kyverno foreach is not a set of mutators. */
export function explainForEach(op: ForEachOp, ctx: ExplainContext, emit: (step: Op) => Refusal | undefined): Refusal {
  const lets = new Map(ctx.lets);
  const guards: Guard[] = [];
  const ops = bodyParts(op.body, lets, guards);
  const inner: ExplainContext = { ...ctx, lets };
  const listText = 'kind' in op.list && op.list.kind === 'jmes' ? op.list.expr.text : 'kind' in op.list ? op.list.kind : printPath(op.list);
  const list = 'kind' in op.list && op.list.kind === 'jmes' ? objectList(listText) : undefined;
  const listName = list ? list.fields.join('.') : listText;
  const patches = ops.filter((o) => o.kind === 'merge' || o.kind === 'jsonPatch' || o.kind === 'forEach');
  const constant = /^\s*\[\s*'[^']*'\s*\]\s*$/.test(listText) || /^\s*`\[[^`]*\]`\s*$/.test(listText);
  const reasons: Refusal[] = [];
  const idiom = list ? setIdiom(guards, patches, list.fields, inner) : undefined;
  if (idiom) return idiom;
  let guardsExplained = false;
  for (const p of patches) {
    if (p.kind === 'merge') {
      const own = list ? ownElement(p, list.fields) : undefined;
      if (list && own) {
        reasons.push(...explainOwnElement(op, p, list.fields, own, guards, inner));
        guardsExplained = true;
      } else reasons.push(explainMerge(p, inner));
    } else if (p.kind === 'jsonPatch') reasons.push(explainJsonPatch(p, inner, emit, true));
    else reasons.push(explainForEach(p, inner, emit));
  }
  for (const o of ops) {
    if (o.kind === 'set' || o.kind === 'remove' || o.kind === 'setMembers' || o.kind === 'image') {
      const r = emit(o);
      if (r) reasons.push(r);
    }
  }
  if (!guardsExplained) {
    // An element precondition `{{ element.k || '' }} Equals v` is a keyed selection [k: v]; others are not.
    for (const g of guards) if (!isKeyedSelection(g)) reasons.push(explainGuard(g, inner));
  }
  const hard = reasons.find((r) => r.class === 'cannot');
  if (hard) return hard;
  if (list && !(ctx.kinds ? runsOnEveryObject(list, ctx.kinds) : list.tolerant)) {
    return cannot(
      `the loop over request.object.${listName} (Kyverno fails the rule when ${listName} is missing, since the list expression has no [] or || \`[]\`; a Gatekeeper glob over a missing list just changes nothing)`,
    );
  }
  if (constant) return reasons[0] ?? notYet(`a loop over the constant list ${listText} (its body once per element)`);
  if (!list && !/^element\d*\./.test(listText.trim())) {
    return cannot(`a loop over ${short(listText)} (Gatekeeper iterates only over the elements of one of the object's lists, with a glob [key: *])`);
  }
  return reasons[0] ?? notYet(`the loop over ${listName}`);
}

/** The one condition of a `kyverno_conditions` guard, if it has exactly one. */
function soleCondition(g: Guard): Record<string, JsonValue> | undefined {
  if (g.kind !== 'jmes') return undefined;
  const opaque = readOpaque(g.expr.text);
  if (!opaque || opaque.kind !== 'conditions') return undefined;
  const block = opaque.json;
  const list = Array.isArray(block) ? block : isJsonObject(block) ? [...((block.all as JsonValue[] | undefined) ?? []), ...((block.any as JsonValue[] | undefined) ?? [])] : [];
  return list.length === 1 && isJsonObject(list[0]) ? list[0] : undefined;
}

/**
 * Loops whose element precondition and JSON patch together state what a Gatekeeper mutator states: a
 * ModifySet merge or prune of a list inside each element, or a field written where it is missing. They
 * are `yet`: transmute does not read these JMESPath forms back.
 */
function setIdiom(guards: readonly Guard[], patches: readonly Op[], fields: readonly string[], ctx: ExplainContext): Refusal | undefined {
  if (guards.length !== 1 || patches.length !== 1 || patches[0]!.kind !== 'jsonPatch') return undefined;
  const c = soleCondition(guards[0]!);
  const bound = ctx.lets.get('$patch');
  const text = bound && bound.value.kind === 'templated' && typeof bound.value.json === 'string' ? bound.value.json : undefined;
  const steps = text !== undefined ? templatedSteps(text) : undefined;
  if (!c || !steps || steps.length !== 1 || typeof c.key !== 'string' || typeof c.operator !== 'string' || !['equals', 'equal'].includes(c.operator.toLowerCase())) return undefined;
  const step = steps[0]!;
  const prefix = `/${fields.join('/')}/`;
  const below = step.path.startsWith(prefix) ? step.path.slice(prefix.length).split('/') : [];
  if (below.length < 2 || !ELEMENT_INDEX.test(below[0]!)) return undefined;
  const name = fields.join('.');
  const contains = /^\{\{\s*contains\(\s*element\.([A-Za-z_][A-Za-z0-9_]*)\s*\|\|\s*`\[\]`\s*,\s*'([^']*)'\s*\)\s*\}\}$/.exec(c.key);
  if (contains && below.length === 3 && below[1] === contains[1] && below[2] === '-' && step.op === 'add' && step.value === contains[2] && c.value === false) {
    return notYet(`appending ${contains[2]} to the ${contains[1]} of each element of ${name} where it is missing (a ModifySet merge of ${name}[name: *].${contains[1]}; transmute does not read this JMESPath form yet)`);
  }
  if (contains && below.length === 2 && below[1] === contains[1] && step.op === 'replace' && c.value === true && typeof step.value === 'string') {
    const filter = new RegExp(`^\\{\\{\\s*element\\.${contains[1]}\\[\\?\\s*@\\s*!=\\s*'${contains[2]!.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}'\\s*\\]\\s*\\}\\}$`);
    if (filter.test(step.value)) {
      return notYet(`removing ${contains[2]} from the ${contains[1]} of each element of ${name} (a ModifySet prune of ${name}[name: *].${contains[1]}; transmute does not read this JMESPath form yet)`);
    }
  }
  const empty = /^\{\{\s*element\.([A-Za-z_][A-Za-z0-9_]*)\s*\|\|\s*''\s*\}\}$/.exec(c.key);
  if (empty && c.value === '' && below.length === 2 && below[1] === empty[1] && step.op === 'add' && !JSON.stringify(step.value ?? null).includes('{{')) {
    return notYet(
      `setting the ${empty[1]} of each element of ${name} where it is missing or empty (on admitted objects an optional string field is never present and empty, which makes it a MustNotExist pathTest; transmute does not know which fields those are)`,
    );
  }
  return undefined;
}

function isKeyedSelection(g: Guard): boolean {
  if (g.kind !== 'jmes') return false;
  const opaque = readOpaque(g.expr.text);
  if (!opaque || opaque.kind !== 'conditions') return false;
  const block = opaque.json;
  const list = Array.isArray(block) ? block : isJsonObject(block) ? [...((block.all as JsonValue[] | undefined) ?? []), ...((block.any as JsonValue[] | undefined) ?? [])] : [];
  if (list.length !== 1 || !isJsonObject(list[0])) return false;
  const c = list[0];
  return (
    typeof c.key === 'string' &&
    (/^\{\{\s*element\.[A-Za-z_][A-Za-z0-9_]*\s*\|\|\s*''\s*\}\}$/.test(c.key) || /^\{\{\s*element\.name\s*\}\}$/.test(c.key)) &&
    typeof c.operator === 'string' &&
    ['equals', 'equal'].includes(c.operator.toLowerCase()) &&
    typeof c.value === 'string' &&
    /^[A-Za-z][^|&*?]*$/.test(c.value)
  );
}

/** Why a binding cannot be translated on its own (a lazy one has no effect unless read, and is not asked). */
export function explainLet(op: LetOp): Refusal {
  return cannot(`the variable ${op.name}, ${describeLet(op)} (Gatekeeper mutators have no variables)`);
}

/** The refusal for any op the generator could not emit as a mutator. */
export function explainKyvernoOp(op: Op, ctx: ExplainContext, emit: (step: Op) => Refusal | undefined): Refusal | undefined {
  switch (op.kind) {
    case 'merge':
      return explainMerge(op, ctx);
    case 'jsonPatch':
      return explainJsonPatch(op, ctx, emit);
    case 'forEach':
      return explainForEach(op, ctx, emit);
    case 'let':
      return explainLet(op);
    case 'when': {
      const g = explainGuard(op.guard, ctx);
      return g;
    }
    default:
      return undefined;
  }
}

export { isRefusal };
