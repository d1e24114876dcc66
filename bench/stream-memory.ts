/**
 * Applies the 20-op policy to 100,000 Pods streamed from one multi-document YAML file and reports the peak
 * resident memory. Run by `npm run bench` in a child process so the figure is this job's alone.
 */
import { createWriteStream, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { once } from 'node:events';
import { apply } from '../src/interpreter/index.js';
import { streamYamlDocuments } from '../src/io/inputs.js';
import { toYaml } from '../src/io/yaml-dump.js';
import { makePods } from './pods.js';
import { twentyOpsPolicies } from './interpreter.js';

const COUNT = Number(process.env.STREAM_PODS ?? 100_000);

async function writePods(file: string): Promise<void> {
  const out = createWriteStream(file);
  for (let start = 0; start < COUNT; start += 1000) {
    for (const pod of makePods(1000)) {
      const meta = pod.metadata as { name: string };
      meta.name = `${meta.name}-${start}`;
      if (!out.write('---\n' + toYaml(pod))) await once(out, 'drain');
    }
  }
  out.end();
  await once(out, 'finish');
}

const dir = mkdtempSync(join(tmpdir(), 'transmute-stream-'));
try {
  const file = join(dir, 'pods.yaml');
  await writePods(file);
  const policies = twentyOpsPolicies();
  const t0 = Date.now();
  let n = 0;
  let bytes = 0;
  for await (const object of streamYamlDocuments(file)) {
    const r = apply(policies, { object, operation: 'CREATE' }, { trace: false });
    bytes += toYaml(r.object).length;
    n++;
  }
  const seconds = (Date.now() - t0) / 1000;
  const maxRssMiB = process.resourceUsage().maxRSS / 1024;
  console.log(JSON.stringify({ pods: n, seconds, outputBytes: bytes, maxRssMiB: Math.round(maxRssMiB) }));
} finally {
  rmSync(dir, { recursive: true, force: true });
}
