/**
 * What a generator reports about the constructs it could not write, shared by every target dialect.
 *
 * Every refusal says which of two things it is (`Diagnostic.unsupported`):
 * - `cannot`: the target has no way to state the construct with the same meaning (Gatekeeper has no
 *   conditions on arbitrary fields, MAP runs only at admission...); the message says what exactly;
 * - `yet`: the target could state it, transmute does not translate it yet.
 *
 * `--unsupported` decides what a refusal does: `error` (the default) refuses the whole output, `warn` emits
 * every rule that could be written and reports each dropped one as a warning, `ignore` does the same
 * silently. Whatever the level, a translation that leaves nothing to emit is an error (TM4005): an empty
 * output is never a silent success.
 */
import { diagnostic, type Diagnostic, type UnsupportedClass } from '../diagnostics/diagnostic.js';
import type { DiagnosticCode } from '../diagnostics/codes.js';
import type { Origin } from '../diagnostics/span.js';
import type { GenerateOptions } from './dialect.js';

export type { UnsupportedClass };

/** A construct a generator refused, with its class. */
export interface Refusal {
  why: string;
  class: UnsupportedClass;
}

export function cannot(why: string): Refusal {
  return { why, class: 'cannot' };
}

export function notYet(why: string): Refusal {
  return { why, class: 'yet' };
}

export function isRefusal(x: unknown): x is Refusal {
  return typeof x === 'object' && x !== null && typeof (x as Refusal).why === 'string' && ((x as Refusal).class === 'cannot' || (x as Refusal).class === 'yet');
}

export class GenerationReport {
  readonly diagnostics: Diagnostic[] = [];
  /** Refusals made, whatever the level (ignore records none of them as diagnostics). */
  refusals = 0;

  /**
   * @param target the target's name in messages ("MutatingAdmissionPolicy", "Kyverno", ...)
   * @param dialect the target dialect's registry name
   */
  constructor(
    readonly target: string,
    readonly dialect: string,
    readonly mode: NonNullable<GenerateOptions['unsupported']> = 'error',
  ) {}

  /** The target cannot state `what` with the same meaning. */
  cannot(what: string, origin: Origin | undefined): void {
    this.refuse({ why: what, class: 'cannot' }, origin);
  }

  /** The target could state `what`; transmute does not translate it yet. */
  notYet(what: string, origin: Origin | undefined): void {
    this.refuse({ why: what, class: 'yet' }, origin);
  }

  refuse(r: Refusal, origin: Origin | undefined, context?: string): void {
    this.refusals++;
    if (this.mode === 'ignore') return;
    const where = context ? ` (${context})` : '';
    const message =
      r.class === 'cannot' ? `${this.target} cannot express ${r.why}${where}; not emitted` : `transmute does not yet translate ${r.why} to ${this.target}${where}; not emitted`;
    this.diagnostics.push(
      diagnostic('TM4001', {
        phase: 'emit',
        dialect: this.dialect,
        message,
        span: origin,
        unsupported: r.class,
        ...(this.mode === 'warn' ? { severity: 'warning' as const } : {}),
      }),
    );
  }

  /** A known difference of an emitted construct (TM4002 ordering, TM4003 semantics). */
  lossy(code: Extract<DiagnosticCode, 'TM4002' | 'TM4003'>, message: string, origin: Origin | undefined): void {
    this.push(code, message, origin, 'warning');
  }

  push(code: DiagnosticCode, message: string, origin: Origin | undefined, severity?: 'warning' | 'info'): void {
    this.diagnostics.push(diagnostic(code, { phase: 'emit', dialect: this.dialect, message, span: origin, ...(severity ? { severity } : {}) }));
  }

  /**
   * Closes the report for an output of `emitted` documents translated from `inputs` policies. An empty output
   * is never silent: refusals that left it empty make it an error (TM4005), and an empty output without any
   * refusal (the policies write nothing the target needs) is a warning, unless a diagnostic already says why.
   */
  finish(emitted: number, inputs: number, origin?: Origin): void {
    if (emitted > 0 || inputs === 0) return;
    const n = this.refusals;
    if (n > 0) {
      this.push('TM4005', `nothing could be translated to ${this.target} (${n} construct${n === 1 ? '' : 's'} left out); no output`, origin);
      return;
    }
    if (!this.diagnostics.some((d) => d.code === 'TM4003')) this.push('TM4005', `the policies write nothing ${this.target} needs; no output`, origin, 'warning');
  }
}
