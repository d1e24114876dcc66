/**
 * Reads `transmute.dev/v1alpha1` `Policy` documents (one policy per document) into IR policies.
 *
 *   apiVersion: transmute.dev/v1alpha1
 *   kind: Policy
 *   metadata: {name: <id>}
 *   spec:
 *     semantics: {order: sequential|fixpoint|ordered, maxPasses?, reinvocation?, failurePolicy?, applyRules?, namespace?}   # default sequential
 *     match: <MatchSpec>                                                                             # default: everything
 *     lets: [<let op>…]          bindings the guards and every rule see
 *     guards: [<guard>…]
 *     rules: [{name, match?, guards?, body: [<op>…]}…]
 *
 * Every node's origin is the span of its YAML node. A document with any error yields no policy.
 */
import type { Diagnostic } from '../../diagnostics/diagnostic.js';
import { hasOwn, isJsonObject, type JsonValue } from '../../ir/json.js';
import { matchAll } from '../../ir/match.js';
import type { LetOp, Policy, Rule, Semantics } from '../../ir/nodes.js';
import type { SourceDoc, YamlPath } from '../../io/source.js';
import type { ParseResult } from '../dialect.js';
import { readMatchSpec } from './match.js';
import { readGuards } from './parse-guard.js';
import { readOps } from './parse-op.js';
import { Reader } from './reader.js';
import { pushAll } from '../../util/arrays.js';

export const IR_API_VERSION = 'transmute.dev/v1alpha1';
export const IR_KIND = 'Policy';

export function recognizesIr(doc: SourceDoc): boolean {
  return isJsonObject(doc.value) && doc.value.apiVersion === IR_API_VERSION;
}

export function parseIrDocuments(docs: readonly SourceDoc[]): ParseResult {
  const policies: Policy[] = [];
  const diagnostics: Diagnostic[] = [];
  for (const doc of docs) {
    const r = new Reader(doc);
    const policy = readPolicyDoc(r, doc.value);
    pushAll(diagnostics, r.diagnostics);
    if (policy && !r.diagnostics.some((d) => d.severity === 'error')) policies.push(policy);
  }
  return { policies, diagnostics };
}

function readPolicyDoc(r: Reader, v: JsonValue): Policy | undefined {
  const root = r.object(v, [], 'policy document', ['apiVersion', 'kind', 'metadata', 'spec'], []);
  if (!root) return undefined;
  if (root.apiVersion !== IR_API_VERSION) {
    r.error(['apiVersion'], `apiVersion must be ${IR_API_VERSION}`, 'TM2001');
    return undefined;
  }
  if (root.kind !== IR_KIND) {
    r.error(['kind'], `unknown kind ${JSON.stringify(root.kind)} for ${IR_API_VERSION} (expected ${IR_KIND})`, 'TM2001');
    return undefined;
  }
  const meta = r.object(root.metadata, ['metadata'], 'metadata', ['name'], []);
  const id = meta && r.string(meta.name, ['metadata', 'name'], 'metadata.name');
  const spec = r.object(root.spec, ['spec'], 'spec', [], ['semantics', 'match', 'lets', 'guards', 'rules']);
  if (id === undefined || !spec) return undefined;
  const semantics = hasOwn(spec, 'semantics') ? readSemantics(r, spec.semantics, ['spec', 'semantics']) : { order: 'sequential' as const };
  const match = hasOwn(spec, 'match') ? readMatchSpec(r, spec.match, ['spec', 'match']) : matchAll(r.origin(['spec']));
  const lets = hasOwn(spec, 'lets') ? readOps(r, spec.lets, ['spec', 'lets'], 'spec.lets') : [];
  const guards = hasOwn(spec, 'guards') ? readGuards(r, spec.guards, ['spec', 'guards'], 'spec.guards') : [];
  const rules = hasOwn(spec, 'rules') ? r.listOf(spec.rules, ['spec', 'rules'], 'spec.rules', (x, p) => readRule(r, x, p)) : [];
  if (!semantics || !match || !lets || !guards || !rules) return undefined;
  const notLet = lets.find((op) => op.kind !== 'let');
  if (notLet) {
    r.error(['spec', 'lets'], `spec.lets holds only let bindings (found ${notLet.kind})`);
    return undefined;
  }
  return { id, match, ...(lets.length > 0 ? { lets: lets as LetOp[] } : {}), guards, rules, semantics, origin: r.origin([]) };
}

/** The semantics fields that take one of a few words, with the words each takes. */
const SEMANTICS_CHOICES = {
  reinvocation: ['never', 'ifNeeded'],
  failurePolicy: ['fail', 'ignore'],
  applyRules: ['all', 'one'],
  namespace: ['implied'],
} as const satisfies Partial<Record<keyof Semantics, readonly string[]>>;

function readSemantics(r: Reader, v: JsonValue | undefined, at: YamlPath): Semantics | undefined {
  const o = r.object(v, at, 'semantics', ['order'], ['maxPasses', 'reinvocation', 'failurePolicy', 'applyRules', 'namespace']);
  if (!o) return undefined;
  const order = r.oneOf(o.order, [...at, 'order'], 'semantics.order', ['sequential', 'fixpoint', 'ordered'] as const);
  if (!order) return undefined;
  const s: Semantics = { order };
  let good = true;
  if (hasOwn(o, 'maxPasses')) {
    const n = r.integer(o.maxPasses, [...at, 'maxPasses'], 'semantics.maxPasses', 1);
    if (n === undefined) good = false;
    else s.maxPasses = n;
  }
  for (const key of Object.keys(SEMANTICS_CHOICES) as (keyof typeof SEMANTICS_CHOICES)[]) {
    if (!hasOwn(o, key)) continue;
    const x = r.oneOf(o[key], [...at, key], `semantics.${key}`, SEMANTICS_CHOICES[key]);
    if (x === undefined) good = false;
    else Object.assign(s, { [key]: x });
  }
  return good ? s : undefined;
}

function readRule(r: Reader, v: JsonValue, at: YamlPath): Rule | undefined {
  const o = r.object(v, at, 'rule', ['name'], ['match', 'guards', 'body']);
  if (!o) return undefined;
  const name = r.string(o.name, [...at, 'name'], 'rule name');
  const match = hasOwn(o, 'match') ? readMatchSpec(r, o.match, [...at, 'match']) : undefined;
  const guards = hasOwn(o, 'guards') ? readGuards(r, o.guards, [...at, 'guards'], 'rule guards') : [];
  const body = hasOwn(o, 'body') ? readOps(r, o.body, [...at, 'body'], 'rule body') : [];
  if (name === undefined || (hasOwn(o, 'match') && !match) || !guards || !body) return undefined;
  return match ? { name, match, guards, body, origin: r.origin(at) } : { name, guards, body, origin: r.origin(at) };
}

