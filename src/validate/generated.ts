/**
 * Documents transmute generated, admitted as the cluster would admit them: a refusal is a generator bug, so
 * it is reported as TM4006 naming the generated document and the field, never written as output.
 */
import { diagnostic, type Diagnostic } from '../diagnostics/diagnostic.js';
import type { Dialect } from '../dialects/dialect.js';
import type { SourceDoc } from '../io/source.js';
import { isJsonObject } from '../ir/json.js';
import { admissionDiagnostics } from './admission.js';
import type { AdmitOptions } from './admit.js';

function describe(doc: SourceDoc): string {
  const v = doc.value;
  if (!isJsonObject(v)) return 'document';
  const meta = isJsonObject(v.metadata) ? v.metadata : {};
  const name = typeof meta.name === 'string' ? ` "${meta.name}"` : '';
  return `${typeof v.kind === 'string' ? v.kind : 'document'}${name}`;
}

/** The document a diagnostic points into: the last one of its file that starts at or before its line. */
function ownerOf(docs: readonly SourceDoc[], d: Diagnostic): SourceDoc | undefined {
  let owner: SourceDoc | undefined;
  for (const doc of docs) if (d.span && doc.file === d.span.file && doc.spanOf([]).line <= d.span.line) owner = doc;
  return owner;
}

/**
 * The generated documents' refusals. `opts` narrows the checks only where the source itself was never
 * admitted (a conformance harness that hands policies to an engine directly): a translation keeps what it
 * was given, so an inadmissible source gives an inadmissible translation.
 */
export function refusedGenerated(target: Dialect, docs: readonly SourceDoc[], opts: AdmitOptions = {}): Diagnostic[] {
  const out: Diagnostic[] = [];
  if (opts.mode === 'ignore') return out;
  const engine = target.validate?.bind(target);
  const refuse = (doc: SourceDoc | undefined, d: Diagnostic): void => {
    out.push(
      diagnostic('TM4006', {
        phase: 'emit',
        dialect: target.name,
        message: `the generated ${doc ? describe(doc) : 'document'} would be refused by the cluster (${d.code}): ${d.message}`,
        ...(d.span ? { span: d.span } : {}),
      }),
    );
  };
  const recognized = docs.filter((doc) => target.recognizes(doc));
  for (const doc of recognized) {
    const found = opts.stages === 'engine' ? (engine ? engine(doc) : []) : admissionDiagnostics(doc, engine, target.name);
    for (const d of found) if (d.severity === 'error') refuse(doc, d);
  }
  // MAP and Gatekeeper check the rest of what their engines refuse while reading (names, enums, locations):
  // reading the output back is part of admitting it.
  if (out.length === 0 && recognized.length > 0) {
    for (const d of target.parse(recognized, { siblings: docs }).diagnostics) {
      if (d.severity === 'error') refuse(ownerOf(recognized, d), d);
    }
  }
  return out;
}
