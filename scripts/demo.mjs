#!/usr/bin/env node
/**
 * `npm run demo`: the bundled examples, each step under a heading naming what it shows and the command that
 * shows it. Runs the built CLI (bin/transmute.js, built by `npm ci`); stops at the first step that fails.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const bin = join(root, 'bin', 'transmute.js');
const POD = 'examples/resources/pod.yaml';
const MUTATORS = 'examples/gatekeeper/mutators.yaml';
const bold = process.stdout.isTTY && !process.env.NO_COLOR ? (t) => `\x1b[1m${t}\x1b[22m` : (t) => t;

/**
 * Runs transmute with `args`, its output straight to ours (so warnings stay next to what they are about);
 * `input` is another step's arguments whose output is piped in.
 */
function transmute(args, input) {
  const piped = input ? spawnSync(process.execPath, [bin, ...input], { cwd: root, encoding: 'utf8', stdio: ['ignore', 'pipe', 'inherit'] }) : undefined;
  if (piped && piped.status !== 0) return piped.status ?? 2;
  const r = spawnSync(process.execPath, [bin, ...args], { cwd: root, input: piped?.stdout, stdio: [piped ? 'pipe' : 'inherit', 'inherit', 'inherit'] });
  return r.status ?? 2;
}

const out = mkdtempSync(join(tmpdir(), 'transmute-demo-'));
const translateToKyverno = ['translate', '-p', MUTATORS, '--to', 'kyverno'];
const translateToMap = ['translate', '-p', MUTATORS, '--to', 'map'];
const steps = [
  ['An IR policy applied to a Pod, as a diff', ['apply', '-p', 'examples/ir/harden-pods.yaml', '-r', POD, '-o', 'diff']],
  ['The same policy as IR', ['ir', '-p', 'examples/ir/harden-pods.yaml']],
  ['Gatekeeper mutators applied to the same Pod', ['apply', '-p', MUTATORS, '-r', POD, '-o', 'diff']],
  ['The mutators as IR', ['ir', '-p', MUTATORS]],
  ['The mutators translated to a Kyverno ClusterPolicy', translateToKyverno],
  ['The ClusterPolicy applied to the Pod: the same result', ['apply', '-p', '-', '-r', POD, '-o', 'diff'], translateToKyverno],
  ['The mutators translated to a MutatingAdmissionPolicy and its binding', translateToMap],
  ['The MutatingAdmissionPolicy applied to the Pod: the same result', ['apply', '-p', '-', '-r', POD, '-o', 'diff'], translateToMap],
  ['A Deployment expanded into the Pod it creates, mutated as Gatekeeper mutates generated Pods (as gator expand)', ['expand', 'examples/expansion']],
  ['A ClusterPolicy library translated to Kyverno MutatingPolicy', ['translate', '-p', 'examples/library/pods/policies.yaml', '--to', 'kyverno-mpol']],
  ['The library migrated with its kyverno-test.yaml suite, every policy proven', ['migrate', 'examples/library', '--out-dir', join(out, 'out')]],
];

let status = 0;
try {
  for (const [i, [title, args, input]] of steps.entries()) {
    const shown = `transmute ${args.join(' ').replace(out, '$TMP')}`;
    process.stdout.write(`${i === 0 ? '' : '\n'}${bold(`==> ${i + 1}/${steps.length} ${title}`)}\n${input ? `$ transmute ${input.join(' ')} | ${shown}` : `$ ${shown}`}\n\n`);
    status = transmute(args, input);
    if (status !== 0) break;
  }
} finally {
  rmSync(out, { recursive: true, force: true });
}
process.exitCode = status;
