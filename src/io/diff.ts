/**
 * A unified line diff (Myers' O(ND) algorithm) for `apply -o diff`: before and after as YAML, with three
 * lines of context, headed like `diff -u`.
 */
export function unifiedDiff(before: string, after: string, fromName: string, toName: string, context = 3): string {
  const a = splitLines(before);
  const b = splitLines(after);
  const edits = myers(a, b);
  if (edits.every((e) => e.kind === ' ')) return '';
  const out = [`--- ${fromName}`, `+++ ${toName}`];
  // Group edits into hunks with `context` lines around changes.
  let i = 0;
  while (i < edits.length) {
    while (i < edits.length && edits[i]!.kind === ' ') i++;
    if (i >= edits.length) break;
    let start = Math.max(0, i - context);
    let end = i;
    let lastChange = i;
    while (end < edits.length) {
      if (edits[end]!.kind !== ' ') lastChange = end;
      else if (end - lastChange > context * 2) break;
      end++;
    }
    end = Math.min(edits.length, lastChange + context + 1);
    const hunk = edits.slice(start, end);
    const aStart = hunk[0]!.aIndex + 1;
    const bStart = hunk[0]!.bIndex + 1;
    const aLen = hunk.filter((e) => e.kind !== '+').length;
    const bLen = hunk.filter((e) => e.kind !== '-').length;
    out.push(`@@ -${aLen === 0 ? aStart - 1 : aStart},${aLen} +${bLen === 0 ? bStart - 1 : bStart},${bLen} @@`);
    for (const e of hunk) out.push(e.kind + e.line);
    i = end;
    start = end;
  }
  return out.join('\n') + '\n';
}

function splitLines(text: string): string[] {
  const lines = text.split('\n');
  if (lines[lines.length - 1] === '') lines.pop();
  return lines;
}

interface Edit {
  kind: ' ' | '-' | '+';
  line: string;
  aIndex: number;
  bIndex: number;
}

function myers(a: string[], b: string[]): Edit[] {
  const n = a.length;
  const m = b.length;
  const max = n + m;
  const offset = max;
  const v = new Int32Array(2 * max + 2);
  const trace: Int32Array[] = [];
  let found = false;
  for (let d = 0; d <= max && !found; d++) {
    trace.push(v.slice());
    for (let k = -d; k <= d; k += 2) {
      let x = k === -d || (k !== d && v[offset + k - 1]! < v[offset + k + 1]!) ? v[offset + k + 1]! : v[offset + k - 1]! + 1;
      let y = x - k;
      while (x < n && y < m && a[x] === b[y]) {
        x++;
        y++;
      }
      v[offset + k] = x;
      if (x >= n && y >= m) {
        found = true;
        break;
      }
    }
  }
  // Backtrack through the saved frontiers.
  const edits: Edit[] = [];
  let x = n;
  let y = m;
  for (let d = trace.length - 1; d >= 0; d--) {
    const vd = trace[d]!;
    const k = x - y;
    const prevK = k === -d || (k !== d && vd[offset + k - 1]! < vd[offset + k + 1]!) ? k + 1 : k - 1;
    const prevX = vd[offset + prevK]!;
    const prevY = prevX - prevK;
    while (x > prevX && y > prevY) {
      x--;
      y--;
      edits.push({ kind: ' ', line: a[x]!, aIndex: x, bIndex: y });
    }
    if (d > 0) {
      if (x === prevX) {
        y--;
        edits.push({ kind: '+', line: b[y]!, aIndex: x, bIndex: y });
      } else {
        x--;
        edits.push({ kind: '-', line: a[x]!, aIndex: x, bIndex: y });
      }
    }
  }
  return edits.reverse();
}
