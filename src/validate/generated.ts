/**
 * Documents transmute generated, admitted as the cluster would admit them: a refusal is a generator bug, so
 * it is reported as TM4006 naming the generated document and the field, never written as output.
 */
import { diagnostic, type Diagnostic } from '../diagnostics/diagnostic.js';
import type { Dialect } from '../dialects/dialect.js';
import type { SourceDoc } from '../io/source.js';
import { isJsonObject } from '../ir/json.js';
import { admissionDiagnostics } from './admission.js';

function describe(doc: SourceDoc): string {
  const v = doc.value;
  if (!isJsonObject(v)) return 'document';
  const meta = isJsonObject(v.metadata) ? v.metadata : {};
  const name = typeof meta.name === 'string' ? ` "${meta.name}"` : '';
  return `${typeof v.kind === 'string' ? v.kind : 'document'}${name}`;
}

export function refusedGenerated(target: Dialect, docs: readonly SourceDoc[]): Diagnostic[] {
  const out: Diagnostic[] = [];
  for (const doc of docs) {
    if (!target.recognizes(doc)) continue;
    for (const d of admissionDiagnostics(doc, target.validate?.bind(target), target.name)) {
      if (d.severity !== 'error') continue;
      out.push(
        diagnostic('TM4006', {
          phase: 'emit',
          dialect: target.name,
          message: `the generated ${describe(doc)} would be refused by the cluster (${d.code}): ${d.message}`,
          ...(d.span ? { span: d.span } : {}),
        }),
      );
    }
  }
  return out;
}
