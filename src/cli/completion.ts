/**
 * `transmute completion bash|zsh|fish`: a completion script generated from the commands table and each
 * command's own `--help`, which lists every flag the command parses (test/cli/completion.test.ts checks that each
 * listed flag is accepted). Nothing here is a second copy of a flag list: a flag added to a command and its help
 * is completed the next time the script is generated.
 */
import { diagnostic } from '../diagnostics/diagnostic.js';
import { EXIT, type CliIO } from './io.js';
import { reportDiagnostics } from './report.js';

export interface FlagSpec {
  short?: string;
  long?: string;
  /** The value's placeholder (`PATH`, `FORMAT`), absent for a switch. */
  value?: string;
  /** The values offered, from a help line of the form `yaml (default) | json | patch`. */
  choices?: string[];
  description: string;
}

export interface CommandSpec {
  name: string;
  summary: string;
  flags: FlagSpec[];
  /** Positional arguments (from the usage line) are files or folders: `test PATH...`, `migrate DIR`. */
  filePositionals: boolean;
  /** The positional argument is one of these words: `completion bash|zsh|fish`. */
  positionalChoices?: string[];
}

interface CommandEntry {
  summary: string;
  load(): Promise<(argv: string[], io: CliIO) => Promise<number>>;
}

export const SHELLS = ['bash', 'zsh', 'fish'] as const;
export type Shell = (typeof SHELLS)[number];

/** Placeholders whose value is a file system path. */
const PATH_VALUE = /^(PATH|FILE|DIR|OUT|POLICY|RESOURCE)S?(\.\.\.)?$/;

/** One option line of a help text: `  -o, --output FORMAT   yaml (default) | json`, `      --json   print ...`. */
const OPTION_LINE = /^ {2,}(?:(-[A-Za-z0-9])(?:,\s*|\s+(?=--)|(?=\s)))?(?:(--[a-z0-9][a-z0-9-]*))?(?:[ =]([A-Z][A-Z0-9_]*(?:\.\.\.)?))?(?: {2,}(.*))?$/;

function choicesOf(description: string): string[] | undefined {
  const parts = description.split(/\s+\|\s+/);
  if (parts.length < 2) return undefined;
  // The first choice may follow a lead-in: `the target dialect: ir | kyverno | ...`.
  const words = parts.map((p, i) => (i === 0 ? p.split(/:\s/).pop()! : p).trim().split(/[\s(:;,]/)[0]!);
  return words.every((w) => /^[A-Za-z0-9][A-Za-z0-9.-]*$/.test(w)) ? words : undefined;
}

/** The flags a help text lists, in order, each once. */
export function flagsFromHelp(help: string): FlagSpec[] {
  const flags: FlagSpec[] = [];
  const seen = new Set<string>();
  for (const line of help.split('\n')) {
    const m = OPTION_LINE.exec(line);
    if (!m || (!m[1] && !m[2])) continue;
    const [, short, long, value, rest] = m;
    const key = long ?? short!;
    if (seen.has(key)) continue;
    seen.add(key);
    const description = (rest ?? '').trim();
    const choices = value ? choicesOf(description) : undefined;
    flags.push({ ...(short ? { short } : {}), ...(long ? { long } : {}), ...(value ? { value } : {}), ...(choices ? { choices } : {}), description });
  }
  return flags;
}

/** The positional arguments of the usage line: `Usage: transmute test PATH... [options]`, `completion bash|zsh|fish`. */
function positionalsOf(help: string, name: string): Pick<CommandSpec, 'filePositionals' | 'positionalChoices'> {
  const usage = help.split('\n').find((l) => l.startsWith('Usage:')) ?? '';
  const words = usage.replace(/\[[^\]]*\]/g, ' ').split(/\s+/);
  const after = words.slice(words.indexOf(name) + 1);
  const positionals = after.filter((w, i) => !w.startsWith('-') && !after[i - 1]?.startsWith('-'));
  const choices = positionals.find((w) => /^[a-z0-9-]+(\|[a-z0-9-]+)+$/.test(w))?.split('|');
  return { filePositionals: positionals.some((w) => PATH_VALUE.test(w)), ...(choices ? { positionalChoices: choices } : {}) };
}

