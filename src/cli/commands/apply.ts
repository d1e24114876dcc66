import { diagnostic, hasErrors, type Diagnostic } from '../../diagnostics/diagnostic.js';
import { formatSpan } from '../../diagnostics/span.js';
import { escapeControls } from '../../diagnostics/render.js';
import { isJsonObject, type JsonObject, type JsonValue } from '../../ir/json.js';
import { mutationAnnotations } from '../../dialects/gatekeeper/annotations.js';
import type { SchemaEnvironment, UnknownKindPolicy } from '../../engines/ssa.js';
import { createRuntime } from '../../runtime/create.js';
import { readImageData, type ImageDataTable } from '../../cel/lib/image-data.js';
import { admittedObject, applyApiServerDefaults, storedObject } from '../../k8s/defaults/index.js';
import { apply, type TraceEvent } from '../../interpreter/index.js';
import type { Patch6902 } from '../../interpreter/api.js';
import type { ExternalData } from '../../interpreter/state.js';
import { unifiedDiff } from '../../io/diff.js';
import { toJson, toYaml } from '../../io/yaml-dump.js';
import { asAdmitted, type AdmissionRequest, type Operation, type UserInfo } from '../../k8s/request.js';
import { mutateExisting, notATarget } from '../../dialects/kyverno/mutate-existing.js';
import { applyExistingMutatingPolicies } from '../../dialects/kyverno-mpol/mutate-existing-apply.js';
import type { SourceDoc } from '../../io/source.js';
import { kindSchemasFromCrds, kindSchemasFromOpenApi } from '../../merge/ssa/openapi/load.js';
import { SourceRegistry } from '../../diagnostics/render.js';
import { parsePolicyDocs } from '../../pipeline.js';
import { isNamespace, namespaceFor, valuesProblem, withSetValues } from '../../dialects/kyverno/apply-inputs.js';
import { applyingExceptions, isKyvernoException, readExceptions, withExemptions } from '../../dialects/kyverno/test-suite/exceptions.js';
import { folderForFile, MAX_INPUT_SIZE_HELP, maxInputBytes, notAnObject, READER_OPTIONS, readCliInputs, type ReaderFlags, stdinNamedTwice, streamCliInputs } from '../inputs.js';
import { pushAll } from '../../util/arrays.js';
import { many } from '../args.js';
import { startCommand } from '../command-start.js';
import { EXIT, type CliIO } from '../io.js';
import { paintDiff, paletteFor } from '../color.js';
import { patchOutput, resourceRef } from '../patch-output.js';
import { progressLine } from '../progress.js';
import { withNamespaceHints } from '../namespace-hint.js';
import { reportDiagnostics } from '../report.js';
import { VALIDATE_HELP, validateMode } from '../validate-flag.js';

