/** Issue 13: a huge bad input prints at most 50 lines of diagnostics, in order, then counts per code. */
import { describe, expect, it } from 'vitest';
import { diagnostic, type Diagnostic } from '../../src/diagnostics/diagnostic.js';
import { cappedText, MAX_SHOWN_LINES, MAX_SHOWN_PER_CODE } from '../../src/cli/report.js';

const d = (code: 'TM2004' | 'TM2008' | 'TM1006' | 'TM2003' | 'TM2001' | 'TM1001' | 'TM1005', message: string): Diagnostic => diagnostic(code, { phase: 'parse', message });

describe('cappedText', () => {
  it('shows everything that fits', () => {
    expect(cappedText([d('TM2004', 'a'), d('TM2008', 'b')], (x) => x.message)).toEqual(['a', 'b']);
  });

  it('caps each code, then counts the rest of it', () => {
    const many = Array.from({ length: 30 }, (_, i) => d('TM2004', `a${i}`));
    const out = cappedText([...many, d('TM2008', 'b')], (x) => x.message);
    expect(out.slice(0, MAX_SHOWN_PER_CODE)).toEqual(many.slice(0, MAX_SHOWN_PER_CODE).map((x) => x.message));
    expect(out.slice(MAX_SHOWN_PER_CODE)).toEqual(['b', '... and 10 more errors of the same code (TM2004)']);
  });

  it('stops at the line budget, keeping order, and folds many codes into one line', () => {
    const codes = ['TM2004', 'TM2008', 'TM2003', 'TM2001', 'TM1001', 'TM1005', 'TM1006'] as const;
    const all = Array.from({ length: 700 }, (_, i) => d(codes[i % codes.length]!, `m${i}`));
    const out = cappedText(all, (x) => `${x.message}\nsource\ncaret`);
    const lines = out.join('\n').split('\n');
    expect(lines.length).toBeLessThanOrEqual(50);
    const shown = out.filter((t) => t.startsWith('m'));
    expect(shown.length).toBe(MAX_SHOWN_LINES / 3);
    expect(shown.map((t) => t.split('\n')[0])).toEqual(all.slice(0, shown.length).map((x) => x.message));
    expect(out.at(-1)).toMatch(/^\.\.\. and [\d,]+ more diagnostics of 3 other codes \(TM\d{4}, TM\d{4}, TM\d{4}\)$/);
  });
});
