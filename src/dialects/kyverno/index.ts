/**
 * The Kyverno dialect: ClusterPolicy / Policy mutate rules read into the IR and executed as Kyverno does.
 * Importing it registers the engines its IR needs (the `jmes` expression engine, the `kyverno` template
 * engine and the `smp` merge engine); registration is idempotent.
 */
import { diagnostic } from '../../diagnostics/diagnostic.js';
import { registerJmesEngine } from '../../engines/jmes.js';
import { registerSmpEngine } from '../../engines/smp.js';
import type { Dialect } from '../dialect.js';
import { KYVERNO_CAPABILITIES } from './capabilities.js';
import { parseKyverno, recognizesKyverno } from './parse.js';

registerJmesEngine();
registerSmpEngine();

export const kyvernoDialect: Dialect = {
  name: 'kyverno',
  capabilities: KYVERNO_CAPABILITIES,
  recognizes: recognizesKyverno,
  parse: parseKyverno,
  lowerings: [],
  generate: (policies) => ({
    documents: [],
    text: '',
    diagnostics:
      policies.length === 0
        ? []
        : [diagnostic('TM4001', { phase: 'emit', message: 'generating Kyverno policies is not implemented yet', dialect: 'kyverno' })],
  }),
};

export { parseKyverno, recognizesKyverno } from './parse.js';
