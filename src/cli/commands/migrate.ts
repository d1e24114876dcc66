import { diagnostic } from '../../diagnostics/diagnostic.js';
import { VALIDATE_HELP, validateMode } from '../validate-flag.js';
import { dialectByName } from '../../dialects/registry.js';
import { migrate, MIGRATE_TARGETS, renderJson, renderText, reportExit, type MigrateTarget } from '../../migrate/index.js';
import { MARKER } from '../../migrate/output.js';
import { MAX_SAMPLES_PER_POLICY } from '../../migrate/prove-samples.js';
import { startCommand } from '../command-start.js';
import { EXIT, type CliIO } from '../io.js';
import { reportDiagnostics } from '../report.js';

function versions(to: MigrateTarget): string {
  const v = dialectByName(to)?.apiVersions ?? [];
  return `${v.join(', ')} (default ${v[0] ?? '-'})`;
}

export function migrateHelp(): string {
  return `Usage: transmute migrate DIR --out-dir OUT [--to kyverno-mpol|map] [--api-version V] [--json]

Migrates a policy library and its Kyverno test suites together, and proves each migration by running both.

Reads every file under DIR (hidden folders such as .kyverno-test/ included, .git excluded): Kyverno
ClusterPolicy and Policy documents and Gatekeeper mutators are the sources; every kyverno-test.yaml is a suite.
Each source's mutate rules are translated as 'transmute translate --unsupported error' would (a Kyverno policy
alone; the Gatekeeper mutators of one file together, as one fix-point) and written to OUT, which mirrors DIR:
 - a policy file keeps its path; each migrated source is replaced in place by its MutatingPolicy (or
   MutatingAdmissionPolicy and binding), followed by the source policy with only its other rules (validate,
   generate, verifyImages) when it has any, so that OUT is a complete library; a source that is not migrated
   is written as it was; a file with nothing migrated is copied byte for byte;
 - each suite is rewritten: its paths are kept (they reach the migrated files), and each result entry about
   a migrated policy's mutate rules names the migrated policy and is marked as the Kyverno CLI reads CEL
   policies: 'isMutatingPolicy: true' (or 'isMutatingAdmissionPolicy: true'), and no 'rule'. A CEL policy
   answers once per resource, so entries about several rules of one policy on the same resources become one,
   expecting the policy's result (error, else fail, else pass, else skip). Entries about other rules, other
   policies, or a rule the policy does not have, are kept as written. Suites are written with sorted keys;
 - every other file (resources, patched resources, values...) is copied unchanged.
No partial policy is ever written: a policy any of whose mutate rules cannot be translated (including mutate
existing rules, mutate.targets) is 'not migrated' and stays as it was, with every refused construct listed.

Then each result entry about a migrated policy's mutate rules runs in the original suite and in the migrated
one, with the runner of 'transmute test' (entries about validate and other rules are not part of the proof; a
proof covers what the suite's rows cover, nothing more). Every chainsaw-test.yaml that applies the file of a
migrated policy is a row too: 'transmute test' replays it from DIR and, copied, from OUT, where that file holds
the migration; a test the replay does not run, or that fails on the source, proves nothing and gives no row.
A migrated policy none of these rows test is compared on the library's example objects instead: every
Kubernetes object in the folder of its file and below (Gatekeeper's samples/<case>/example.yaml, a chainsaw
test's manifests; at most ${MAX_SAMPLES_PER_POLICY}) is admitted as a CREATE through the source and through the
migration, and the two results must be the same object. An object kube-apiserver would not decode as its kind, or
that the source cannot admit offline, is not run; objects the source leaves all unchanged prove nothing.
The report, per source policy:
  migrated and proven        every row of both suites passes (or every example object comes out the same)
  migrated with differences  the rows that do not, with both results and the diff of the patched resource
  migrated, untested         no suite row, replayed chainsaw test or changed example object tests the policy:
                             nothing proves it
  not migrated               each refused construct: file:line:col, class (cannot: the target cannot express
                             it; yet: transmute does not translate it yet; invalid: the source does not parse)
  left as is                 a policy without mutate rules, or already a CEL policy; rules that are not
                             mutations are listed under their policy
then a summary line with the counts.

OUT must not be DIR, be inside DIR or contain it. It must not exist, or be empty, or be an earlier output
of migrate, which is replaced (it holds ${MARKER}, the JSON report of the run that wrote it).
OUT is written in a temporary folder beside it, checked there, and renamed into place: never half-written.
Suite paths that lead outside DIR are rewritten to reach the same files from OUT (and reported).

Options:
      --out-dir OUT          where the migrated library goes (required)
      --to DIALECT           kyverno-mpol (default): Kyverno MutatingPolicy; map: MutatingAdmissionPolicy
      --api-version V        the API version written; kyverno-mpol: ${versions('kyverno-mpol')};
                             map: ${versions('map')}
${VALIDATE_HELP}
      --json                 print the report as JSON: {dir, outDir, to, apiVersion?, summary, policies[],
                             suites[], warnings[]}
  -h, --help                 show this help

Exit codes: 0 every mutate policy was migrated and proven, 1 otherwise (or DIR holds no mutate policy),
2 bad usage or input (nothing is written).
`;
}

interface Flags {
  'out-dir'?: string;
  to?: string;
  'api-version'?: string;
  validate?: string;
  json?: boolean;
  help?: boolean;
}

export async function runMigrate(argv: string[], io: CliIO): Promise<number> {
  const start = startCommand<Flags>(argv, io, {
    help: migrateHelp,
    positionals: true,
    options: { 'out-dir': { type: 'string' }, to: { type: 'string' }, 'api-version': { type: 'string' }, validate: { type: 'string' }, json: { type: 'boolean' } },
  });
  if ('exit' in start) return start.exit;
  const { flags: f, positionals, usage } = start;
  if (positionals.length !== 1) return usage('give exactly one DIR, the library to migrate');
  if (!f['out-dir']) return usage('--out-dir is required');
  const to = (f.to ?? 'kyverno-mpol') as MigrateTarget;
  if (!MIGRATE_TARGETS.includes(to)) return usage(`--to must be ${MIGRATE_TARGETS.join(' or ')}`);
  const served = dialectByName(to)?.apiVersions ?? [];
  const apiVersion = f['api-version'];
  if (apiVersion !== undefined && !served.includes(apiVersion)) return usage(`--api-version: ${to} is served at ${served.join(', ')}, not ${JSON.stringify(apiVersion)}`);

  const validate = validateMode(f.validate);
  if (typeof validate !== 'string') return usage(validate.error);

  const run = migrate({ dir: positionals[0]!, outDir: f['out-dir'], to, validate, ...(apiVersion ? { apiVersion } : {}) });
  if (!run.ok) {
    reportDiagnostics(io, [diagnostic('TM7001', { phase: 'cli', message: run.error })], 'text');
    return EXIT.badInput;
  }
  io.stdout(f.json ? renderJson(run.report) : renderText(run.report));
  return reportExit(run.report);
}
