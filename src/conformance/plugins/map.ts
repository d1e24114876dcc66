/**
 * The MAP corpus' plug-ins: the CEL and structured-merge engines, and a case runner that hands the request
 * attributes the `AdmissionRequest` type does not carry (requestKind, requestResource, requestSubResource,
 * from the manifest's `request`) to the CEL `request` variable, then runs the default admission runner.
 */
import { registerCelEngine, setRequestExtras, type RequestExtras } from '../../engines/cel.js';
import { registerSsaEngine } from '../../engines/ssa.js';
import { isJsonObject, type JsonValue } from '../../ir/json.js';
import { runAdmissionCase } from '../runners/admission.js';
import { registerCaseRunner } from '../runners.js';
import type { AdmissionCase, CaseResult } from '../types.js';
import type { RunContext } from '../runners/context.js';

function str(v: JsonValue | undefined): string {
  return typeof v === 'string' ? v : '';
}

function extrasOf(c: AdmissionCase): RequestExtras {
  const hints = c.hints ?? {};
  const out: RequestExtras = {};
  const rk = hints['requestKind'];
  if (isJsonObject(rk)) out.requestKind = { group: str(rk['group']), version: str(rk['version']), kind: str(rk['kind']) };
  const rr = hints['requestResource'];
  if (isJsonObject(rr)) out.requestResource = { group: str(rr['group']), version: str(rr['version']), resource: str(rr['resource']) };
  if (typeof hints['requestSubResource'] === 'string') out.requestSubResource = hints['requestSubResource'];
  return out;
}

export function runMapCase(c: AdmissionCase, ctx: RunContext): CaseResult {
  if (c.request) setRequestExtras(c.request, extrasOf(c));
  return runAdmissionCase(c, ctx);
}

registerCelEngine();
registerSsaEngine();
registerCaseRunner('map', runMapCase);