export const APPLY_HELP = `Usage: transmute apply -p POLICY... -r RESOURCE... [options]

Runs the policies (any dialect, discovered from apiVersion and kind) against each resource as an admission
request would, and prints the result.

Options:
  -p, --policy PATH          policy file, directory or - (stdin); repeatable
  -r, --resource PATH        resource file, directory or -; each document is one request; repeatable
  -o, --output FORMAT        yaml (default) | json | patch (RFC 6902) | diff (unified, YAML)
      --explain              print the trace (which policy, rule and op ran or was skipped, and why) to stderr
      --operation OP         CREATE (default; UPDATE when --old-object is given) | UPDATE | DELETE | CONNECT
      --old-object FILE      the stored object, for UPDATE
      --user FILE            userInfo as YAML: username, groups, roles, clusterRoles
      --namespace-object FILE  the Namespace of the resource, for namespace selectors (without it, a Namespace
                             object among the -r inputs is used for the resources in it, else a Namespace
                             with the values file's namespaceSelector labels)
  -f, --values-file FILE     a cli.kyverno.io/v1alpha1 Values document (the format kyverno-test.yaml suites
                             use): per-rule context values (policies[].rules[].values; dotted keys nest, so
                             settings.data.config stands for a configMap entry named settings), globalValues,
                             namespaceSelector labels
  -s, --set KEY=VALUE,...    global values (strings), as kyverno apply --set (repeatable)
  -e, --exception FILE       PolicyExceptions applied as Kyverno applies them: kyverno.io ones make the rules
                             they name skip for the resources they match; CEL ones (policies.kyverno.io) exempt
                             MutatingPolicies (repeatable)
      --params FILE          the parameter object
      --external-data FILE   offline external data: {provider: {key: value | {error: message}}}
      --image-data FILE      offline image metadata for Kyverno's image CEL library (image.GetMetadata) and
                             imageRegistry context entries (shaped as Kyverno's registry client returns it):
                             {reference: {digest, manifest, config, ...}}, or a cli.kyverno.io Context
                             (spec.images); without it, a policy reading an image's metadata is unsupported
      --target-resource PATH resources that Kyverno mutate-existing rules (mutate.targets) and MutatingPolicies
                             with evaluation.mutateExisting may select; each resource given with -r is a
                             trigger, and the targets its policies mutated are printed after the resources
                             (repeatable)
      --apiserver-defaults   show each resource as kube-apiserver stores it (kubectl get after creation): its
                             kind's defaults and the default admission plugins (ServiceAccount with a token
                             volume named deterministically, Priority, DefaultTolerationSeconds) before the
                             policies run, MutatingAdmissionPolicy results re-defaulted after each mutation,
                             and the result defaulted again; -o patch is still the policies' own patch
      --mutation-annotations add Gatekeeper's gatekeeper.sh/mutation-id and gatekeeper.sh/mutations annotations
      --crd FILE             CustomResourceDefinition manifests (apiextensions.k8s.io/v1, or a List of them):
                             each served version types its kind for MutatingAdmissionPolicy mutations, as
                             kube-apiserver publishes it (repeatable)
      --schema FILE          OpenAPI v3 documents, as served at /openapi/v3/apis/<group>/<version>; every
                             schema with x-kubernetes-group-version-kind types that kind (repeatable)
      --unknown-schema MODE  what a MutatingAdmissionPolicy mutation of a kind that is neither built in nor
                             given with --crd/--schema does: error (default; kube-apiserver's "Resource kind
                             ... not found") | deduced (maps granular, lists atomic)
${VALIDATE_HELP}
${MAX_INPUT_SIZE_HELP}
      --diagnostics FORMAT   text (default) | json
  -h, --help                 show this help

Exit codes: 0 applied, 1 a request was denied (a policy failed), 2 bad usage or bad input.
`;

interface ApplyFlags extends ReaderFlags {
  policy?: string[];
  resource?: string[];
  output?: string;
  explain?: boolean;
  operation?: string;
  'old-object'?: string;
  user?: string;
  'namespace-object'?: string;
  'values-file'?: string;
  set?: string[];
  exception?: string[];
  params?: string;
  'external-data'?: string;
  'image-data'?: string;
  'mutation-annotations'?: boolean;
  'apiserver-defaults'?: boolean;
  'target-resource'?: string[];
  crd?: string[];
  schema?: string[];
  'unknown-schema'?: string;
}

const OPERATIONS: readonly Operation[] = ['CREATE', 'UPDATE', 'DELETE', 'CONNECT'];

/** Reads one auxiliary YAML file given with a flag; errors are diagnostics naming the flag. */
function readSingle(path: string, flag: string, io: CliIO, sources: SourceRegistry, diags: Diagnostic[], object = false): JsonValue | undefined {
  const r = readCliInputs([path], io, sources);
  diags.push(...r.diagnostics);
  if (!r.ok) return undefined;
  if (r.docs.length !== 1) {
    diags.push(diagnostic('TM7001', { phase: 'cli', message: `${flag} ${path}: expected exactly one YAML document, found ${r.docs.length}` }));
    return undefined;
  }
  const doc = r.docs[0]!;
  const refused = object ? notAnObject(doc, `the ${flag} document`) : undefined;
  if (refused) {
    diags.push(refused);
    return undefined;
  }
  return doc.value;
}

