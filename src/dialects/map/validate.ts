/** The API server's validation of names and lists (admissionregistration/validation) that the reader does not do. */
import type { YamlPath } from '../../io/source.js';
import type { Named } from './model.js';
import { fieldName, type Reader } from './reader.js';
import { qualifiedNameErrors } from '../../validate/object-meta.js';
import { goQuote } from '../../k8s/go-strings.js';

const CEL_IDENTIFIER = /^[_a-zA-Z][_a-zA-Z0-9]*$/;
/** CEL reserved words cannot name a variable. */
const RESERVED = new Set(['true', 'false', 'null', 'in', 'as', 'break', 'const', 'continue', 'else', 'for', 'function', 'if', 'import', 'let', 'loop', 'package', 'namespace', 'return', 'var', 'void', 'while']);

export const MAX_MATCH_CONDITIONS = 64;

export function validateVariables(r: Reader, vars: readonly Named[], path: YamlPath): void {
  const seen = new Set<string>();
  vars.forEach((v, i) => {
    const p = [...path, i, 'name'];
    if (!CEL_IDENTIFIER.test(v.name) || RESERVED.has(v.name)) r.report('TM2002', p, `${fieldName(p)}: Invalid value: ${JSON.stringify(v.name)}: name is not a valid CEL identifier`);
    if (seen.has(v.name)) r.report('TM2002', p, `${fieldName(p)}: Duplicate value: ${JSON.stringify(v.name)}`);
    seen.add(v.name);
  });
}

export function validateMatchConditions(r: Reader, conds: readonly Named[], path: YamlPath): void {
  if (conds.length > MAX_MATCH_CONDITIONS) r.report('TM2002', path, `${fieldName(path)}: Too many: ${conds.length}: must have at most ${MAX_MATCH_CONDITIONS} items`);
  const seen = new Set<string>();
  conds.forEach((c, i) => {
    const p = [...path, i, 'name'];
    // ValidateQualifiedName: one error per broken rule, in its words.
    for (const e of qualifiedNameErrors(c.name)) r.report('TM2002', p, `${fieldName(p)}: Invalid value: ${goQuote(c.name)}: ${e}`);
    if (seen.has(c.name)) r.report('TM2002', p, `${fieldName(p)}: Duplicate value: ${JSON.stringify(c.name)}`);
    seen.add(c.name);
  });
}
