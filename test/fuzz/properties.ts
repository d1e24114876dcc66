/**
 * Property checks for every parser and for `apply`: on any input, random or a mutation of a real policy,
 * they end in a result or a positioned diagnostic inside the input, never throw, and never report an
 * internal error. `npm test` runs a small seeded budget (fuzz.test.ts); `npm run fuzz` a large one.
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import fc from 'fast-check';
import { parseCel } from '../../grammars/cel.js';
import { parseLocation } from '../../grammars/gatekeeper-location.js';
import { parseAnchorKey } from '../../grammars/kyverno-anchor.js';
import { parseTemplate } from '../../grammars/kyverno-template.js';
import { parsePathSyntax, PathSyntaxError } from '../../grammars/ir-path.js';
import { parseJmes } from '../../src/jmespath/parse.js';
import { parseIrText } from '../../src/ir/parse-text.js';
import { loadYamlText } from '../../src/io/yaml-load.js';
import { main } from '../../src/cli/main.js';
import type { CliIO } from '../../src/cli/io.js';
import type { Diagnostic } from '../../src/diagnostics/diagnostic.js';

/** Files of a folder tree with one of the extensions, sorted (seeds must not depend on directory order). */
function files(dir: string, ext: RegExp, out: string[] = []): string[] {
  let names: string[];
  try {
    names = readdirSync(dir).sort();
  } catch {
    return out;
  }
  for (const n of names) {
    const p = join(dir, n);
    if (statSync(p).isDirectory()) files(p, ext, out);
    else if (ext.test(n)) out.push(p);
  }
  return out;
}

/** Real policy texts to mutate: the golden cases (always here) and the shared corpora (when present). */
export function seedTexts(roots: readonly string[], limit = 400): string[] {
  const texts: string[] = [];
  for (const root of roots) for (const f of files(root, /\.ya?ml$/)) if (texts.length < limit) texts.push(readFileSync(f, 'utf8'));
  return texts;
}

/** The values of one key found anywhere in the seed texts (CEL expressions, locations, ...). */
export function seedValues(texts: readonly string[], key: RegExp): string[] {
  const out = new Set<string>();
  for (const t of texts) for (const m of t.matchAll(key)) if (m[1]) out.add(m[1].trim());
  return [...out];
}

/** A string, a mutation of a seed (characters inserted, deleted or replaced), or a seed cut short. */
export function textFrom(seeds: readonly string[]): fc.Arbitrary<string> {
  const anyText = fc.oneof(fc.string({ maxLength: 80 }), fc.string({ unit: 'binary', maxLength: 80 }), fc.string({ unit: fc.constantFrom(...'{}[]()<>.:,"\'`\\|&!?*@$-+=#\n \t0aZ') , maxLength: 60 }));
  if (seeds.length === 0) return anyText;
  const mutated = fc
    .tuple(fc.constantFrom(...seeds), fc.array(fc.tuple(fc.nat(), fc.nat(3), fc.string({ unit: fc.constantFrom(...'{}[]()<>.:,"\'`\\|&!?*@$-+=#\n \t0aZ\u00e9\u0000\u001b'), maxLength: 3 })), { maxLength: 4 }))
    .map(([seed, edits]) => {
      let s = seed;
      for (const [at, del, ins] of edits) {
        const i = s.length === 0 ? 0 : at % (s.length + 1);
        s = s.slice(0, i) + ins + s.slice(i + del);
      }
      return s;
    });
  const cut = fc.tuple(fc.constantFrom(...seeds), fc.nat()).map(([s, n]) => s.slice(0, s.length === 0 ? 0 : n % s.length));
  return fc.oneof({ weight: 1, arbitrary: anyText }, { weight: 3, arbitrary: mutated }, { weight: 1, arbitrary: cut });
}

const within = (n: number, text: string): boolean => Number.isInteger(n) && n >= 0 && n <= text.length + 1;

function positioned(ds: readonly Diagnostic[]): boolean {
  return ds.every((d) => d.severity !== 'error' || (d.span !== undefined && d.span.line >= 1 && d.span.col >= 1));
}

/** One property per parser: what it must hold for every input. */
export const PARSERS: Record<string, { seeds: (texts: readonly string[]) => string[]; check: (input: string) => boolean }> = {
  cel: {
    seeds: (t) => seedValues(t, /expression: ['"]?([^\n'"]+)/g),
    check: (s) => {
      const r = parseCel(s);
      return r.ok || (typeof r.message === 'string' && within(r.start, s) && within(r.end, s));
    },
  },
  jmespath: {
    seeds: (t) => seedValues(t, /\{\{([^}]+)\}\}/g),
    check: (s) => {
      const r = parseJmes(s);
      return r.ok || (typeof r.message === 'string' && Number.isInteger(r.column));
    },
  },
  'gatekeeper-location': {
    seeds: (t) => seedValues(t, /location: ['"]?([^\n'"]+)/g),
    check: (s) => {
      const r = parseLocation(s);
      return r.ok || typeof r.error === 'object';
    },
  },
  'kyverno-template': {
    seeds: (t) => seedValues(t, /(\S*\{\{[^\n]*)/g),
    check: (s) => {
      const r = parseTemplate(s);
      return r.ok || (typeof r.message === 'string' && within(r.offset, s));
    },
  },
  'kyverno-anchor': {
    seeds: (t) => seedValues(t, /^\s*-?\s*([+=^<X]?\([^)\n]*\)):/gm),
    check: (s) => {
      parseAnchorKey(s);
      return true;
    },
  },
  'ir-path': {
    seeds: (t) => seedValues(t, /(?:set|remove|ensure|append): ([^\n]+)/g),
    check: (s) => {
      try {
        parsePathSyntax(s);
      } catch (e) {
        return e instanceof PathSyntaxError;
      }
      return true;
    },
  },
  'ir-text': {
    seeds: (t) => t.filter((x) => x.startsWith('policy ')),
    check: (s) => {
      const r = parseIrText('fuzz.ir', s);
      return r.ok || (r.diagnostics.length > 0 && positioned(r.diagnostics));
    },
  },
  yaml: {
    seeds: (t) => [...t],
    check: (s) => {
      const r = loadYamlText('fuzz.yaml', s);
      return r.ok ? positioned(r.diagnostics) : r.diagnostics.length > 0 && positioned(r.diagnostics);
    },
  },
};

export const POD = 'apiVersion: v1\nkind: Pod\nmetadata:\n  name: web\n  namespace: default\n  labels: {app: web}\nspec:\n  containers:\n  - name: app\n    image: nginx\n';

/** `transmute apply` of a policy text to a Pod file: an exit code of 0, 1 or 2, and never an internal error. */
export async function applyEndsWell(policy: string, podFile: string): Promise<boolean> {
  let stderr = '';
  const io: CliIO = { stdout: () => undefined, stderr: (t) => void (stderr += t), stdin: () => policy, isTTY: false };
  let code: number;
  try {
    code = await main(['apply', '-p', '-', '-r', podFile], io);
  } catch {
    return false;
  }
  return !/internal error/i.test(stderr) && (code === 0 || code === 1 || code === 2);
}
