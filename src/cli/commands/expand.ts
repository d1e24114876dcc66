import { writeFileSync } from 'node:fs';
import { diagnostic, type Diagnostic } from '../../diagnostics/diagnostic.js';
import { SourceRegistry } from '../../diagnostics/render.js';
import { gatekeeperDialect } from '../../dialects/gatekeeper/index.js';
import { gatorExpand } from '../../dialects/gatekeeper/expansion/gator.js';
import { formatResultants, type GatorFormat } from '../../dialects/gatekeeper/expansion/gator-output.js';
import { dialectFor } from '../../dialects/registry.js';
import { parsePolicyDocs } from '../../pipeline.js';
import { many } from '../args.js';
import { startCommand } from '../command-start.js';
import { MAX_INPUT_SIZE_HELP, maxInputBytes, READER_OPTIONS, readCliInputs, type ReaderFlags, stdinNamedTwice } from '../inputs.js';
import { EXIT, type CliIO } from '../io.js';
import { reportDiagnostics } from '../report.js';
import { VALIDATE_HELP, validateMode } from '../validate-flag.js';

export const EXPAND_HELP = `Usage: transmute expand -f PATH... [options]

Expands workload resources into the resources they create, as Gatekeeper's ExpansionTemplates do and as
'gator expand' prints them. The inputs (files, folders, - for stdin) mix generator resources (Deployments,
CronJobs, custom resources), ExpansionTemplates (expansion.gatekeeper.sh v1alpha1, v1beta1), Gatekeeper
mutators and Namespaces. Every resource is first mutated as an Original object, then expanded by each
ExpansionTemplate whose applyTo names its kind; each resultant is named <generator>-<kind>, owned by its
generator, mutated as a Generated object with no admission operation, and expanded again when a template
applies to it. Only the resultants are printed, sorted by name, apiVersion and kind, descending.

A resource in a namespace other than default needs its Namespace among the inputs when a mutator has a
namespaceSelector. Kyverno policies, MutatingPolicies and MutatingAdmissionPolicies among the inputs run too:
on each resource and each resultant, as the CREATE request the cluster would send them.

Options:
  -f, --filename PATH        a file, folder or - (stdin); repeatable; PATH may also be given without -f
  -o, --output FORMAT        yaml (default) | json  (gator's --format is accepted too)
      --outputfile FILE      write the resultants to FILE instead of standard output
${VALIDATE_HELP}
${MAX_INPUT_SIZE_HELP}
      --diagnostics FORMAT   text (default) | json
  -h, --help                 show this help

Exit codes: 0 expanded (also when nothing matched), 1 a resource could not be mutated or expanded,
2 bad usage or bad input (a refused ExpansionTemplate or mutator, templates forming a cycle).
`;

interface ExpandFlags extends ReaderFlags {
  filename?: string[];
  output?: string;
  format?: string;
  outputfile?: string;
}

export async function runExpand(argv: string[], io: CliIO): Promise<number> {
  const start = startCommand<ExpandFlags>(argv, io, {
    name: 'expand',
    help: EXPAND_HELP,
    positionals: true,
    options: {
      filename: { type: 'string', short: 'f', multiple: true },
      output: { type: 'string', short: 'o' },
      format: { type: 'string' },
      outputfile: { type: 'string' },
      ...READER_OPTIONS,
    },
  });
  if ('exit' in start) return start.exit;
  const { flags: f, format, usage } = start;
  if (f.output !== undefined && f.format !== undefined && f.output !== f.format) return usage('-o and --format disagree; give one of them');
  const output = f.output ?? f.format ?? 'yaml';
  if (output !== 'yaml' && output !== 'json') return usage(`-o must be yaml or json, not "${output}"`);
  const mode = validateMode(f.validate);
  if (typeof mode !== 'string') return usage(mode.error);
  const paths = [...many(f.filename), ...start.positionals];
  if (paths.length === 0) return usage('at least one input is required (-f PATH)');
  const budget = maxInputBytes(f['max-input-size']);
  if (typeof budget !== 'number') return usage(budget.error);
  const twice = stdinNamedTwice({ '-f': paths });
  if (twice) return usage(twice);

  const sources = new SourceRegistry(budget);
  const inputs = readCliInputs(paths, io, sources, { lists: true, objects: true, nonEmpty: 'documents' });
  if (!inputs.ok) {
    reportDiagnostics(io, inputs.diagnostics, format, sources);
    return EXIT.badInput;
  }
  const expansion = gatorExpand(inputs.docs, {
    dialect: gatekeeperDialect,
    admission: { mode },
    parsePolicies: (docs) => parsePolicyDocs(docs, { mode }),
    isPolicy: (doc) => dialectFor(doc) !== undefined,
  });
  const diags: Diagnostic[] = [...inputs.diagnostics, ...expansion.diagnostics];
  if (expansion.failure) {
    reportDiagnostics(io, diags, format, sources);
    return expansion.failure === 'input' ? EXIT.badInput : EXIT.checkFailed;
  }
  const text = formatResultants(
    expansion.resultants.map((r) => r.object),
    output as GatorFormat,
  );
  if (f.outputfile !== undefined) {
    try {
      writeFileSync(f.outputfile, text);
    } catch (e) {
      diags.push(diagnostic('TM1004', { phase: 'io', message: `cannot write ${f.outputfile}: ${(e as Error).message}` }));
      reportDiagnostics(io, diags, format, sources);
      return EXIT.badInput;
    }
  } else {
    io.stdout(text);
  }
  reportDiagnostics(io, diags, format, sources);
  return EXIT.ok;
}
