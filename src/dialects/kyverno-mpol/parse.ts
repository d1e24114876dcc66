/**
 * Parses MutatingPolicies and the CEL PolicyExceptions of one input together. No binding is needed (Kyverno
 * installs the policy's webhook itself) and there are no params. A policy whose admission evaluation is
 * disabled yields no admission policy (it only mutates existing objects, which `mutateExistingPolicies`
 * reports to whoever simulates the background controller).
 */
import type { Diagnostic } from '../../diagnostics/diagnostic.js';
import type { Policy } from '../../ir/nodes.js';
import type { SourceDoc } from '../../io/source.js';
import type { ParseOptions, ParseResult } from '../dialect.js';
import { autogenVariants } from './autogen.js';
import { checkExceptionCel, checkMpolCel } from './cel-check.js';
import { lowerPolicy, policyId } from './lower.js';
import { DIALECT, type MpolException, type MpolPolicy } from './model.js';
import { readMpolException, readMpolPolicy } from './policy.js';
import { isExceptionDoc, isMpolDoc } from './recognize.js';
import { definedTwice, readChecked } from '../read-checked.js';

export interface MpolDocuments {
  policies: MpolPolicy[];
  exceptions: MpolException[];
  diagnostics: Diagnostic[];
}

/** Reads and checks every MutatingPolicy and PolicyException among `docs` (siblings included). */
export function readMpolDocuments(docs: readonly SourceDoc[]): MpolDocuments {
  const diagnostics: Diagnostic[] = [];
  const policies: MpolPolicy[] = [];
  const exceptions: MpolException[] = [];
  for (const doc of new Set(docs)) {
    if (isMpolDoc(doc)) {
      const p = readChecked(doc, diagnostics, readMpolPolicy, checkMpolCel);
      if (!p) continue;
      if (policies.some((q) => policyId(q) === policyId(p) && q.kind === p.kind)) {
        diagnostics.push(definedTwice(DIALECT, `${p.kind} "${policyId(p)}"`, doc));
        continue;
      }
      policies.push(p);
    } else if (isExceptionDoc(doc)) {
      const e = readChecked(doc, diagnostics, readMpolException, checkExceptionCel);
      if (e) exceptions.push(e);
    }
  }
  return { policies, exceptions, diagnostics };
}

function exceptionsFor(policy: MpolPolicy, exceptions: readonly MpolException[]): MpolException[] {
  return exceptions.filter((e) => e.policyRefs.some((r) => r.name === policy.name && (r.kind === '' || r.kind === policy.kind)));
}

/** The admission IR of one policy: itself and its autogen variants. */
export function lowerMpol(policy: MpolPolicy, exceptions: readonly MpolException[]): Policy[] {
  if (!policy.admission || policy.hasTargets) return [];
  const own = exceptionsFor(policy, exceptions);
  const out = [lowerPolicy(policy, policy, own)];
  for (const v of autogenVariants(policy)) out.push(lowerPolicy(policy, { ...v, suffix: `autogen ${v.config}` }, own));
  return out;
}

export function parseMpol(docs: readonly SourceDoc[], opts: ParseOptions = {}): ParseResult {
  const all = [...docs, ...(opts.siblings ?? []).filter((d) => !docs.includes(d) && (isMpolDoc(d) || isExceptionDoc(d)))];
  const read = readMpolDocuments(all);
  return { policies: read.policies.flatMap((p) => lowerMpol(p, read.exceptions)), diagnostics: read.diagnostics };
}
