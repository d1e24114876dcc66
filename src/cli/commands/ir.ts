import { printPolicies } from '../../ir/print.js';
import { optimize } from '../../optimizer/index.js';
import { hasErrors } from '../../pipeline.js';
import { MAX_INPUT_SIZE_HELP, READER_OPTIONS, type ReaderFlags } from '../inputs.js';
import { readPolicyArgs } from '../policy-inputs.js';
import { many } from '../args.js';
import { startCommand } from '../command-start.js';
import { EXIT, type CliIO } from '../io.js';
import { reportDiagnostics } from '../report.js';
import { VALIDATE_HELP } from '../validate-flag.js';

export const IR_HELP = `Usage: transmute ir -p POLICY... [options]

Prints the policies' intermediate representation in its text form, after the optimizer passes.

Options:
  -p, --policy PATH          policy file, directory or -; repeatable
      --no-optimize          print the IR as parsed, before the optimizer
      --origins              end each line with the @line:col of the construct it came from
${VALIDATE_HELP}
${MAX_INPUT_SIZE_HELP}
      --diagnostics FORMAT   text (default) | json
  -h, --help                 show this help
`;

interface Flags extends ReaderFlags {
  policy?: string[];
  'no-optimize'?: boolean;
  origins?: boolean;
}

export async function runIr(argv: string[], io: CliIO): Promise<number> {
  const start = startCommand<Flags>(argv, io, {
    help: IR_HELP,
    options: {
      policy: { type: 'string', short: 'p', multiple: true },
      'no-optimize': { type: 'boolean' },
      origins: { type: 'boolean' },
      ...READER_OPTIONS,
    },
  });
  if ('exit' in start) return start.exit;
  const { flags: f, format, usage } = start;
  if (many(f.policy).length === 0) return usage('at least one policy is required (-p POLICY)');
  const read = readPolicyArgs(f, io);
  if ('usage' in read) return usage(read.usage);
  reportDiagnostics(io, read.diagnostics, format, read.sources);
  if (hasErrors(read.diagnostics)) return EXIT.badInput;
  const loaded = read;
  const policies = f['no-optimize'] ? loaded.policies : optimize(loaded.policies);
  io.stdout(printPolicies(policies, { origins: Boolean(f.origins) }));
  return EXIT.ok;
}
