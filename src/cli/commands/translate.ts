import { dialectByName, dialects } from '../../dialects/registry.js';
import { writeFileAtomic } from '../../io/write.js';
import { toJson } from '../../io/yaml-dump.js';
import { isJsonObject, type JsonObject } from '../../ir/json.js';
import type { Diagnostic } from '../../diagnostics/diagnostic.js';
import { writeOutDir } from '../out-dir.js';
import { admitted, hasErrors, translateDocuments } from '../../pipeline.js';
import { MAX_INPUT_SIZE_HELP, READER_OPTIONS, type ReaderFlags } from '../inputs.js';
import { readPolicyArgs } from '../policy-inputs.js';
import { many } from '../args.js';
import { startCommand } from '../command-start.js';
import { EXIT, type CliIO } from '../io.js';
import { reportDiagnostics } from '../report.js';
import { VALIDATE_HELP } from '../validate-flag.js';
import { DNS1123_SUBDOMAIN } from '../../k8s/names.js';
import { renamePolicy } from '../../dialects/rename.js';

function apiVersionsHelp(): string {
  return dialects()
    .filter((d) => d.apiVersions)
    .map((d) => `${d.name} ${d.apiVersions!.join(', ')} (default ${d.apiVersions![0]})`)
    .join('; ');
}

export function translateHelp(): string {
  return `Usage: transmute translate -p POLICY... --to DIALECT [-o yaml|json] [--output-file FILE | --out-dir DIR] [options]

Translates policies into another dialect (${dialects().map((d) => d.name).join(', ')}). What the target cannot
express is reported (TM4001 unsupported, TM4002/TM4003 lossy) with the source position of the construct;
nothing is emitted silently wrong.

Every refusal says whether the target cannot express the construct ("cannot") or transmute does not
translate it yet ("yet"); with --diagnostics json the class is the diagnostic's "unsupported" field.

Options:
  -p, --policy PATH          policy file, directory or -; repeatable
      --to DIALECT           the target dialect: ${dialects().map((d) => d.name).join(' | ')}
      --api-version V        the target API version: ${apiVersionsHelp()}
  -o, --output FORMAT        yaml (default) | json (one object, or a v1 List of several)
      --output-file FILE     write the output there (atomically) instead of stdout (- is stdout)
      --out-dir DIR          write each translated policy to DIR/NAME.yaml (or .json), a
                             MutatingAdmissionPolicy with its binding; DIR is created when missing
      --unsupported LEVEL    error (default): refuse to emit anything if any construct cannot be translated;
                             warn: emit every rule that can be translated, report each one left out;
                             ignore: the same without the reports. An output that refusals left empty is
                             an error (TM4005); one the policies leave empty is a warning.
      --name NAME            the name of the translated policy (when one policy is emitted); by default a
                             policy is named after its source policy or mutator
      --mutation-annotations the Gatekeeper mutators run with Gatekeeper's --mutation-annotations: write its
                             gatekeeper.sh/mutation-id (request.uid) and gatekeeper.sh/mutations annotations too
                             (the mutators' generation taken as 1); MAP cannot (its CEL has no request uid)
${VALIDATE_HELP}
${MAX_INPUT_SIZE_HELP}
      --diagnostics FORMAT   text (default) | json
  -h, --help                 show this help

Every document written is first checked as the cluster would admit it (the same checks as --validate
strict); one the cluster would refuse is a transmute bug, reported as TM4006 with nothing written.

Exit codes: 0 translated, 1 something could not be translated (under --unsupported error) or nothing could,
2 bad usage or input.
`;
}

interface Flags extends ReaderFlags {
  policy?: string[];
  to?: string;
  'api-version'?: string;
  'mutation-annotations'?: boolean;
  output?: string;
  'output-file'?: string;
  'out-dir'?: string;
  unsupported?: string;
  name?: string;
}

