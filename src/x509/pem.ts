/**
 * Go's encoding/pem Decode: the first well-formed block of the input. A candidate that is malformed (no
 * matching END line, bad base64) is skipped and the search goes on after its BEGIN line, as pem.Decode does.
 */
import { fromBase64 } from '../util/bytes.js';

export interface PemBlock {
  type: string;
  bytes: Uint8Array;
}

const BEGIN = '-----BEGIN ';
const END = '\n-----END ';
const DASHES = '-----';

/** pem.go getLine: the line without its trailing spaces, tabs and CR, and the rest after the newline. */
function getLine(s: string): [string, string] {
  const i = s.indexOf('\n');
  const line = i < 0 ? s : s.slice(0, i);
  const rest = i < 0 ? '' : s.slice(i + 1);
  return [line.replace(/[ \t\r]+$/, ''), rest];
}

/** base64.StdEncoding.Decode after pem's removeSpacesAndTabs: CR and LF are skipped, padding is required. */
function decodeBase64(text: string): Uint8Array | undefined {
  const compact = text.replace(/[ \t\r\n]/g, '');
  if (compact.length % 4 !== 0 || !/^[A-Za-z0-9+/]*(?:={0,2})$/.test(compact)) return undefined;
  if (/=[^=]/.test(compact)) return undefined;
  return fromBase64(compact);
}

export function decodePem(input: string): PemBlock | undefined {
  let rest = input;
  for (;;) {
    if (rest.startsWith(BEGIN)) rest = rest.slice(BEGIN.length);
    else {
      const at = rest.indexOf('\n' + BEGIN);
      if (at < 0) return undefined;
      rest = rest.slice(at + 1 + BEGIN.length);
    }
    let typeLine: string;
    [typeLine, rest] = getLine(rest);
    if (!typeLine.endsWith(DASHES)) continue;
    const type = typeLine.slice(0, -DASHES.length);
    let headers = 0;
    let truncated = false;
    for (;;) {
      if (rest.length === 0) {
        truncated = true;
        break;
      }
      const [line, next] = getLine(rest);
      if (!line.includes(':')) break;
      headers++;
      rest = next;
    }
    // pem.Decode returns "no block" (not "try the next one") when the input ends inside the headers.
    if (truncated) return undefined;
    let endIndex: number;
    let trailerIndex: number;
    if (headers === 0 && rest.startsWith(END.slice(1))) {
      endIndex = 0;
      trailerIndex = END.length - 1;
    } else {
      endIndex = rest.indexOf(END);
      trailerIndex = endIndex + END.length;
    }
    if (endIndex < 0) continue;
    const trailer = rest.slice(trailerIndex);
    const trailerLength = type.length + DASHES.length;
    if (trailer.length < trailerLength) continue;
    if (!trailer.startsWith(type) || trailer.slice(type.length, trailerLength) !== DASHES) continue;
    if (getLine(trailer.slice(trailerLength))[0].length !== 0) continue;
    const bytes = decodeBase64(rest.slice(0, endIndex));
    if (!bytes) continue;
    return { type, bytes };
  }
}
