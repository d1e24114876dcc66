/**
 * The default runtime: every engine transmute ships, in the environment each dialect's policies run in, and no
 * custom kinds or outside data. Engines are stateless constants, so runtimes built here share them (and the
 * interpreter's compiled expressions, cached per engine) while each keeps its own schemas and data.
 */
import { KUBERNETES_CEL_ENGINE } from '../engines/cel.js';
import { JMES_ENGINE, KYVERNO_TEMPLATE_ENGINE } from '../engines/jmes.js';
import { SMP_ENGINE } from '../engines/smp.js';
import { SSA_ENGINE, ssaTypedDecoder, ssaWebhookDecoder } from '../engines/ssa.js';
import { KYVERNO_CEL_ENGINE } from '../dialects/kyverno-mpol/cel-engine.js';
import { deriveRuntime, type KindSchemas, type Runtime, type RuntimeOptions } from './runtime.js';

// Frozen constants: the engine tables and the empty kind table cannot change, so every default runtime may
// share them. `apply` without a runtime builds one per call, which must cost next to nothing (issue 17).
const EXPRESSIONS: Runtime['expressions'] = Object.freeze({
  'cel-kubernetes': KUBERNETES_CEL_ENGINE,
  'cel-kyverno': KYVERNO_CEL_ENGINE,
  'jmespath-kyverno': JMES_ENGINE,
});
const TEMPLATES: Runtime['templates'] = Object.freeze({ kyverno: KYVERNO_TEMPLATE_ENGINE });
const MERGES: Runtime['merges'] = Object.freeze({ smp: SMP_ENGINE, ssa: SSA_ENGINE });
const noKind = (): undefined => undefined;
const hasNoKind = (): boolean => false;
const noKeys = (): string[] => [];

/** An empty kind table of its own (each runtime has its own schema environment), made of shared functions. */
function noKinds(): KindSchemas {
  return Object.freeze({ get: noKind, has: hasNoKind, keys: noKeys });
}

/**
 * A runtime with the default engines (MAP's CEL environment for `cel-kubernetes`, Kyverno's for `cel-kyverno`,
 * Kyverno's JMESPath and `{{ }}` templates, strategic and structured merge, the strict typed decode), the
 * built-in kinds only, kube-apiserver's error for an unknown kind, and no outside data; `options` changes any
 * of it. Built anew on every call: a runtime is a value, never a shared registry.
 */
export function createRuntime(options?: RuntimeOptions): Runtime {
  const defaults: Runtime = Object.freeze({
    expressions: EXPRESSIONS,
    templates: TEMPLATES,
    merges: MERGES,
    typedDecoder: ssaTypedDecoder,
    webhookDecoder: ssaWebhookDecoder,
    schemas: Object.freeze({ kinds: noKinds(), unknownKinds: 'error' as const }),
    externalData: undefined,
    requestExtras: undefined,
    kyvernoData: undefined,
    imageData: undefined,
  });
  return options === undefined ? defaults : deriveRuntime(defaults, options);
}
