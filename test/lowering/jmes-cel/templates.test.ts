/**
 * The differential proof for `{{ }}` strings: templateToCel against Kyverno's substitution
 * (src/dialects/kyverno/variables.ts substituteString) on every document.
 */
import { describe, expect, it } from 'vitest';
import { templateToCel } from '../../../src/lowering/jmes-cel/index.js';
import { DOCS, TYPED_DOCS } from './docs.js';
import { TALLY, celActivation, runCel, SCOPE, TARGETS, templateDifferential, TYPED_SCOPE } from './harness.js';

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
  `{{ element.name }}{{ element.image }}`,
  `{{ element.name }}-{{ element.image }}`,
  `{ {{ element.name }}`,
  `{{ element.image }}\\{{ request.namespace }}`,
  `{{ element.image }}\\-{{ request.namespace }}`,
  `{{ element.name }}:{{ elementIndex }}`,
  `{{ split(element.image, ':')[0] }}:stable`,
  `{{ request.operation }}-{{ request.kind.kind }}`,
  `{{ element.ports[0].containerPort || \`0\` }}`,
  `port-{{ element.ports[0].containerPort }}`,
  `{{ ${o}.metadata.labels || \`{}\` }}`,
  `{{ ${o}.metadata.annotations."x/y" }}-x`,
  `x-{{ element.image }}-{{ element.name }}`,
];

export const TEMPLATES_REFUSED: [string, 'cannot' | 'yet'][] = [
  [`{{ images.containers."{{element.name}}".tag }}`, 'yet'],
  [`{{@}}`, 'yet'],
  [`x-{{ time_now_utc() }}`, 'cannot'],
  [`{{ request.roles }}`, 'cannot'],
  [`{{ a. }}-x`, 'cannot'],
];

describe('templates → CEL: differential against Kyverno substitution', () => {
  for (const { name: targetName, target } of TARGETS) {
    describe(targetName, () => {
      for (const text of TEMPLATES) {
        it(JSON.stringify(text), () => templateDifferential(text, SCOPE, target, DOCS));
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

  describe('typed', () => {
    for (const { name: targetName, target } of TARGETS) {
      describe(targetName, () => {
        for (const text of TEMPLATES) it(JSON.stringify(text), () => templateDifferential(text, TYPED_SCOPE, target, TYPED_DOCS));
      });
    }
  });

  it('a string without holes is a CEL string literal', () => {
    expect(templateToCel('a "b" \\{{c}}', SCOPE, { env: 'map' })).toMatchObject({ ok: true, cel: '"a \\"b\\" {{c}}"', notes: [] });
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