/** Each command's spec, read from its `--help` (this loads every command: completion is generated once). */
export async function commandSpecs(commands: Record<string, CommandEntry>): Promise<CommandSpec[]> {
  const specs: CommandSpec[] = [];
  for (const [name, command] of Object.entries(commands)) {
    let help = '';
    const capture: CliIO = { stdout: (t) => void (help += t), stderr: () => undefined, stdin: () => '', isTTY: false };
    await (await command.load())(['--help'], capture);
    specs.push({ name, summary: command.summary, flags: flagsFromHelp(help), ...positionalsOf(help, name) });
  }
  return specs;
}

const GLOBAL_FLAGS: FlagSpec[] = [
  { long: '--no-color', description: 'no colour escapes' },
  { short: '-h', long: '--help', description: 'show the help' },
  { short: '-V', long: '--version', description: "print transmute's version" },
];

function names(f: FlagSpec): string[] {
  return [f.short, f.long].filter((n): n is string => n !== undefined);
}

/** A help description cut for a completion menu: no parentheses, up to the first sentence or clause. */
function firstSentence(description: string): string {
  const short = description
    .replace(/\s*\([^)]*\)/g, '')
    .replace(/\s*\([^)]*$/, '')
    .replace(/(;|\.\s).*$/, '')
    .replace(/\.$/, '')
    .trim();
  return short.length > 72 ? `${short.slice(0, 71).trimEnd()}…` : short;
}

function bash(specs: CommandSpec[]): string {
  const commandWords = [...specs.map((s) => s.name), ...GLOBAL_FLAGS.flatMap(names)].join(' ');
  const cases = specs.map((s) => {
    const flags = [...s.flags, { long: '--no-color', description: '' }];
    const valueCases = flags
      .filter((f) => f.value)
      .map((f) => {
        const action = f.choices ? `COMPREPLY=($(compgen -W '${f.choices.join(' ')}' -- "$cur"))` : PATH_VALUE.test(f.value!) ? 'compopt -o default; COMPREPLY=()' : 'COMPREPLY=()';
        return `        ${names(f).join('|')}) ${action}; return ;;`;
      });
    const positional = s.positionalChoices
      ? `\n      [[ $cur != -* ]] && { COMPREPLY=($(compgen -W '${s.positionalChoices.join(' ')}' -- "$cur")); return; }`
      : s.filePositionals
        ? `\n      [[ $cur != -* ]] && { compopt -o default; COMPREPLY=(); return; }`
        : '';
    return `    ${s.name})
      case "$prev" in
${valueCases.join('\n')}
      esac${positional}
      COMPREPLY=($(compgen -W '${flags.flatMap(names).join(' ')}' -- "$cur"))
      ;;`;
  });
  return `# bash completion for transmute (generated by 'transmute completion bash')
# Load it with: source <(transmute completion bash)
_transmute() {
  local cur="\${COMP_WORDS[COMP_CWORD]}" prev="\${COMP_WORDS[COMP_CWORD-1]}"
  if [[ $COMP_CWORD -eq 1 ]]; then
    COMPREPLY=($(compgen -W '${commandWords}' -- "$cur"))
    return
  fi
  case "\${COMP_WORDS[1]}" in
${cases.join('\n')}
  esac
}
complete -F _transmute transmute
`;
}

/** Text inside a single-quoted zsh word, and inside an _arguments description (`[...]`, where brackets are escaped). */
function zshDescription(text: string): string {
  return firstSentence(text).replace(/'/g, `'\\''`).replace(/([[\]\\])/g, '\\$1');
}

function zsh(specs: CommandSpec[]): string {
  // _describe splits each entry at its first colon; the command names have none.
  const commandList = specs.map((s) => `    '${s.name}:${s.summary.replace(/'/g, `'\\''`)}'`).join('\n');
  const cases = specs.map((s) => {
    const args = [...s.flags, GLOBAL_FLAGS[0]!].flatMap((f) =>
      names(f).map((n) => {
        const action = !f.value ? '' : f.choices ? `:${f.value}:(${f.choices.join(' ')})` : PATH_VALUE.test(f.value) ? `:${f.value}:_files` : `:${f.value}: `;
        return `'*${n}[${zshDescription(f.description)}]${action}'`;
      }),
    );
    if (s.positionalChoices) args.push(`':argument:(${s.positionalChoices.join(' ')})'`);
    else if (s.filePositionals) args.push(`'*:path:_files'`);
    return `    ${s.name})\n      _arguments -s \\\n        ${args.join(' \\\n        ')}\n      ;;`;
  });
  return `#compdef transmute
# zsh completion for transmute (generated by 'transmute completion zsh')
# Load it with: source <(transmute completion zsh), or save it as _transmute in a folder of $fpath.
compdef _transmute transmute

_transmute() {
  local -a commands
  commands=(
${commandList}
  )
  if (( CURRENT == 2 )); then
    _describe 'command' commands
    _arguments '--no-color[no colour escapes]' '(-h --help)'{-h,--help}'[show the help]' '(-V --version)'{-V,--version}'[print the version]'
    return
  fi
  shift words
  (( CURRENT-- ))
  case "\${words[1]}" in
${cases.join('\n')}
  esac
}

if [ "$funcstack[1]" = "_transmute" ]; then
  _transmute "$@"
fi
`;
}

