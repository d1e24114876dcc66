/**
 * `transmute cel EXPR [-f object.yaml] [--old-object FILE] [--params FILE] [--namespace-object FILE]
 *  [--request FILE] [--k8s-version X]`: evaluates one CEL expression as a MAP mutation would see it and
 * prints the result as YAML. Exit codes: 0 ok, 1 evaluation error, 2 bad usage or input (a syntax or compile
 * error in the expression is bad input, as the same error in a policy is).
 */
import { parse as parseYaml, stringify } from 'yaml';
import { escapeControls, LineIndex, renderDiagnostic, SourceRegistry, type Diagnostic } from '../diagnostics/index.js';
import { InvalidUtf8Error, invalidUtf8Diagnostic, nonPrintableDiagnostic } from '../io/text-check.js';
import { compile, EXPR_FILE, fromJson, MAP_VARIABLES, toJson } from './index.js';
import { authorizers, authorizerValue } from './lib/k8s.js';

export interface CelCommandIO {
  stdout: (s: string) => void;
  stderr: (s: string) => void;
  readFile: (p: string) => string;
}

const FILE_FLAGS: Record<string, string> = {
  '-f': 'object',
  '--object': 'object',
  '--old-object': 'oldObject',
  '--params': 'params',
  '--namespace-object': 'namespaceObject',
  '--request': 'request',
};

const USAGE = `Usage: transmute cel EXPR [-f object.yaml] [--old-object FILE] [--params FILE] [--namespace-object FILE] [--request FILE] [--k8s-version X]

Evaluates one CEL expression in the environment of a MutatingAdmissionPolicy (Object and JSONPatch types,
the Kubernetes libraries of the chosen version, an allow-all authorizer, the 1,000,000 cost limit) and
prints the result as YAML.

Options:
  -f FILE                the object under admission (\`object\`)
      --old-object FILE  \`oldObject\`
      --params FILE      \`params\`
      --namespace-object FILE  \`namespaceObject\`
      --request FILE     \`request\` attributes
      --k8s-version X    the Kubernetes version whose CEL libraries are enabled (default: the newest)
  -h, --help             show this help

Exit codes: 0 evaluated, 1 the evaluation failed, 2 bad usage or input, or an expression that does not parse
or compile (errors are shown with a caret).`;

export async function runCelCommand(argv: string[], io: CelCommandIO): Promise<number> {
  // `--params=FILE` (and `-f=FILE`) as `--params FILE`, as the other commands take them.
  argv = argv.flatMap((a) => {
    const m = /^(-f|--[a-z0-9-]+)=(.*)$/s.exec(a);
    return m && (FILE_FLAGS[m[1]!] || m[1] === '--k8s-version') ? [m[1]!, m[2]!] : [a];
  });
  let expr: string | undefined;
  let k8sVersion: string | undefined;
  const files: Record<string, string> = {};
  const stdinFlags: string[] = [];
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i]!;
    if (a === '-h' || a === '--help') {
      io.stdout(USAGE + '\n');
      return 0;
    }
    if (FILE_FLAGS[a]) {
      const v = argv[++i];
      if (v === undefined) return usage(io, `${a} needs a file`);
      if (v === '-') stdinFlags.push(a);
      files[FILE_FLAGS[a]!] = v;
    } else if (a === '--k8s-version') {
      k8sVersion = argv[++i];
      if (k8sVersion === undefined) return usage(io, '--k8s-version needs a value');
    } else if (a.startsWith('-') && a !== '-') {
      return usage(io, `unknown option ${a}`);
    } else if (expr === undefined) expr = a;
    else return usage(io, `unexpected argument ${a}`);
  }
  if (expr === undefined) return usage(io, 'missing expression');
  if (stdinFlags.length > 1) return usage(io, `standard input (-) is named by ${stdinFlags.join(' and ')}; it can be read only once per run`);

  const activation: Record<string, unknown> = { object: null, oldObject: null, params: null, namespaceObject: null, request: null, variables: {} };
  for (const [name, path] of Object.entries(files)) {
    const file = path === '-' ? '<stdin>' : path;
    let text: string;
    try {
      text = io.readFile(path);
    } catch (e) {
      if (e instanceof InvalidUtf8Error) report(io, [invalidUtf8Diagnostic(file, e)], new SourceRegistry());
      else io.stderr(escapeControls(`error TM1004: cannot read ${file}: ${(e as Error).message}\n`));
      return 2;
    }
    const inputs = new SourceRegistry();
    const binary = nonPrintableDiagnostic(file, text, inputs.add(file, text));
    if (binary) {
      report(io, [binary], inputs);
      return 2;
    }
    let value: unknown;
    try {
      value = parseYaml(text, { intAsBigInt: true }) ?? null;
    } catch (e) {
      io.stderr(escapeControls(`${file}: error TM1001: ${(e as Error).message}\n`));
      return 2;
    }
    if (value !== null && (typeof value !== 'object' || Array.isArray(value))) {
      const what = Array.isArray(value) ? 'a sequence' : `a ${typeof value === 'bigint' ? 'number' : typeof value}`;
      io.stderr(`${file}:1:1: error TM1005: ${name} must be a mapping, not ${what}\n`);
      return 2;
    }
    activation[name] = fromJson(value);
  }
  activation['authorizer'] = authorizerValue(authorizers.allowAll);

  const sources = new SourceRegistry();
  sources.add(EXPR_FILE, expr);
  const program = compile(expr, { variables: MAP_VARIABLES, ...(k8sVersion ? { k8sVersion } : {}) });
  if (!program.ok) {
    report(io, program.diagnostics, sources);
    return 2;
  }
  const r = program.value.eval(activation);
  if (!r.ok) {
    report(io, [r.diagnostic], sources);
    return 1;
  }
  let json: unknown;
  try {
    json = toJson(r.value);
  } catch (e) {
    io.stderr(escapeControls(`error TM5003: ${(e as Error).message}\n`));
    return 1;
  }
  io.stdout(stringify(json));
  return 0;
}

function usage(io: CelCommandIO, message: string): number {
  io.stderr(`${escapeControls(`error TM7001: ${message}`)}\n${USAGE}\n`);
  return 2;
}

function report(io: CelCommandIO, diagnostics: Diagnostic[], sources: SourceRegistry): void {
  for (const d of diagnostics) io.stderr(renderDiagnostic(d, sources) + '\n');
}

export { LineIndex };
