/**
 * `transmute completion bash|zsh|fish`: generated from each command's --help, which must list only flags the
 * command accepts; the bash script is loaded into bash and asked for completions as bash would ask.
 */
import { spawnSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { commandSpecs, flagsFromHelp } from '../../src/cli/completion.js';
import { COMMANDS } from '../../src/cli/main.js';
import { run } from './support.js';
import { tempDir } from '../support/temp.js';

function hasShell(shell: string): boolean {
  return spawnSync(shell, ['-c', 'exit 0']).status === 0;
}

describe('flags from a help text', () => {
  it('reads short and long names, the value, and a fixed set of values', () => {
    const flags = flagsFromHelp(`Usage: transmute x [options]

Options:
  -p, --policy PATH          policy file, directory or -; repeatable
  -o, --output FORMAT        yaml (default) | json | patch (RFC 6902)
      --explain              print the trace
      --operation OP         CREATE (default; UPDATE when --old-object is given) | UPDATE | DELETE
      --to DIALECT           the target dialect: ir | kyverno | map
  -f FILE                    the object
  --json                     print JSON
`);
    expect(flags).toEqual([
      { short: '-p', long: '--policy', value: 'PATH', description: 'policy file, directory or -; repeatable' },
      { short: '-o', long: '--output', value: 'FORMAT', choices: ['yaml', 'json', 'patch'], description: 'yaml (default) | json | patch (RFC 6902)' },
      { long: '--explain', description: 'print the trace' },
      { long: '--operation', value: 'OP', choices: ['CREATE', 'UPDATE', 'DELETE'], description: 'CREATE (default; UPDATE when --old-object is given) | UPDATE | DELETE' },
      { long: '--to', value: 'DIALECT', choices: ['ir', 'kyverno', 'map'], description: 'the target dialect: ir | kyverno | map' },
      { short: '-f', value: 'FILE', description: 'the object' },
      { long: '--json', description: 'print JSON' },
    ]);
  });
});

describe('every flag a help text lists is accepted by its command', () => {
  it('each command, each flag (with a value where it takes one), then --help', async () => {
    const specs = await commandSpecs(COMMANDS);
    expect(specs.map((s) => s.name)).toEqual(Object.keys(COMMANDS));
    for (const spec of specs) {
      expect(spec.flags.length, spec.name).toBeGreaterThan(0);
      for (const flag of spec.flags) {
        const name = flag.long ?? flag.short!;
        const argv = [spec.name, name, ...(flag.value ? [flag.choices?.[0] ?? 'x'] : []), '--help'];
        const r = await run(argv);
        expect(r.code, `${argv.join(' ')}: ${r.stderr}`).toBe(0);
      }
    }
  });
});

describe('transmute completion', () => {
  it('refuses an unknown shell and a missing one', async () => {
    expect((await run(['completion'])).code).toBe(2);
    const r = await run(['completion', 'tcsh']);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('unknown shell "tcsh"');
  });

  it('names every command and flag in each shell', async () => {
    for (const shell of ['bash', 'zsh', 'fish']) {
      const r = await run(['completion', shell]);
      expect(r.code, shell).toBe(0);
      expect(r.stdout.endsWith('\n'), shell).toBe(true);
      for (const name of Object.keys(COMMANDS)) expect(r.stdout, `${shell} ${name}`).toContain(name);
      expect(r.stdout, shell).toContain('output-file');
      expect(r.stdout, shell).toContain('no-color');
    }
  });

  it('bash: the script loads, and completes commands, flags and the values of -o', async () => {
    if (!hasShell('bash')) {
      console.warn('SKIPPED: bash is not installed; the bash completion script was not loaded');
      return;
    }
    const dir = tempDir('completion');
    const script = join(dir, 'transmute.bash');
    writeFileSync(script, (await run(['completion', 'bash'])).stdout);
    const complete = (words: string[]): string[] => {
      const body = `source ${JSON.stringify(script)}
COMP_WORDS=(${words.map((w) => JSON.stringify(w)).join(' ')}); COMP_CWORD=${words.length - 1}
_transmute 2>/dev/null
printf '%s\\n' "\${COMPREPLY[@]}"`;
      const r = spawnSync('bash', ['-c', body], { encoding: 'utf8' });
      expect(r.status, r.stderr).toBe(0);
      return r.stdout.split('\n').filter(Boolean);
    };
    expect(complete(['transmute', 'tr'])).toEqual(['translate']);
    expect(complete(['transmute', 'apply', '-o', ''])).toEqual(['yaml', 'json', 'patch', 'diff']);
    expect(complete(['transmute', 'translate', '--to', 'kyverno'])).toEqual(expect.arrayContaining(['kyverno', 'kyverno-mpol']));
    expect(complete(['transmute', 'translate', '--out'])).toEqual(['--output', '--output-file', '--out-dir']);
    expect(complete(['transmute', 'completion', ''])).toEqual(['bash', 'zsh', 'fish']);
    expect(complete(['transmute', 'test', '--'])).toContain('--json');
  });

  it('zsh and fish: the scripts parse (when the shell is installed)', async () => {
    for (const shell of ['zsh', 'fish']) {
      if (!hasShell(shell)) {
        console.warn(`SKIPPED: ${shell} is not installed; its completion script was checked for content only`);
        continue;
      }
      const dir = tempDir('completion');
      const script = join(dir, `transmute.${shell}`);
      writeFileSync(script, (await run(['completion', shell])).stdout);
      const r = spawnSync(shell, ['-n', script], { encoding: 'utf8' });
      expect(r.status, `${shell}: ${r.stderr}`).toBe(0);
    }
  });
});
