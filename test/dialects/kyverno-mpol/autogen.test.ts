/** The Pod-to-template rewrite of MutatingPolicy autogen (pkg/cel/policies/mpol/autogen/autogen.go). */
import { describe, expect, it } from 'vitest';
import { convertPodToTemplateExpression } from '../../../src/dialects/kyverno-mpol/autogen.js';

describe('kyverno-mpol autogen: convertPodToTemplateExpression', () => {
  it('rewrites whole identifiers only (specRe and the metadata regexps use \\b)', () => {
    expect(convertPodToTemplateExpression('object.spec.x + oldObject.spec.y + myobject.spec.z', 'defaults')).toBe(
      'object.spec.template.spec.x + oldObject.spec.template.spec.y + myobject.spec.z',
    );
    expect(convertPodToTemplateExpression('object.metadata.labels.a + object.metadata.name', 'cronjobs')).toBe(
      'object.spec.jobTemplate.spec.template.metadata.labels.a + object.metadata.name',
    );
  });

  it('wraps the outermost Object{...}, also written with a space before the brace', () => {
    expect(convertPodToTemplateExpression('Object {metadata: Object.metadata{labels: {"a": "b"}}}', 'defaults')).toBe(
      // `Object.metadata{` is not `Object.metadata.labels`: only the wrapper changes, as upstream.
      'Object{spec: Object.spec{template: Object.spec.template{metadata: Object.metadata{labels: {"a": "b"}}}}}',
    );
  });
});
