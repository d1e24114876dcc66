/**
 * Kyverno constructs the IR has no node for, kept opaque inside a `jmes` guard or value as a call of an
 * engine-private function whose single argument is the construct's JSON as a JMESPath raw literal:
 *
 *   kyverno_conditions(`{"all": [{"key": "{{ request.operation }}", "operator": "Equals", "value": "CREATE"}]}`)
 *   kyverno_context(`{"name": "cm", "variable": {"jmesPath": "a.b", "default": "x"}}`)
 *
 * The text is valid JMESPath and keeps the source construct readable in the IR text form; the Kyverno JMESPath
 * engine (src/engines/jmes.ts) recognizes the call and evaluates it with Kyverno's semantics (operators with
 * variable substitution; context-entry loading with defaults). Preconditions and context entries with
 * defaults have no exact structured form (see the report to the lead for the proposed IR nodes).
 */
import type { JsonValue } from '../../ir/json.js';

export type OpaqueKind = 'conditions' | 'context';

const PREFIX = 'kyverno_';
const FORM = /^kyverno_(conditions|context)\(`([\s\S]*)`\)$/;

export function opaqueExpression(kind: OpaqueKind, json: JsonValue): string {
  return `${PREFIX}${kind}(\`${JSON.stringify(json).replaceAll('`', '\\`')}\`)`;
}

/** The construct an opaque expression carries, or undefined for ordinary JMESPath. */
export function readOpaque(text: string): { kind: OpaqueKind; json: JsonValue } | undefined {
  if (!text.startsWith(PREFIX)) return undefined;
  const m = FORM.exec(text);
  if (!m) return undefined;
  try {
    return { kind: m[1] as OpaqueKind, json: JSON.parse(m[2]!.replaceAll('\\`', '`')) as JsonValue };
  } catch {
    return undefined;
  }
}
