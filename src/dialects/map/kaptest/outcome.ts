/**
 * kaptest's verdict for one evaluated test (pfnet/kaptest internal/tester/tester.go runEach, result.go;
 * k8s.io/apiserver webhook/matchconditions matcher.go Match):
 *   error   the request failed: a mutation failed under failurePolicy Fail, or a match condition errored
 *           under Fail (under Ignore an erroring condition is "no match", and a failing mutation is skipped)
 *   skip    no invocation: a match condition is false, or — transmute only — the policy's matchConstraints or
 *           the binding's matchResources do not select the request (kaptest never evaluates them)
 *   mutate  the policy ran; the object after it is compared with expectObject
 */
import { formatSpan } from '../../../diagnostics/span.js';
import { renderDiagnosticLine } from '../../../diagnostics/render.js';
import type { ApplyResult, TraceEvent } from '../../../interpreter/api.js';
import { isJsonObject, type JsonValue } from '../../../ir/json.js';
import type { Policy } from '../../../ir/nodes.js';
import type { SourceDoc } from '../../../io/source.js';
import type { Expectation } from './model.js';

/** Policy-level trace outcomes that mean the invocation did not run its mutations. */
const STOPS: ReadonlySet<TraceEvent['outcome']> = new Set(['skipped', 'error', 'not-matched']);

export interface Outcome {
  got: Expectation;
  /** Why, in kaptest's words where it has some ("NOT MATCH: condition-name ..."). */
  detail: string;
  object?: JsonValue | null;
}

export function outcomeOf(result: ApplyResult, policies: readonly Policy[], policyDoc: SourceDoc): Outcome {
  if (!result.allowed) {
    const d = result.diagnostics.find((x) => x.severity === 'error');
    return { got: 'error', detail: d ? renderDiagnosticLine(d) : 'the request was denied' };
  }
  const ids = new Set(policies.map((p) => p.id));
  const events = result.trace.filter((e) => ids.has(e.policy));
  const verdicts = new Map<string, TraceEvent>();
  for (const e of events) {
    if (e.node === 'policy' && STOPS.has(e.outcome) && !verdicts.has(e.policy)) verdicts.set(e.policy, e);
  }
  // An invocation ran when no policy-level event stopped it (matched, guards true).
  if (policies.some((p) => !verdicts.has(p.id))) return { got: 'mutate', detail: '', object: result.object };
  const stops = [...verdicts.values()];
  const condition = stops.find((e) => e.outcome === 'skipped');
  if (condition) return { got: 'skip', detail: `NOT MATCH: condition-name ${JSON.stringify(conditionName(condition, policyDoc))}` };
  const ignored = stops.find((e) => e.outcome === 'error');
  if (ignored) return { got: 'skip', detail: `NOT MATCH: a match condition failed and failurePolicy is Ignore: ${ignored.reason ?? ''}` };
  const notMatched = stops.find((e) => e.outcome === 'not-matched');
  return {
    got: 'skip',
    detail: `NOT MATCH: the policy's matchConstraints or binding's matchResources do not select the request (transmute evaluates them; kaptest does not)${notMatched?.reason ? `: ${notMatched.reason}` : ''}`,
  };
}

/** The name of the match condition whose expression the event's origin points at. */
function conditionName(e: TraceEvent, doc: SourceDoc): string {
  const spec = isJsonObject(doc.value) && isJsonObject(doc.value.spec) ? doc.value.spec : {};
  const conditions = Array.isArray(spec.matchConditions) ? spec.matchConditions : [];
  if (e.origin) {
    for (let i = 0; i < conditions.length; i++) {
      const c = conditions[i];
      const span = doc.spanOf(['spec', 'matchConditions', i, 'expression']);
      if (isJsonObject(c) && typeof c.name === 'string' && span.line === e.origin.line && span.col === e.origin.col) return c.name;
    }
    return `at ${formatSpan(e.origin)}`;
  }
  return e.reason ?? '';
}
