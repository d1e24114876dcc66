/**
 * Streams STREAM_PODS (default 100,000) Pods from one multi-document YAML file end to end: read, apply the 20-op
 * policy, print YAML; reports the time and the peak resident memory, and the time of `JSON.parse` +
 * `JSON.stringify` of the same objects, measured between the streamed batches, and the ratio of the two. Run by `npm run bench` in a child process so the figures are this job's alone; STREAM_READER=reference
 * streams with the `yaml` package and the reference printer instead (the figure before the fast path).
 */
import { createWriteStream, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { once } from 'node:events';
import { apply } from '../src/interpreter/index.js';
import type { JsonObject } from '../src/ir/json.js';
import { toYaml, toYamlReference } from '../src/io/yaml-dump.js';
import { streamYamlDocuments } from '../src/io/yaml-stream.js';
import { makePods } from './pods.js';
import { twentyOpsPolicies } from './interpreter.js';

const COUNT = Number(process.env.STREAM_PODS ?? 100_000);
const REFERENCE = process.env.STREAM_READER === 'reference';
const BATCH = 1000;

/** The Pods of the file, batch by batch (regenerated rather than kept, so memory stays flat). */
function* podBatches(): Generator<JsonObject[]> {
  for (let start = 0; start < COUNT; start += BATCH) {
    const pods = makePods(Math.min(BATCH, COUNT - start));
    for (const pod of pods) {
      const meta = pod.metadata as { name: string };
      meta.name = `${meta.name}-${start}`;
    }
    yield pods;
  }
}

async function writePods(file: string): Promise<void> {
  const out = createWriteStream(file);
  for (const pods of podBatches()) {
    for (const pod of pods) if (!out.write('---\n' + toYaml(pod))) await once(out, 'drain');
  }
  out.end();
  await once(out, 'finish');
}

/** Nanoseconds `JSON.parse` + `JSON.stringify` take over `pods`, each from and to its own text. */
function jsonNs(pods: JsonObject[]): bigint {
  const texts = pods.map((p) => JSON.stringify(p));
  let sink = 0;
  const t0 = process.hrtime.bigint();
  for (const t of texts) sink += JSON.stringify(JSON.parse(t)).length;
  const ns = process.hrtime.bigint() - t0;
  if (sink === 0) throw new Error('no output');
  return ns;
}

const dir = mkdtempSync(join(tmpdir(), 'transmute-stream-'));
try {
  const file = join(dir, 'pods.yaml');
  await writePods(file);
  const policies = twentyOpsPolicies();
  const print = REFERENCE ? toYamlReference : toYaml;
  // The baseline runs batch by batch between the streamed batches, so both see the same machine load (this
  // machine is shared); its time is left out of the stream's. Its strings are a batch at a time: the peak memory
  // stays the stream's.
  const baseline = podBatches();
  let streamNs = 0n;
  let baselineNs = 0n;
  let n = 0;
  let bytes = 0;
  let mark = process.hrtime.bigint();
  for await (const object of streamYamlDocuments(file, { referenceReader: REFERENCE })) {
    // No RFC 6902 patch: the output is the object's YAML (the engine benchmarks run the same way).
    const r = apply(policies, { object, operation: 'CREATE' }, { trace: false, patch: false });
    bytes += print(r.object).length;
    if (++n % BATCH === 0) {
      const now = process.hrtime.bigint();
      streamNs += now - mark;
      baselineNs += jsonNs(baseline.next().value as JsonObject[]);
      mark = process.hrtime.bigint();
    }
  }
  streamNs += process.hrtime.bigint() - mark;
  const maxRssMiB = Math.round(process.resourceUsage().maxRSS / 1024);
  const seconds = Number(streamNs) / 1e9;
  const jsonSeconds = Number(baselineNs) / 1e9;
  console.log(JSON.stringify({ reader: REFERENCE ? 'reference' : 'fast', pods: n, seconds, outputBytes: bytes, maxRssMiB, jsonSeconds, ratioToJson: seconds / jsonSeconds }));
} finally {
  rmSync(dir, { recursive: true, force: true });
}