export async function runTranslate(argv: string[], io: CliIO): Promise<number> {
  const start = startCommand<Flags>(argv, io, {
    help: translateHelp,
    options: {
      policy: { type: 'string', short: 'p', multiple: true },
      to: { type: 'string' },
      'api-version': { type: 'string' },
      'mutation-annotations': { type: 'boolean' },
      output: { type: 'string', short: 'o' },
      'output-file': { type: 'string' },
      'out-dir': { type: 'string' },
      unsupported: { type: 'string' },
      name: { type: 'string' },
      ...READER_OPTIONS,
    },
  });
  if ('exit' in start) return start.exit;
  const { flags: f, format, usage } = start;
  if (many(f.policy).length === 0) return usage('at least one policy is required (-p POLICY)');
  const output = f.output ?? 'yaml';
  if (output !== 'yaml' && output !== 'json') {
    // `-o FILE` wrote a file before -o meant the format, as it does in every other command.
    const hint = /[./\\]/.test(output) || output === '-' ? `; to write a file use --output-file ${output}` : '';
    return usage(`-o must be yaml or json, not ${JSON.stringify(output)}${hint}`);
  }
  if (f['output-file'] !== undefined && f['out-dir'] !== undefined) return usage('--output-file and --out-dir cannot be given together');
  if (!f.to) return usage(`--to is required (one of ${dialects().map((d) => d.name).join(', ')})`);
  const level = f.unsupported ?? 'error';
  if (level !== 'error' && level !== 'warn' && level !== 'ignore') return usage('--unsupported must be error, warn or ignore');

  const target = dialectByName(f.to);
  const apiVersion = f['api-version'];
  if (apiVersion !== undefined && target) {
    if (!target.apiVersions) return usage(`--api-version: ${target.name} is written in one API version only`);
    if (!target.apiVersions.includes(apiVersion)) return usage(`--api-version: ${target.name} is served at ${target.apiVersions.join(', ')}, not ${JSON.stringify(apiVersion)}`);
  }

  if (f.name !== undefined && !DNS1123_SUBDOMAIN.test(f.name)) return usage(`--name ${JSON.stringify(f.name)} is not a valid object name (a lowercase RFC 1123 subdomain)`);
  const loaded = readPolicyArgs(f, io);
  if ('usage' in loaded) return usage(loaded.usage);
  if (hasErrors(loaded.diagnostics)) {
    reportDiagnostics(io, loaded.diagnostics, format, loaded.sources);
    return EXIT.badInput;
  }
  const settings = { ...(apiVersion !== undefined ? { apiVersion } : {}), ...(f['mutation-annotations'] ? { mutationAnnotations: { generation: 1 } } : {}) };
  let result = translateDocuments(loaded.docs, loaded.policies, f.to, level, settings);
  if (f.name !== undefined && result.documents.length > 0) {
    const renamed = renamePolicy(result, f.name);
    if ('error' in renamed) return usage(renamed.error);
    // A name can break an engine's own limits (Kyverno's 63 characters): the output is admitted again.
    result = admitted(renamed, f.to);
  }
  const diags = [...loaded.diagnostics, ...result.diagnostics];
  if (result.diagnostics.some((d) => d.code === 'TM4004')) {
    reportDiagnostics(io, diags, format, loaded.sources);
    return EXIT.badInput;
  }
  if (hasErrors(result.diagnostics)) {
    reportDiagnostics(io, diags, format, loaded.sources);
    return EXIT.checkFailed;
  }
  const documents = result.documents.filter(isJsonObject);
  const outputFile = f['output-file'];
  let written: Diagnostic[] = [];
  if (f['out-dir'] !== undefined) written = writeOutDir(f['out-dir'], documents, output);
  else if (outputFile !== undefined && outputFile !== '-') written = writeFileAtomic(outputFile, rendered(result.text, documents, output)).diagnostics;
  // One report per run (with --diagnostics json, one array): a write's failure joins the others.
  reportDiagnostics(io, [...diags, ...written], format, loaded.sources);
  if (hasErrors(written)) return EXIT.badInput;
  if (f['out-dir'] === undefined && (outputFile === undefined || outputFile === '-')) io.stdout(rendered(result.text, documents, output));
  return EXIT.ok;
}

/** The translation as printed: the YAML documents, or JSON (one object, or a v1 List as kubectl prints several). */
function rendered(yaml: string, documents: JsonObject[], output: 'yaml' | 'json'): string {
  if (output === 'yaml') return yaml;
  if (documents.length === 0) return '';
  return toJson(documents.length === 1 ? documents[0] : { apiVersion: 'v1', kind: 'List', items: documents }) + '\n';
}
