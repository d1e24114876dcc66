/**
 * Gatekeeper's own admission check of an ExpansionTemplate (pkg/expansion/system.go ValidateTemplate, called by
 * the validating webhook and by gator before a template is used), in upstream's order and wording.
 */
import { diagnostic, type Diagnostic } from '../../../diagnostics/diagnostic.js';
import type { SourceDoc, YamlPath } from '../../../io/source.js';
import { DIALECT } from '../fields.js';
import { applyToMatches, gvkString, readExpansionTemplate, type ExpansionTemplate } from './template.js';

export interface TemplateProblem {
  message: string;
  /** The field at fault, for the diagnostic's position. */
  at: YamlPath;
}

/** Upstream's first objection to a template, or null when it is valid. */
export function validateTemplate(t: ExpansionTemplate): TemplateProblem | null {
  const k = t.name;
  if (k === '') return { message: 'ExpansionTemplate has empty name field', at: ['metadata'] };
  // Go's len counts bytes.
  if (new TextEncoder().encode(k).length >= 64) return { message: 'ExpansionTemplate name must be less than 64 characters', at: ['metadata', 'name'] };
  if (t.templateSource === '') return { message: `ExpansionTemplate ${k} has empty source field`, at: ['spec'] };
  const gen = t.generatedGVK;
  if (gen.group === '' && gen.version === '' && gen.kind === '') return { message: `ExpansionTemplate ${k} has empty generatedGVK field`, at: ['spec'] };
  if (t.applyTo.length === 0) return { message: `ExpansionTemplate ${k} must specify ApplyTo`, at: ['spec'] };
  // A template that expands its own output would recurse forever (a self-edge of the template graph).
  const at = t.applyTo.findIndex((a) => applyToMatches(a, gen));
  if (at >= 0) return { message: `ExpansionTemplate ${k} generates GVK ${gvkString(gen)}, but also applies to that same GVK`, at: ['spec', 'applyTo', at] };
  return null;
}

/** The webhook's answer for one ExpansionTemplate document (the Gatekeeper dialect's `validate` hook). */
export function validateTemplateDoc(doc: SourceDoc): Diagnostic[] {
  const read = readExpansionTemplate(doc);
  if (!read.ok) return read.diagnostics;
  const problem = validateTemplate(read.value);
  if (!problem) return read.diagnostics;
  return [...read.diagnostics, diagnostic('TM2004', { phase: 'parse', dialect: DIALECT, message: problem.message, span: doc.spanOf(problem.at) })];
}
