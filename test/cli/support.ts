import { main } from '../../src/cli/main.js';
import type { CliIO } from '../../src/cli/io.js';
import { tempDir } from '../support/temp.js';

export interface Run {
  code: number;
  stdout: string;
  stderr: string;
}

/** Runs the CLI in-process with captured output. */
export async function run(argv: string[], stdin = ''): Promise<Run> {
  let stdout = '';
  let stderr = '';
  const io: CliIO = {
    stdout: (t) => void (stdout += t),
    stderr: (t) => void (stderr += t),
    stdin: () => stdin,
    isTTY: false,
  };
  const code = await main(argv, io);
  return { code, stdout, stderr };
}

/** A temporary folder with the given files, removed when the test file ends. */
export function tempFiles(files: Record<string, string>): string {
  return tempDir('cli', files);
}

export const POD = `apiVersion: v1
kind: Pod
metadata:
  name: web
spec:
  containers:
  - name: app
    image: nginx
`;

export const POLICY = `apiVersion: transmute.dev/v1alpha1
kind: Policy
metadata:
  name: add-team
spec:
  semantics: {order: sequential}
  match: {globs: wildcard}
  rules:
  - name: team
    body:
    - set: object.metadata.labels.team
      value: platform
`;
