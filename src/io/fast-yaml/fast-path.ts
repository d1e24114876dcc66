/**
 * Which reader a text goes to. JSON and NDJSON (json-input.ts) and block-style YAML (builder.ts) are read by the
 * fast readers; everything else, and every text a fast reader gives up on, by the reference (the `yaml` package's
 * composer and yaml-convert.ts, via yaml-parse.ts), which also produces every diagnostic: the fast readers never
 * report anything, they either read a text exactly as the reference would or decline it.
 */
import type { ParseLimits, ParsedDocument } from '../yaml-parse.js';
import { buildBlockDocuments } from './builder.js';
import { firstContent, readJsonDocuments, type ReferenceParser } from './json-input.js';
import { Unsupported } from './scanner.js';

/**
 * Characters the block reader leaves to the reference: carriage returns (line ends the scanner does not track),
 * byte order marks, control characters, and the YAML 1.1 line breaks NEL, LS and PS.
 */
const NOT_FOR_BLOCK_READER = /[\r\ufeff\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f\u2028\u2029]/;

/** What the fast readers made of a text: its non-empty documents, or why the reference must read it. */
export type FastRead = { reader: 'json' | 'block'; docs: ParsedDocument[] } | { reader: 'reference'; why: string };

export function readFast(text: string, limits: ParseLimits, reference: ReferenceParser): FastRead {
  const first = text.charCodeAt(firstContent(text));
  if (first === 123 /* { */ || first === 91 /* [ */) {
    const docs = readJsonDocuments(text, limits.maxDepth, reference);
    return docs ? { reader: 'json', docs } : { reader: 'reference', why: 'not JSON, or JSON the reference reads differently' };
  }
  if (NOT_FOR_BLOCK_READER.test(text)) return { reader: 'reference', why: 'carriage return, byte order mark or control character' };
  try {
    return { reader: 'block', docs: buildBlockDocuments(text, limits.maxDepth, limits.yaml12 ?? false) };
  } catch (e) {
    if (!(e instanceof Unsupported)) throw e;
    return { reader: 'reference', why: e.why };
  }
}

/** The non-empty documents of `text` read by a fast reader, or undefined when the reference must read it. */
export function fastDocuments(text: string, limits: ParseLimits, reference: ReferenceParser): ParsedDocument[] | undefined {
  const r = readFast(text, limits, reference);
  return r.reader === 'reference' ? undefined : r.docs;
}
