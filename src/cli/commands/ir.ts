import { diagnostic } from '../../diagnostics/diagnostic.js';
import { printPolicies } from '../../ir/print.js';
import { optimize } from '../../optimizer/index.js';
import { hasErrors, loadPolicies } from '../../pipeline.js';
import { many, parse } from '../args.js';
import { EXIT, type CliIO } from '../io.js';
import { diagnosticsFormat, reportDiagnostics } from '../report.js';
import { VALIDATE_HELP, validateMode } from '../validate-flag.js';

export const IR_HELP = `Usage: transmute ir -p POLICY... [options]

Prints the policies' intermediate representation in its text form, after the optimizer passes.

Options:
  -p, --policy PATH          policy file, directory or -; repeatable
      --no-optimize          print the IR as parsed, before the optimizer
      --origins              end each line with the @line:col of the construct it came from
${VALIDATE_HELP}
      --diagnostics FORMAT   text (default) | json
  -h, --help                 show this help
`;

interface Flags {
  policy?: string[];
  'no-optimize'?: boolean;
  origins?: boolean;
  validate?: string;
  diagnostics?: string;
  help?: boolean;
}

export async function runIr(argv: string[], io: CliIO): Promise<number> {
  const args = parse<Flags>(argv, {
    policy: { type: 'string', short: 'p', multiple: true },
    'no-optimize': { type: 'boolean' },
    origins: { type: 'boolean' },
    validate: { type: 'string' },
    diagnostics: { type: 'string' },
    help: { type: 'boolean', short: 'h' },
  });
  if (!args.ok) {
    reportDiagnostics(io, [args.diagnostic], 'text');
    return EXIT.badInput;
  }
  const f = args.values;
  if (f.help) {
    io.stdout(IR_HELP);
    return EXIT.ok;
  }
  const format = diagnosticsFormat(f.diagnostics) ?? 'text';
  if (many(f.policy).length === 0) {
    reportDiagnostics(io, [diagnostic('TM7001', { phase: 'cli', message: 'at least one policy is required (-p POLICY)' })], format);
    return EXIT.badInput;
  }
  const mode = validateMode(f.validate);
  if (typeof mode !== 'string') {
    reportDiagnostics(io, [diagnostic('TM7001', { phase: 'cli', message: mode.error })], format);
    return EXIT.badInput;
  }
  const loaded = loadPolicies(many(f.policy), io.stdin, { mode });
  reportDiagnostics(io, loaded.diagnostics, format, loaded.sources);
  if (hasErrors(loaded.diagnostics)) return EXIT.badInput;
  const policies = f['no-optimize'] ? loaded.policies : optimize(loaded.policies);
  io.stdout(printPolicies(policies, { origins: Boolean(f.origins) }));
  return EXIT.ok;
}
