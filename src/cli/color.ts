/**
 * Colour for a terminal: SGR escapes around diagnostics, diffs and test results, used only when the stream is a
 * terminal and the user has not turned colour off (io.ts decides; `--no-color` and NO_COLOR turn it off).
 * Without colour every function returns its text unchanged, so piped output keeps its exact bytes.
 */
import type { Severity } from '../diagnostics/codes.js';
import type { RenderStyle } from '../diagnostics/render.js';
import type { CliIO } from './io.js';

export interface Palette {
  red(text: string): string;
  green(text: string): string;
  yellow(text: string): string;
  cyan(text: string): string;
  bold(text: string): string;
  dim(text: string): string;
}

function sgr(open: number, close: number): (text: string) => string {
  return (text) => (text === '' ? text : `\x1b[${open}m${text}\x1b[${close}m`);
}

const plain = (text: string): string => text;

export const NO_COLOR_PALETTE: Palette = { red: plain, green: plain, yellow: plain, cyan: plain, bold: plain, dim: plain };

export const ANSI_PALETTE: Palette = {
  red: sgr(31, 39),
  green: sgr(32, 39),
  yellow: sgr(33, 39),
  cyan: sgr(36, 39),
  bold: sgr(1, 22),
  dim: sgr(2, 22),
};

export function paletteFor(io: CliIO, stream: 'stdout' | 'stderr'): Palette {
  return io.color?.[stream] ? ANSI_PALETTE : NO_COLOR_PALETTE;
}

/** The same io with colour off on both streams (`--no-color`). */
export function colorOff(io: CliIO): CliIO {
  return { ...io, color: { stdout: false, stderr: false } };
}

/** How diagnostics are painted: the severity word in its colour, the caret under the source in green. */
export function diagnosticStyle(p: Palette): RenderStyle {
  const bySeverity: Record<Severity, (t: string) => string> = { error: (t) => p.bold(p.red(t)), warning: (t) => p.bold(p.yellow(t)), info: (t) => p.bold(p.cyan(t)) };
  return { severity: (severity, text) => bySeverity[severity](text), caret: p.green };
}

export function styleFor(io: CliIO, stream: 'stdout' | 'stderr'): RenderStyle | undefined {
  return io.color?.[stream] ? diagnosticStyle(ANSI_PALETTE) : undefined;
}

/** A unified diff with its headers bold, hunk lines cyan, removals red and additions green, line by line. */
export function paintDiff(diff: string, p: Palette): string {
  if (p === NO_COLOR_PALETTE) return diff;
  return diff.replace(/^.*$/gm, (line) => {
    if (line.startsWith('+++ ') || line.startsWith('--- ')) return p.bold(line);
    if (line.startsWith('@@')) return p.cyan(line);
    if (line.startsWith('+')) return p.green(line);
    if (line.startsWith('-')) return p.red(line);
    return line;
  });
}

/**
 * Test results as `transmute test` prints them: the `ok` / `FAIL` / `skip` / `KNOWN` word of each row in green,
 * red or yellow, and in the summary the failures in red when there are any.
 */
export function paintTestReport(text: string, p: Palette): string {
  if (p === NO_COLOR_PALETTE) return text;
  return text.replace(/^.*$/gm, (line) => {
    if (line.startsWith('FAIL ')) return `${p.bold(p.red('FAIL'))}${line.slice(4)}`;
    if (line.startsWith('ok ')) return `${p.green('ok')}${line.slice(2)}`;
    if (line.startsWith('skip ')) return `${p.yellow('skip')}${line.slice(4)}`;
    if (line.startsWith('KNOWN ')) return `${p.yellow('KNOWN')}${line.slice(5)}`;
    return line.replace(/^(\d+ passed), (\d+) failed/, (_, passed: string, failed: string) => `${p.green(passed)}, ${failed === '0' ? `${failed} failed` : p.bold(p.red(`${failed} failed`))}`);
  });
}