/** The kinds `--crd` and `--schema` files define, and the `--unknown-schema` policy. */
function readSchemas(crdPaths: string[], schemaPaths: string[], unknownKinds: UnknownKindPolicy, io: CliIO, sources: SourceRegistry, diags: Diagnostic[]): SchemaEnvironment {
  const env: SchemaEnvironment = { unknownKinds };
  const read = (paths: string[], convert: typeof kindSchemasFromCrds) => {
    if (paths.length === 0) return;
    const inputs = readCliInputs(paths, io, sources);
    diags.push(...inputs.diagnostics);
    if (!inputs.ok) return;
    const r = convert(inputs.docs);
    diags.push(...r.diagnostics);
    if (r.ok) env.kinds = env.kinds ? env.kinds.addAll(r.value) : r.value;
  };
  read(crdPaths, kindSchemasFromCrds);
  read(schemaPaths, kindSchemasFromOpenApi);
  return env;
}

export function describeObject(obj: JsonValue | null): string {
  if (!isJsonObject(obj)) return 'object';
  const meta = isJsonObject(obj.metadata) ? obj.metadata : {};
  const ns = typeof meta.namespace === 'string' ? `${meta.namespace}/` : '';
  return `${typeof obj.kind === 'string' ? obj.kind : 'object'}/${ns}${typeof meta.name === 'string' ? meta.name : '<unnamed>'}`;
}

export function formatTrace(trace: readonly TraceEvent[]): string {
  return trace
    .map((e) => {
      const where = e.origin ? `  (${formatSpan(e.origin)})` : '';
      const pass = e.pass !== undefined ? `[pass ${e.pass}] ` : '';
      const rule = e.rule ? ` rule ${e.rule}` : '';
      const reason = e.reason ? `: ${e.reason}` : '';
      return `${pass}policy ${e.policy}${rule} ${e.node} ${e.outcome}${reason}${where}`;
    })
    .join('\n');
}

