/** Streaming JSON values (NDJSON, concatenated objects) and YAML through `streamYamlDocuments`. */
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { JsonValue } from '../../../src/ir/json.js';
import { toYaml } from '../../../src/io/yaml-dump.js';
import { loadYamlText } from '../../../src/io/yaml-load.js';
import { streamYamlDocuments, YamlStreamError } from '../../../src/io/yaml-stream.js';
import { tempDir } from '../../support/temp.js';

const OBJECTS: JsonValue[] = [{ kind: 'A', spec: { x: [1, 2, { y: 'a}b{"c' }] } }, { kind: 'B' }, { kind: 'C', n: -1.5, s: 'line\nbreak' }];

async function collect(path: string, chunkSize?: number): Promise<JsonValue[]> {
  const out: JsonValue[] = [];
  for await (const v of streamYamlDocuments(path, { ...(chunkSize ? { chunkSize } : {}) })) out.push(v);
  return out;
}

async function failure(path: string, chunkSize?: number): Promise<YamlStreamError> {
  try {
    await collect(path, chunkSize);
  } catch (e) {
    if (e instanceof YamlStreamError) return e;
    throw e;
  }
  throw new Error('expected a YamlStreamError');
}

describe('streamYamlDocuments over JSON values', () => {
  const ndjson = `${OBJECTS.map((o) => JSON.stringify(o)).join('\n')}\n`;
  const pretty = OBJECTS.map((o) => JSON.stringify(o, null, 2)).join('\n');
  const dir = tempDir('fast-yaml-stream', {
    'objects.ndjson': ndjson,
    'pretty.json': pretty,
    'mixed.yaml': `${JSON.stringify(OBJECTS[0])}\n---\n${toYaml(OBJECTS[1])}---\n${toYaml(OBJECTS[2])}`,
    'bad.ndjson': '{"a": 1}\n{"b": 2}\n{"c": 1,, "d": 2}\n{"d": 4}\n',
    'yaml.yaml': toYaml(OBJECTS[0]) + '---\n' + toYaml(OBJECTS[2]),
  });

  it('reads NDJSON one value a line, whatever the read size, as loadYamlText reads it', async () => {
    const r = loadYamlText('objects.ndjson', ndjson);
    expect(r.ok && r.value.map((d) => d.value)).toEqual(OBJECTS);
    for (const size of [undefined, 1, 3, 7, 64]) expect(await collect(join(dir, 'objects.ndjson'), size)).toEqual(OBJECTS);
  });

  it('reads JSON objects printed one after another (kubectl reads them so)', async () => {
    for (const size of [undefined, 5]) expect(await collect(join(dir, 'pretty.json'), size)).toEqual(OBJECTS);
  });

  it('hands the rest to the YAML splitter where the JSON values stop', async () => {
    for (const size of [undefined, 4]) expect(await collect(join(dir, 'mixed.yaml'), size)).toEqual(OBJECTS);
    expect(await collect(join(dir, 'yaml.yaml'), 2)).toEqual([OBJECTS[0], OBJECTS[2]]);
  });

  it('reports a bad value at its line of the file', async () => {
    for (const size of [undefined, 3]) {
      const e = await failure(join(dir, 'bad.ndjson'), size);
      expect(e.diagnostics.map((d) => [d.code, d.span?.line])).toEqual([['TM1001', 3]]);
    }
  });
});