function fishQuote(text: string): string {
  return `'${text.replace(/\\/g, '\\\\').replace(/'/g, "\\'")}'`;
}

function fish(specs: CommandSpec[]): string {
  const lines = [
    "# fish completion for transmute (generated by 'transmute completion fish')",
    '# Load it with: transmute completion fish | source, or save it as ~/.config/fish/completions/transmute.fish',
    'complete -c transmute -f',
    ...GLOBAL_FLAGS.map((f) => `complete -c transmute${f.short ? ` -s ${f.short.slice(1)}` : ''} -l ${f.long!.slice(2)} -d ${fishQuote(f.description)}`),
  ];
  for (const s of specs) lines.push(`complete -c transmute -n __fish_use_subcommand -a ${s.name} -d ${fishQuote(s.summary)}`);
  for (const s of specs) {
    const when = `-n '__fish_seen_subcommand_from ${s.name}'`;
    if (s.positionalChoices) lines.push(`complete -c transmute ${when} -a ${fishQuote(s.positionalChoices.join(' '))}`);
    else if (s.filePositionals) lines.push(`complete -c transmute ${when} -F`);
    for (const f of s.flags) {
      const opt = [f.short ? `-s ${f.short.slice(1)}` : '', f.long ? `-l ${f.long.slice(2)}` : ''].filter(Boolean).join(' ');
      const value = !f.value ? '' : f.choices ? ` -x -a ${fishQuote(f.choices.join(' '))}` : PATH_VALUE.test(f.value) ? ' -r -F' : ' -x';
      lines.push(`complete -c transmute ${when} ${opt}${value} -d ${fishQuote(firstSentence(f.description))}`);
    }
  }
  return lines.join('\n') + '\n';
}

export function completionScript(shell: Shell, specs: CommandSpec[]): string {
  return shell === 'bash' ? bash(specs) : shell === 'zsh' ? zsh(specs) : fish(specs);
}

export const COMPLETION_HELP = `Usage: transmute completion bash|zsh|fish

Prints a completion script for the shell: commands, their flags, the values of flags that take a fixed set
(-o yaml | json | ...) and file names where a path is expected.

  bash: source <(transmute completion bash)          (or save it in /etc/bash_completion.d/transmute)
  zsh:  source <(transmute completion zsh)           (or save it as _transmute in a folder of $fpath)
  fish: transmute completion fish | source           (or save it as ~/.config/fish/completions/transmute.fish)

Options:
  -h, --help     show this help
`;

export async function runCompletion(argv: string[], io: CliIO, commands: Record<string, CommandEntry>): Promise<number> {
  if (argv.includes('-h') || argv.includes('--help')) {
    io.stdout(COMPLETION_HELP);
    return EXIT.ok;
  }
  const [shell, ...extra] = argv;
  if (shell === undefined || extra.length > 0 || !(SHELLS as readonly string[]).includes(shell)) {
    const message = shell === undefined ? 'missing shell (bash, zsh or fish)' : extra.length > 0 ? `unexpected argument ${JSON.stringify(extra[0])}` : `unknown shell ${JSON.stringify(shell)} (bash, zsh or fish)`;
    reportDiagnostics(io, [diagnostic('TM7001', { phase: 'cli', message })], 'text');
    io.stderr(`Run 'transmute completion --help' for usage.\n`);
    return EXIT.badInput;
  }
  io.stdout(completionScript(shell as Shell, await commandSpecs(commands)));
  return EXIT.ok;
}
