/** The runtime environment an evaluation receives (see runtime.ts); `createRuntime` builds the default one. */
export { createRuntime } from './create.js';
export {
  deriveRuntime,
  emptyRuntime,
  withKinds,
  type ExpressionEnvironment,
  type KindSchemas,
  type MergeStrategy,
  type ObjectDefaulter,
  type RequestExtras,
  type Runtime,
  type RuntimeOptions,
  type SchemaEnvironment,
  type Schemas,
  type TemplateLanguage,
  type UnknownKindPolicy,
  type WebhookDecoder,
} from './runtime.js';
