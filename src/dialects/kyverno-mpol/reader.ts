/** The MAP dialect's YAML reader, reporting under this dialect's name. */
import { diagnostic } from '../../diagnostics/diagnostic.js';
import type { DiagnosticCode } from '../../diagnostics/codes.js';
import type { YamlPath } from '../../io/source.js';
import { Reader } from '../map/reader.js';
import { DIALECT } from './model.js';

export class MpolReader extends Reader {
  override report(code: DiagnosticCode, path: YamlPath, message: string, key = false): void {
    const span = key ? this.doc.keySpanOf(path) : this.doc.spanOf(path);
    this.diagnostics.push(diagnostic(code, { phase: 'parse', dialect: DIALECT, message, span }));
  }

  /** A boolean at `path`, `fallback` when absent. */
  bool(path: YamlPath, fallback: boolean): boolean {
    const v = this.get(path);
    if (v === undefined || v === null) return fallback;
    if (typeof v !== 'boolean') {
      this.report('TM2002', path, `${path.join('.')}: expected a boolean`);
      return fallback;
    }
    return v;
  }
}
