/** The canonical `ir` dialect: IR policies written as `transmute.dev/v1alpha1` `Policy` YAML documents. */
import type { Dialect } from '../dialect.js';
import { generateIr } from './generate.js';
import { parseIrDocuments, recognizesIr } from './parse.js';

export const irDialect: Dialect = {
  name: 'ir',
  recognizes: recognizesIr,
  parse: (docs) => parseIrDocuments(docs),
  lowerings: [],
  generate: (policies) => generateIr(policies),
};

export { IR_API_VERSION, IR_KIND } from './parse.js';
export { policyToDoc } from './generate.js';
