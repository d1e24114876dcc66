/**
 * The runtime environment of an evaluation, as cel-go's `Env` is for a program: the engines that run what the
 * IR keeps opaque or delegates (expression, template and merge engines, the typed decoder), the schemas objects
 * are typed with, and the data an evaluation reads from outside its documents (external data, request
 * attributes the request type does not carry, the cluster data of Kyverno's CEL libraries).
 *
 * One frozen value, built explicitly (`createRuntime` in ./create.ts, `deriveRuntime` below) and handed to
 * `apply`; engines read what they need from the runtime they are given. Nothing is registered anywhere, so two
 * runtimes evaluate side by side and importing a module changes nothing.
 */
import type { KyvernoDataProvider } from '../cel/lib/kyverno-context.js';
import type { ImageDataTable } from '../cel/lib/image-data.js';
import type { EngineContext, ExpressionEngine, MergeEngine, TemplateEngine, TypedDecoder } from '../interpreter/engines.js';
import type { JsonValue } from '../ir/json.js';
import type { ExternalData } from '../interpreter/state.js';
import type { TemplatedValue } from '../ir/nodes.js';
import type { GroupVersionKind } from '../k8s/request.js';
import { KindSchemaTable, type KindSchema } from '../merge/ssa/openapi/kinds.js';

/**
 * The environment an opaque expression is compiled in. The IR names only the language (`cel`, `jmes`); the
 * interpreter picks the environment (src/interpreter/expressions.ts expressionEnvironment).
 */
export type ExpressionEnvironment = 'cel-kubernetes' | 'cel-kyverno' | 'jmespath-kyverno';
export type MergeStrategy = 'smp' | 'ssa';
export type TemplateLanguage = TemplatedValue['language'];

/**
 * kube-apiserver's decode of an object a webhook patched (Kyverno's MutatingPolicy): the object as the API
 * server keeps it, fields its kind does not declare dropped; or the decode's error (a value of the wrong type).
 * `before`: the object the webhook was sent, when known (what the patched object shares with it decoded then).
 */
export type WebhookDecoder = (object: JsonValue, context: EngineContext, before?: JsonValue) => { ok: true; value: JsonValue } | { ok: false; message: string };

/**
 * kube-apiserver's defaulting of a built-in kind (src/k8s/defaults): the object with its kind's defaults, the
 * object itself when they change nothing.
 */
export type ObjectDefaulter = (object: JsonValue) => JsonValue;

/** What typing does with a kind that has no schema: kube-apiserver's error, or the deduced schema. */
export type UnknownKindPolicy = 'error' | 'deduced';

/** The schemas an evaluation types objects with (as given to createRuntime; fields left out keep the base's). */
export interface SchemaEnvironment {
  /** Custom kinds (CRDs, OpenAPI documents); they win over the built-in table. */
  kinds?: KindSchemaTable;
  unknownKinds?: UnknownKindPolicy;
}

/** The custom kinds of a runtime, read-only. */
export interface KindSchemas {
  get(gvk: GroupVersionKind): KindSchema | undefined;
  has(gvk: GroupVersionKind): boolean;
  keys(): string[];
}

/** A runtime's schema environment, every field set. */
export interface Schemas {
  readonly kinds: KindSchemas;
  readonly unknownKinds: UnknownKindPolicy;
}

/** Request attributes that `AdmissionRequest` does not carry (requestKind, ...); they default to kind/resource. */
export interface RequestExtras {
  requestKind?: { group: string; version: string; kind: string };
  requestResource?: { group: string; version: string; resource: string };
  requestSubResource?: string;
}

export interface Runtime {
  readonly expressions: Readonly<Partial<Record<ExpressionEnvironment, ExpressionEngine>>>;
  readonly templates: Readonly<Partial<Record<TemplateLanguage, TemplateEngine>>>;
  readonly merges: Readonly<Partial<Record<MergeStrategy, MergeEngine>>>;
  /** The strict decode kube-apiserver runs on a JSONPatch result (MAP); undefined: no decode. */
  readonly typedDecoder: TypedDecoder | undefined;
  /** The decode kube-apiserver runs on a webhook's patched object (Kyverno MutatingPolicy); undefined: none. */
  readonly webhookDecoder: WebhookDecoder | undefined;
  readonly schemas: Schemas;
  /** Gatekeeper external data offline: provider → key → answer. */
  readonly externalData: ExternalData | undefined;
  /** Attributes of the request under evaluation that the request type does not carry (CEL `request`). */
  readonly requestExtras: RequestExtras | undefined;
  /** The cluster data Kyverno's CEL libraries read (resource.Get/List, globalContext.Get). */
  readonly kyvernoData: KyvernoDataProvider | undefined;
  /** Image metadata offline (`--image-data`): what the `image` CEL library's registry reads return. */
  readonly imageData: ImageDataTable | undefined;
  /**
   * The apiserver's defaulting, re-run on the typed object after each MutatingAdmissionPolicy mutation
   * (admission/plugin/policy/mutating/dispatcher.go); undefined: none, as in the upstream unit tests, whose
   * scheme registers no defaulters.
   */
  readonly defaulter?: ObjectDefaulter | undefined;
}

