/**
 * What an ExpansionTemplate means for a translation. Gatekeeper expands a workload into simulated resources
 * only to validate them: the mutators that run on those resources (`source: Generated` or `All`) never change
 * a stored object. Kyverno, MutatingPolicy and MutatingAdmissionPolicy see only the objects of admission
 * requests, so there is nothing a template could become there (an autogen-style rule on the workload would
 * change the real Deployment, which Gatekeeper never does): the template is refused as `cannot`. Into
 * Gatekeeper it would be carried unchanged, which the generators do not do `yet`.
 */
import { diagnostic, type Diagnostic } from '../../../diagnostics/diagnostic.js';
import type { SourceDoc } from '../../../io/source.js';
import { DIALECT } from '../fields.js';
import { isExpansionTemplateDoc } from './template.js';

export function expansionRefusals(docs: readonly SourceDoc[], to: string, level: 'ignore' | 'warn' | 'error'): Diagnostic[] {
  if (level === 'ignore') return [];
  return docs.filter(isExpansionTemplateDoc).map((doc) => {
    const v = doc.value as { metadata?: { name?: unknown } };
    const name = typeof v.metadata?.name === 'string' ? v.metadata.name : '';
    const cannot = to !== 'gatekeeper';
    const message = cannot
      ? `ExpansionTemplate ${name}: ${to} has no expansion of workloads into the resources they create; Gatekeeper mutates those simulated resources only to validate them, never a stored object`
      : `ExpansionTemplate ${name}: templates are not carried into translated Gatekeeper output yet (give it to Gatekeeper unchanged)`;
    return diagnostic('TM4001', {
      phase: 'emit',
      dialect: DIALECT,
      message,
      span: doc.spanOf(['kind']),
      unsupported: cannot ? 'cannot' : 'yet',
      ...(level === 'warn' ? { severity: 'warning' as const } : {}),
    });
  });
}
