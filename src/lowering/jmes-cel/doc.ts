/**
 * The function table of docs/jmespath-to-cel.md, generated from FUNCTIONS so the document cannot drift
 * (test/lowering/jmes-cel/doc.test.ts compares them).
 */
import { KYVERNO_CUSTOM_FUNCTION_NAMES } from '../../jmespath/index.js';
import { FUNCTIONS, statusIn } from './functions.js';
import type { Status } from './table.js';
import { capsOf, type Caps } from './target.js';

function cell(s: Status): string {
  const text = (() => {
    switch (s.kind) {
      case 'exact':
        return `**exact**: ${s.how}`;
      case 'assumption':
        return `**exact under assumption**: ${s.what}. CEL: ${s.how}`;
      case 'cannot':
        return `**cannot**: ${s.why}`;
      case 'yet':
        return `**yet**: ${s.why}`;
    }
  })();
  return text.replaceAll('|', '\\|');
}

function kindOf(s: Status): string {
  return s.kind === 'assumption' ? 'exact under assumption' : s.kind;
}

export function functionTableMarkdown(): string {
  const map = capsOf({ env: 'map' }) as Caps;
  const mpol = capsOf({ env: 'kyverno-mpol' }) as Caps;
  const custom = new Set(KYVERNO_CUSTOM_FUNCTION_NAMES);
  const rows = [...FUNCTIONS].sort((a, b) => a.name.localeCompare(b.name));
  const count = (caps: Caps): string => {
    const n = new Map<string, number>();
    for (const f of rows) {
      const k = kindOf(statusIn(f, { caps }));
      n.set(k, (n.get(k) ?? 0) + 1);
    }
    return ['exact', 'exact under assumption', 'cannot', 'yet'].map((k) => `${n.get(k) ?? 0} ${k}`).join(', ');
  };
  const lines = [
    `${rows.length} functions (${rows.filter((f) => !custom.has(f.name)).length} JMESPath built-ins, ${rows.filter((f) => custom.has(f.name)).length} Kyverno functions).`,
    '',
    `- MutatingAdmissionPolicy (Kubernetes 1.32–1.36): ${count(map)}`,
    `- Kyverno MutatingPolicy: ${count(mpol)}`,
    '',
    '| function | origin | MutatingAdmissionPolicy | Kyverno MutatingPolicy |',
    '|---|---|---|---|',
  ];
  for (const f of rows) {
    const origin = custom.has(f.name) ? 'Kyverno' : 'JMESPath';
    const m = statusIn(f, { caps: map });
    const p = statusIn(f, { caps: mpol });
    const same = JSON.stringify(m) === JSON.stringify(p);
    lines.push(`| \`${f.name}\` | ${origin} | ${cell(m)} | ${same ? 'same' : cell(p)} |`);
  }
  return lines.join('\n') + '\n';
}
