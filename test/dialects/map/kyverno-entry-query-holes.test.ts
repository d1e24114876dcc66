/**
 * A context variable whose `jmesPath` holds `{{ }}` holes (loaders/variable.go substitutes the text, then
 * queries): translated to MAP and to a MutatingPolicy where each hole is a whole raw string or quoted
 * identifier of the query, and re-executed against our Kyverno engine. A value whose text would make another
 * query (a quote in it) fails the CEL where Kyverno's query breaks.
 */
import { describe, expect, it } from 'vitest';
import type { JsonObject } from '../../../src/ir/json.js';
import type { Policy } from '../../../src/ir/nodes.js';
import { translate } from '../../../src/pipeline.js';
import { outcome, podRule, translatedTo } from './kyverno-support.js';

function policy(query: string, withDefault: boolean): Policy[] {
  return podRule(
    'query-holes',
    `context:
- name: wanted
  variable:
    jmesPath: request.object.metadata.labels.wanted || 'app'
- name: image
  variable:
    jmesPath: ${JSON.stringify(query)}${withDefault ? '\n    default: none' : ''}
mutate:
  patchStrategicMerge:
    metadata:
      labels:
        picked: "{{ image }}"`,
  );
}

const pod = (wanted: string | undefined): JsonObject => ({
  apiVersion: 'v1',
  kind: 'Pod',
  metadata: { name: 'p', namespace: 'prod', ...(wanted === undefined ? {} : { labels: { wanted } }) },
  spec: { containers: [{ name: 'app', image: 'nginx' }, { name: 'side', image: 'envoy' }, { name: "it's", image: 'odd' }, { name: 'a{b}', image: 'braced' }] },
});

// A single brace is plain text in the substituted query (only `{{` and `}}` would be scanned again).
const PODS = [pod(undefined), pod('side'), pod('none-such'), pod("it's"), pod('a{b}')];

describe('a context variable whose jmesPath holds holes', () => {
  for (const [what, query, withDefault] of [
    ['a raw string literal', "request.object.spec.containers[?name=='{{ wanted }}'].image | [0]", false],
    ['a quoted identifier', 'request.object.metadata.labels."{{ wanted }}"', false],
  ] as const) {
    it(`${what}: MAP and MutatingPolicy give what Kyverno gives`, () => {
      const source = policy(query, withDefault);
      for (const to of ['map', 'kyverno-mpol'] as const) {
        const target = translatedTo(source, to);
        for (const p of PODS) expect(outcome(target, p), `${to} ${JSON.stringify(p.metadata)}`).toEqual(outcome(source, p));
      }
    });
  }

  it('with a default, which Kyverno takes where the substituted text breaks the query: not yet', () => {
    const g = translate(policy("request.object.spec.containers[?name=='{{ wanted }}'].image | [0]", true), 'kyverno-mpol', 'error');
    expect(g.diagnostics.map((d) => d.message).join('\n')).toContain('whose jmesPath holds `{{ }}` holes');
  });

  it('a hole that is not a whole raw string or quoted identifier is still refused', () => {
    const g = translate(policy('request.object.spec.containers[{{ wanted }}].image', false), 'kyverno-mpol', 'error');
    expect(g.diagnostics.map((d) => d.message).join('\n')).toContain('nested in another hole other than as a whole quoted identifier');
  });
});