/** What a runtime is built from; every field is optional. For an engine, `null` removes it. */
export interface RuntimeOptions {
  schemas?: SchemaEnvironment;
  externalData?: ExternalData;
  requestExtras?: RequestExtras;
  kyvernoData?: KyvernoDataProvider;
  imageData?: ImageDataTable;
  defaulter?: ObjectDefaulter | null;
  expressions?: { [E in ExpressionEnvironment]?: ExpressionEngine | null };
  templates?: { [L in TemplateLanguage]?: TemplateEngine | null };
  merges?: { [S in MergeStrategy]?: MergeEngine | null };
  typedDecoder?: TypedDecoder | null;
  webhookDecoder?: WebhookDecoder | null;
}

function withEngines<K extends string, E>(base: Readonly<Partial<Record<K, E>>>, changes: { [key in K]?: E | null } | undefined): Readonly<Partial<Record<K, E>>> {
  if (changes === undefined) return base;
  const out: Partial<Record<K, E>> = { ...base };
  for (const key of Object.keys(changes) as K[]) {
    const engine = changes[key];
    if (engine === null) delete out[key];
    else if (engine !== undefined) out[key] = engine;
  }
  return Object.freeze(out);
}

/** A private copy of the caller's table: a runtime's kinds cannot change after it was built. */
function ownKinds(kinds: KindSchemaTable): KindSchemas {
  return new KindSchemaTable().addAll(kinds);
}

/**
 * A runtime like `base` with `changes` applied: engines and data given replace the base's, schema fields left
 * out keep the base's (a case that only deduces unknown kinds keeps the kinds it was given).
 */
export function deriveRuntime(base: Runtime, changes: RuntimeOptions): Runtime {
  const schemas: Schemas =
    changes.schemas === undefined
      ? base.schemas
      : Object.freeze({
          kinds: changes.schemas.kinds !== undefined ? ownKinds(changes.schemas.kinds) : base.schemas.kinds,
          unknownKinds: changes.schemas.unknownKinds ?? base.schemas.unknownKinds,
        });
  const pick = <T>(given: T | null | undefined, kept: T | undefined): T | undefined => (given === null ? undefined : given !== undefined ? given : kept);
  return Object.freeze({
    expressions: withEngines(base.expressions, changes.expressions),
    templates: withEngines(base.templates, changes.templates),
    merges: withEngines(base.merges, changes.merges),
    typedDecoder: pick(changes.typedDecoder, base.typedDecoder),
    webhookDecoder: pick(changes.webhookDecoder, base.webhookDecoder),
    schemas,
    externalData: pick(changes.externalData, base.externalData),
    requestExtras: pick(changes.requestExtras, base.requestExtras),
    kyvernoData: pick(changes.kyvernoData, base.kyvernoData),
    imageData: pick(changes.imageData, base.imageData),
    defaulter: pick(changes.defaulter, base.defaulter),
  });
}

/** A runtime with no engine and no data: every opaque expression and delegated merge reports TM3005. */
export function emptyRuntime(): Runtime {
  return Object.freeze({
    expressions: Object.freeze({}),
    templates: Object.freeze({}),
    merges: Object.freeze({}),
    typedDecoder: undefined,
    webhookDecoder: undefined,
    schemas: Object.freeze({ kinds: new KindSchemaTable(), unknownKinds: 'error' as const }),
    externalData: undefined,
    requestExtras: undefined,
    kyvernoData: undefined,
    imageData: undefined,
  });
}

/**
 * A runtime like `base` whose custom kinds also include `kinds` (theirs win): a cluster that has just
 * installed a CustomResourceDefinition.
 */
export function withKinds(base: Runtime, kinds: KindSchemaTable): Runtime {
  const merged = new KindSchemaTable();
  for (const key of base.schemas.kinds.keys()) {
    const [group = '', version = '', kind = ''] = key.split('/');
    const schema = base.schemas.kinds.get({ group, version, kind });
    if (schema) merged.set({ group, version, kind }, schema);
  }
  return deriveRuntime(base, { schemas: { kinds: merged.addAll(kinds) } });
}