export async function runApply(argv: string[], io: CliIO): Promise<number> {
  const start = startCommand<ApplyFlags>(argv, io, {
    name: 'apply',
    help: APPLY_HELP,
    options: {
      policy: { type: 'string', short: 'p', multiple: true },
      resource: { type: 'string', short: 'r', multiple: true },
      output: { type: 'string', short: 'o' },
      explain: { type: 'boolean' },
      operation: { type: 'string' },
      'old-object': { type: 'string' },
      user: { type: 'string' },
      'namespace-object': { type: 'string' },
      'values-file': { type: 'string', short: 'f' },
      set: { type: 'string', short: 's', multiple: true },
      exception: { type: 'string', short: 'e', multiple: true },
      params: { type: 'string' },
      'external-data': { type: 'string' },
      'image-data': { type: 'string' },
      'mutation-annotations': { type: 'boolean' },
      'apiserver-defaults': { type: 'boolean' },
      'target-resource': { type: 'string', multiple: true },
      crd: { type: 'string', multiple: true },
      schema: { type: 'string', multiple: true },
      'unknown-schema': { type: 'string' },
      ...READER_OPTIONS,
    },
  });
  if ('exit' in start) return start.exit;
  const { flags: f, format, usage } = start;
  const output = f.output ?? 'yaml';
  if (!['yaml', 'json', 'patch', 'diff'].includes(output)) return usage(`-o must be yaml, json, patch or diff, not "${output}"`);
  if (many(f.policy).length === 0) return usage('at least one policy is required (-p POLICY)');
  if (many(f.resource).length === 0) return usage('at least one resource is required (-r RESOURCE)');
  if (f.operation && !OPERATIONS.includes(f.operation as Operation)) return usage(`--operation must be one of ${OPERATIONS.join(', ')}`);
  const unknownKinds = f['unknown-schema'] ?? 'error';
  if (unknownKinds !== 'error' && unknownKinds !== 'deduced') return usage(`--unknown-schema must be error or deduced, not "${unknownKinds}"`);

  const mode = validateMode(f.validate);
  if (typeof mode !== 'string') return usage(mode.error);

  const budget = maxInputBytes(f['max-input-size']);
  if (typeof budget !== 'number') return usage(budget.error);
  // The options that each read one file (a document, not a list of them).
  const oneFile = {
    '--old-object': f['old-object'],
    '--user': f.user,
    '--namespace-object': f['namespace-object'],
    '--params': f.params,
    '--external-data': f['external-data'],
    '--image-data': f['image-data'],
  };
  const twice = stdinNamedTwice({
    '-p': f.policy,
    '-r': f.resource,
    '--target-resource': f['target-resource'],
    ...oneFile,
    '--crd': f.crd,
    '--schema': f.schema,
    '-f': f['values-file'],
    '-e': f.exception,
  });
  if (twice) return usage(twice);
  const folder = folderForFile({ ...oneFile, '--values-file': f['values-file'] });
  if (folder) return usage(folder);

  const diags: Diagnostic[] = [];
  const sources = new SourceRegistry(budget);
  const policyInputs = readCliInputs(many(f.policy), io, sources, { lists: true, nonEmpty: 'policy documents', policies: true });
  const policyDocs = policyInputs.docs;
  const valuesRead = f['values-file'] ? readSingle(f['values-file'], '--values-file', io, sources, diags) : undefined;
  const valuesError = valuesRead === undefined ? undefined : valuesProblem(valuesRead);
  if (valuesError) diags.push(diagnostic('TM2002', { phase: 'parse', message: `${f['values-file']}: ${valuesError}` }));
  const values = withSetValues(isJsonObject(valuesRead) ? valuesRead : undefined, many(f.set));
  if ('error' in values) return usage(values.error as string);
  const exceptionInputs = many(f.exception).length > 0 ? readCliInputs(many(f.exception), io, sources, { lists: true, objects: true, nonEmpty: 'exceptions' }) : undefined;
  diags.push(...(exceptionInputs?.diagnostics ?? []));
  // CEL PolicyExceptions are read with the MutatingPolicies they name; kyverno.io ones are applied per resource.
  const kyvernoExceptions = readExceptions((exceptionInputs?.docs ?? []).filter(isKyvernoException), '--exception');
  diags.push(...kyvernoExceptions.diagnostics);
  policyDocs.push(...(exceptionInputs?.docs ?? []).filter((d) => !isKyvernoException(d)));
  // Read before the policies: a MAP paramKind resolves against the kinds the CRDs serve, as on a cluster.
  const schemas = readSchemas(many(f.crd), many(f.schema), unknownKinds, io, sources, diags);
  const loaded = parsePolicyDocs(policyDocs, { mode, runtime: createRuntime({ schemas }), ...(Object.keys(values).length > 0 ? { values: values as JsonObject } : {}) });
  diags.push(...policyInputs.diagnostics, ...loaded.diagnostics);
  const targetInputs = many(f['target-resource']).length > 0 ? readCliInputs(many(f['target-resource']), io, sources, { lists: true, objects: true, nonEmpty: 'target resources' }) : undefined;
  diags.push(...(targetInputs?.diagnostics ?? []));
  // Mutate-existing targets, in the state the previous triggers left them (as in a cluster).
  const targets = new Map<SourceDoc, JsonObject>();
  const targetPatches = new Map<SourceDoc, Patch6902[]>();
  for (const d of targetInputs?.docs ?? []) {
    if (isJsonObject(d.value)) targets.set(d, d.value);
    else diags.push(notATarget(d));
  }
  // Resources are checked now and parsed again one at a time below: a cluster's dump is never held as documents.
  const namespaces: JsonObject[] = [];
  const resources = streamCliInputs(many(f.resource), io, sources, { lists: true, objects: true, nonEmpty: 'resources' }, (doc) => {
    if (isNamespace(doc.value)) namespaces.push(doc.value);
  });
  pushAll(diags, resources.diagnostics);
  const oldObject = f['old-object'] ? readSingle(f['old-object'], '--old-object', io, sources, diags, true) : undefined;
  const user = f.user ? readSingle(f.user, '--user', io, sources, diags) : undefined;
  const namespaceObject = f['namespace-object'] ? readSingle(f['namespace-object'], '--namespace-object', io, sources, diags, true) : undefined;
  const params = f.params ? readSingle(f.params, '--params', io, sources, diags) : undefined;
  let externalData: ExternalData | undefined;
  let imageData: ImageDataTable | undefined;
  if (f['image-data']) {
    const v = readSingle(f['image-data'], '--image-data', io, sources, diags);
    const table = v === undefined ? undefined : readImageData(v);
    if (typeof table === 'string') diags.push(diagnostic('TM2002', { phase: 'parse', message: `--image-data ${f['image-data']}: ${table}` }));
    else imageData = table;
  }
  if (f['external-data']) {
    const v = readSingle(f['external-data'], '--external-data', io, sources, diags);
    if (v !== undefined) {
      if (!isJsonObject(v)) diags.push(diagnostic('TM2002', { phase: 'parse', message: '--external-data must map provider names to {key: value} tables' }));
      else externalData = v as ExternalData;
    }
  }
  if (hasErrors(diags) || !resources.ok) {
    reportDiagnostics(io, diags, format, sources);
    return EXIT.badInput;
  }

  const apiServer = f['apiserver-defaults'] === true;
  const runtime = createRuntime({ schemas, ...(externalData ? { externalData } : {}), ...(imageData ? { imageData } : {}), ...(apiServer ? { defaulter: applyApiServerDefaults } : {}) });
  const operation = (f.operation as Operation | undefined) ?? (oldObject !== undefined ? 'UPDATE' : 'CREATE');
  const outputs: string[] = [];
  const patches: { object: JsonValue; patch: Patch6902[] }[] = [];
  // The printed form of each object, not the object: what stays in memory is the output's size.
  const printed: string[] = [];
  const print = (object: JsonValue): void => {
    if (output === 'yaml') printed.push(toYaml(object));
    else if (output === 'json') printed.push(toJson(object));
  };
  let denied = false;
  const progress = progressLine(io, resources.count, 'resources');
  let done = 0;
  for (const doc of resources.documents()) {
    progress.step(done++);
    // --apiserver-defaults: what admission receives is the decoded, defaulted object after the built-in
    // plugins; a stored old object carries its defaults too.
    const given = apiServer ? admittedObject(doc.value, operation) : doc.value;
    const stored = apiServer && oldObject !== undefined ? storedObject(oldObject) : oldObject;
    const request: AdmissionRequest = asAdmitted({
      object: operation === 'DELETE' ? null : given,
      oldObject: operation === 'DELETE' ? doc.value : (stored ?? null),
      operation,
      userInfo: (user as UserInfo | undefined) ?? {},
      namespaceObject: (namespaceObject as JsonObject | undefined) ?? namespaceFor(doc.value, namespaces, values as JsonObject) ?? null,
      params: params ?? null,
    });
    const exempted = withExemptions(loaded.policies, applyingExceptions(kyvernoExceptions.exceptions, request), (p) => (p.origin.dialect === 'kyverno' ? p.id : undefined));
    const result = apply(exempted, request, {
      runtime,
      // The trace is printed only under --explain; untraced runs take the generated fast paths.
      trace: f.explain === true,
      ...(f['mutation-annotations'] ? { onFixpointConverged: mutationAnnotations() } : {}),
    });
    // Without a Namespace, a denial by a namespace selector says where one is given.
    diags.push(...(request.namespaceObject === null ? withNamespaceHints(result.diagnostics) : result.diagnostics));
    if (!result.allowed) denied = true;
    if (f.explain) io.stderr(escapeControls(`# ${describeObject(doc.value)}\n${formatTrace(result.trace)}\n`));
    const after = apiServer && result.object != null ? storedObject(result.object) : (result.object ?? null);
    print(after);
    if (targets.size > 0) {
      const reached = mutateExisting(policyDocs, request, [...targets.values()], undefined, runtime);
      diags.push(...reached.diagnostics);
      for (const r of reached.results) {
        diags.push(...r.result.diagnostics);
        if (!r.result.allowed) denied = true;
        const doc = [...targets].find(([, t]) => t === r.target)?.[0];
        if (doc && isJsonObject(r.result.object)) {
          targets.set(doc, r.result.object);
          targetPatches.set(doc, [...(targetPatches.get(doc) ?? []), ...r.result.patch]);
        }
      }
      // MutatingPolicies with evaluation.mutateExisting, as `kyverno apply --target-resource` runs them.
      const existing = applyExistingMutatingPolicies(policyDocs, request, [...targets.values()], runtime);
      diags.push(...existing.diagnostics);
      if (existing.failed) denied = true;
      for (const r of existing.results) {
        const doc = [...targets].find(([, t]) => t === r.target)?.[0];
        if (doc && r.object !== r.target) {
          targets.set(doc, r.object);
          targetPatches.set(doc, [...(targetPatches.get(doc) ?? []), ...r.patch]);
        }
      }
    }
    if (output === 'patch') patches.push({ object: identity(doc.value), patch: result.patch });
    else if (output === 'diff') {
      const name = describeObject(doc.value);
      outputs.push(unifiedDiff(toYaml(doc.value), toYaml(after), `a/${name}`, `b/${name}`));
    }
  }
  for (const [doc, target] of targets) {
    if (target === doc.value) continue;
    print(target);
    if (output === 'patch') patches.push({ object: doc.value, patch: targetPatches.get(doc) ?? [] });
    else if (output === 'diff') {
      const name = describeObject(doc.value);
      outputs.push(unifiedDiff(toYaml(doc.value), toYaml(target), `a/${name}`, `b/${name}`));
    }
  }
  progress.end();
  reportDiagnostics(io, diags, format, sources);
  if (output === 'yaml') io.stdout(printed.join('---\n'));
  else if (output === 'json') io.stdout((printed.length === 1 ? printed[0]! : jsonList(printed)) + '\n');
  else if (output === 'patch') io.stdout(patchOutput(patches));
  else io.stdout(paintDiff(outputs.join(''), paletteFor(io, 'stdout')));
  return denied ? EXIT.checkFailed : EXIT.ok;
}

/**
 * `toJson({ apiVersion: 'v1', kind: 'List', items })` from the items' own `toJson` texts, byte for byte: each
 * item indented under `items`, so the objects need not be kept until the end.
 */
export function jsonList(items: readonly string[]): string {
  if (items.length === 0) return '{\n  "apiVersion": "v1",\n  "kind": "List",\n  "items": []\n}';
  const indented = items.map((text) => '    ' + text.replaceAll('\n', '\n    '));
  return `{\n  "apiVersion": "v1",\n  "kind": "List",\n  "items": [\n${indented.join(',\n')}\n  ]\n}`;
}

/** Only what names a resource in `-o patch` (patch-output.ts resourceRef), so the object itself is not kept. */
function identity(v: JsonValue): JsonValue {
  const { apiVersion, kind, namespace, name } = resourceRef(v);
  const metadata: JsonObject = {};
  if (namespace !== undefined) metadata.namespace = namespace;
  if (name !== undefined) metadata.name = name;
  return { ...(apiVersion !== undefined ? { apiVersion } : {}), ...(kind !== undefined ? { kind } : {}), metadata };
}
