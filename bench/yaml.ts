/**
 * Reading and printing YAML: the bench Pods loaded from one multi-document text and printed back, by the fast
 * readers and printer (what `loadYamlText` and `toYaml` use), against `JSON.parse` + `JSON.stringify` of the same
 * objects as the hand-written baseline; the reference (`yaml` package reader, reference printer) is the third
 * column, so one run shows before and after.
 */
import { jsonEqual } from '../src/ir/json.js';
import { toYaml, toYamlDocuments, toYamlReference } from '../src/io/yaml-dump.js';
import { loadYamlText } from '../src/io/yaml-load.js';
import { makePods } from './pods.js';
import type { Benchmark } from './types.js';

const PODS = 2000;

export const benchmarks: Benchmark[] = [
  {
    name: `YAML load + print, ${PODS} Pods (fast readers vs JSON.parse + JSON.stringify)`,
    setup() {
      const pods = makePods(PODS);
      const text = toYamlDocuments(pods);
      const json = pods.map((p) => JSON.stringify(p));
      let sink: unknown;
      const load = (referenceReader: boolean): unknown[] => {
        const r = loadYamlText('pods.yaml', text, { referenceReader });
        if (!r.ok) throw new Error(r.diagnostics.map((d) => d.message).join('\n'));
        return r.value.map((d) => d.value);
      };
      return {
        items: PODS,
        run() {
          for (const v of load(false)) sink = toYaml(v);
        },
        baseline() {
          for (const t of json) sink = JSON.stringify(JSON.parse(t));
        },
        others: {
          'yaml package + reference printer': () => {
            for (const v of load(true)) sink = toYamlReference(v);
          },
          'fast load only': () => {
            sink = load(false);
          },
          'fast print only': () => {
            for (const p of pods) sink = toYaml(p);
          },
        },
        verify() {
          const fast = load(false);
          const ref = load(true);
          if (fast.length !== PODS || !jsonEqual(fast, ref) || !jsonEqual(fast, pods)) throw new Error('the fast and reference readers disagree on the bench Pods');
          for (const p of pods.slice(0, 200)) if (toYaml(p) !== toYamlReference(p)) throw new Error('the fast and reference printers disagree');
          void sink;
        },
      };
    },
  },
];
