/**
 * `transmute conformance DIR... [--json] [--via DIALECT]`. Exit codes: 0 when no case failed or errored
 * (unsupported and skipped cases do not fail a run), 1 when one did, 2 on bad usage (unknown option, no DIR,
 * a DIR that does not exist), with a one-line error on stderr.
 */
import { existsSync } from 'node:fs';
import { resolve } from 'node:path';
import { diagnostic } from '../diagnostics/diagnostic.js';
import { renderDiagnosticLine } from '../diagnostics/render.js';
import { exitCodeFor, renderJson, renderTable } from './report.js';
import { runConformance } from './run.js';
import { createRuntime } from '../runtime/create.js';
import { readImageData, type ImageDataTable } from '../cel/lib/image-data.js';
import { readYamlTextFile } from '../io/text-check.js';
import { loadYamlText } from '../io/yaml-load.js';

export interface ConformanceIO {
  stdout: (s: string) => void;
  stderr: (s: string) => void;
}

export const CONFORMANCE_HELP = `Usage: transmute conformance DIR... [--json] [--via DIALECT] [--image-data FILE]

Runs the upstream conformance cases found under each DIR (a corpus such as ../shared/conformance/gatekeeper,
one of its source folders, or single case folders): folders with a manifest.json, rows of Gatekeeper's
go-unit-tables, results of kyverno-test.yaml suites, and structured-merge triplets.

Options:
  --json          print one JSON object: {"total","passed","failed","error","unsupported","skipped","cases":[...]}
  --via DIALECT   translate each case's policies into DIALECT, admit what was generated as a cluster would
                  (a refusal fails the case), then run the translation
  --image-data FILE  offline image metadata (as for apply --image-data) for cases whose policies read an
                  image registry (Kyverno's image CEL library, imageRegistry context entries)
  -h, --help      show this help

Each case ends passed, failed, error (the case itself is malformed or a runner crashed), unsupported (no
dialect or engine for it, or the translation reports an unsupported construct) or skipped (its manifest says it
needs a cluster or an external service).
Exit codes: 0 no case failed or errored, 1 some case failed or errored, 2 bad usage.
`;

const DIALECT_NAME = /^[a-z][a-z0-9-]*$/;

type Parsed = { kind: 'help' } | { kind: 'run'; dirs: string[]; json: boolean; via?: string; imageData?: string } | { kind: 'usage'; message: string };

export function parseConformanceArgs(argv: readonly string[]): Parsed {
  const dirs: string[] = [];
  let json = false;
  let via: string | undefined;
  let imageData: string | undefined;
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i]!;
    if (arg === '--') {
      dirs.push(...argv.slice(i + 1));
      break;
    }
    if (arg === '-h' || arg === '--help') return { kind: 'help' };
    if (arg === '--json') {
      json = true;
    } else if (arg === '--via' || arg.startsWith('--via=')) {
      const value = arg === '--via' ? argv[++i] : arg.slice('--via='.length);
      if (value === undefined || value === '') return { kind: 'usage', message: '--via needs a dialect name' };
      if (!DIALECT_NAME.test(value)) return { kind: 'usage', message: `--via: "${value}" is not a dialect name` };
      via = value;
    } else if (arg === '--image-data' || arg.startsWith('--image-data=')) {
      const value = arg === '--image-data' ? argv[++i] : arg.slice('--image-data='.length);
      if (value === undefined || value === '') return { kind: 'usage', message: '--image-data needs a file' };
      imageData = value;
    } else if (arg.startsWith('-') && arg !== '-') {
      return { kind: 'usage', message: `unknown option ${arg}` };
    } else {
      dirs.push(arg);
    }
  }
  if (dirs.length === 0) return { kind: 'usage', message: 'missing DIR (a conformance corpus, source folder or case folder)' };
  return { kind: 'run', dirs, json, ...(via !== undefined ? { via } : {}), ...(imageData !== undefined ? { imageData } : {}) };
}

export async function runConformanceCommand(argv: string[], io: ConformanceIO): Promise<number> {
  const parsed = parseConformanceArgs(argv);
  if (parsed.kind === 'help') {
    io.stdout(CONFORMANCE_HELP);
    return 0;
  }
  if (parsed.kind === 'usage') return usage(io, parsed.message);
  // Checked before running anything, so a typo costs nothing and leaves stdout empty.
  const missing = parsed.dirs.filter((d) => !existsSync(resolve(d)));
  if (missing.length > 0) return usage(io, `no such file or directory: ${missing.join(', ')}`);
  let imageData: ImageDataTable | undefined;
  if (parsed.imageData !== undefined) {
    const read = readImageDataFile(parsed.imageData);
    if (typeof read === 'string') return usage(io, `--image-data ${parsed.imageData}: ${read}`);
    imageData = read;
  }
  const run = await runConformance(parsed.dirs, { runtime: createRuntime(imageData ? { imageData } : undefined), ...(parsed.via !== undefined ? { via: parsed.via } : {}) });
  io.stdout(parsed.json ? renderJson(run.outcomes, run.admittedDocuments) : renderTable(run.outcomes));
  if (!parsed.json && run.admittedDocuments !== undefined) io.stdout(`${run.admittedDocuments} generated ${parsed.via} documents passed strict validation\n`);
  return exitCodeFor(run.outcomes);
}

function readImageDataFile(path: string): ImageDataTable | string {
  let read: ReturnType<typeof readYamlTextFile>;
  try {
    read = readYamlTextFile(resolve(path), path);
  } catch (e) {
    return (e as Error).message;
  }
  if ('diagnostic' in read) return read.diagnostic.message;
  const docs = loadYamlText(path, read.text);
  if (!docs.ok) return docs.diagnostics[0]?.message ?? 'not YAML';
  if (docs.value.length !== 1) return `expected exactly one YAML document, found ${docs.value.length}`;
  return readImageData(docs.value[0]!.value);
}

function usage(io: ConformanceIO, message: string): number {
  io.stderr(`${renderDiagnosticLine(diagnostic('TM7001', { phase: 'cli', message: `conformance: ${message}` }))}\n`);
  return 2;
}
