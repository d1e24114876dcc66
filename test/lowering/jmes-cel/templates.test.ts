/**
 * The differential proof for `{{ }}` strings: templateToCel against Kyverno's substitution
 * (src/dialects/kyverno/variables.ts substituteString) on every document.
 */
import { describe, expect, it } from 'vitest';
import { substituteString } from '../../../src/dialects/kyverno/variables.js';
import { templateToCel } from '../../../src/lowering/jmes-cel/index.js';
import { DOCS } from './docs.js';
import { TALLY, canonical, celActivation, compileCel, disagreement, jmesContext, runCel, SCOPE, substitutionEnv, TARGETS, type Outcome } from './harness.js';

const o = 'request.object';

export const TEMPLATES: string[] = [
  'plain text',
  '',
  `{{${o}.metadata.name}}`,
  `{{ ${o}.spec.replicas }}`,
  `{{${o}.spec.containers}}`,
  `{{ ${o}.metadata.labels.app || 'none' }}`,
  `{{${o}.metadata.name}}-suffix`,
  `prefix-{{${o}.metadata.name}}`,
  `{{${o}.metadata.name}}-{{${o}.spec.replicas}}`,
  `{{${o}.metadata.name}}{{${o}.metadata.namespace}}`,
  `{{request.namespace}}/{{${o}.metadata.name}}`,
  ` {{${o}.metadata.name}}`,
  `{{${o}.metadata.name}} `,
  `x-{{${o}.spec.flag}}-{{${o}.spec.none}}`,
  `ratio={{${o}.spec.ratio}} big={{${o}.spec.big}} small={{${o}.spec.small}}`,
  `list={{${o}.spec.words}}`,
  `obj={{${o}.spec.obj}}`,
  `nested={{${o}.spec.nested}}`,
  `escaped \\{{${o}.metadata.name}} and {{${o}.metadata.name}}`,
  `\\{{ not a variable }}`,
  `{{- ${o}.metadata.name }}`,
  `a-{{- ${o}.metadata.name }}`,
  `{{ to_upper(${o}.metadata.name) }}-{{ length(${o}.spec.words) }}`,
  `{{ ${o}.metadata.labels.missing || '' }}-x`,
  `{{ ${o}.metadata.missing }}-x`,
  `count: {{ length(${o}.spec.containers) }}`,
  `{{ join(',', ${o}.spec.words) }}`,
  `{{ ${o}.spec.containers[0].image }}`,
  `image={{ ${o}.spec.containers[?name=='nginx'].image | [0] }}`,
  `{{ elementIndex }}-{{ element.name }}`,
  `{{ foo }}`,
  `v={{ foo }}`,
  `{{request.operation}}`,
  `{{ request.userInfo.username }}@{{ request.namespace }}`,
  `{{ {name: ${o}.metadata.name} }}`,
  `{{ to_string(${o}.spec.replicas) }}`,
  `{{${o}.metadata.annotations."x/y"}}`,
  `{{${o}.spec.quoted}}!`,
  `{{ 'a{b}c' }}-{{ ${o}.metadata.name }}`,
  `{x} {{ ${o}.metadata.name }} {y}`,
];

export const TEMPLATES_REFUSED: [string, 'cannot' | 'yet'][] = [
  [`{{ images.containers."{{element.name}}".tag }}`, 'yet'],
  [`{{@}}`, 'yet'],
  [`x-{{ time_now_utc() }}`, 'cannot'],
  [`{{ request.roles }}`, 'cannot'],
  [`{{ a. }}-x`, 'cannot'],
];

function kyverno(text: string, ctx: unknown): Outcome {
  const r = substituteString(text, substitutionEnv(ctx));
  return r.ok ? { ok: true, json: canonical(r.value) } : { ok: false, message: r.message };
}

describe('templates → CEL: differential against Kyverno substitution', () => {
  for (const { name: targetName, target } of TARGETS) {
    describe(targetName, () => {
      for (const text of TEMPLATES) {
        it(JSON.stringify(text), () => {
          const c = templateToCel(text, SCOPE, target);
          if (!c.ok) throw new Error(`refused (${c.class}): ${c.why}`);
          const compiled = compileCel(c.cel, target);
          if (!compiled.ok) throw new Error(`CEL does not compile: ${compiled.diagnostics[0]!.message}\n${c.cel}`);
          for (const d of DOCS) {
            const why = disagreement(kyverno(text, jmesContext(d)), runCel(c.cel, target, celActivation(d)), c);
            if (why !== undefined) throw new Error(`document "${d.name}": ${why}\nCEL: ${c.cel}`);
          }
        });
      }
      for (const [text, cls] of TEMPLATES_REFUSED) {
        it(`refuses ${JSON.stringify(text)} (${cls})`, () => {
          const c = templateToCel(text, SCOPE, target);
          expect(c.ok).toBe(false);
          if (!c.ok) expect(c.class, c.why).toBe(cls);
        });
      }
    });
  }

  it('a string without holes is a CEL string literal', () => {
    expect(templateToCel('a "b" \\{{c}}', SCOPE, { env: 'map' })).toEqual({ ok: true, cel: '"a \\"b\\" {{c}}"', notes: [] });
  });

  it('one whole hole keeps the JSON type', () => {
    const c = templateToCel(`{{ ${o}.spec.replicas }}`, SCOPE, { env: 'map' });
    expect(c.ok && runCel(c.cel, { env: 'map' }, celActivation(DOCS[0]!))).toEqual({ ok: true, json: '3' });
  });
  it('agrees on value or failure in (almost) every run', () => {
    const total = TALLY.sameValue + TALLY.bothFail + TALLY.guarded;
    // eslint-disable-next-line no-console
    console.log(`templates: ${total} runs: ${TALLY.sameValue} same value, ${TALLY.bothFail} both fail, ${TALLY.guarded} noted guard`);
    expect(TALLY.guarded).toBeLessThan(total / 20);
  });
});
