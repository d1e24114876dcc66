/**
 * Line breaks and indentation for generated CEL, so a policy transmute writes reads like one a person wrote:
 * a conditional puts its branches on their own lines (`? then` / `: else`), a concatenation of patch lists one
 * operand per line, `&&` / `||` chains one term per line, and a long list literal one element per line. Only
 * whitespace outside string literals changes, which CEL ignores. Expressions that fit the width stay on one
 * line.
 */

const WIDTH = 100;

interface Split {
  /** Index of the operator's first character at the top level. */
  at: number;
  len: number;
}

/** The index of the last character of the string literal opening at `i` (quotes, triple quotes, raw). */
function stringEnd(s: string, i: number): number {
  const ch = s[i]!;
  const triple = s.startsWith(ch.repeat(3), i);
  const raw = i > 0 && /[rR]/.test(s[i - 1]!) && (i < 2 || !/[A-Za-z0-9_]/.test(s[i - 2]!));
  const close = triple ? ch.repeat(3) : ch;
  let j = i + close.length;
  while (j < s.length && !s.startsWith(close, j)) j += !raw && s[j] === '\\' ? 2 : 1;
  return j + close.length - 1;
}

/** Visits the characters outside string literals with their bracket depth. */
function scan(s: string, visit: (i: number, depth: number) => boolean | void): void {
  let depth = 0;
  for (let i = 0; i < s.length; i++) {
    const ch = s[i]!;
    if (ch === '"' || ch === "'") {
      i = stringEnd(s, i);
      continue;
    }
    if (ch === '(' || ch === '[' || ch === '{') depth++;
    else if (ch === ')' || ch === ']' || ch === '}') depth--;
    else if (visit(i, depth) === true) return;
  }
}

/** Where the bracket opening at `start` closes (string literals skipped), or -1. */
function closingBracket(s: string, start: number): number {
  let depth = 0;
  for (let i = start; i < s.length; i++) {
    const ch = s[i]!;
    if (ch === '"' || ch === "'") i = stringEnd(s, i);
    else if (ch === '(' || ch === '[' || ch === '{') depth++;
    else if ((ch === ')' || ch === ']' || ch === '}') && --depth === 0) return i;
  }
  return -1;
}

/** The top-level `? :` of a conditional: the first `?` and its matching `:`. */
function ternary(s: string): { q: number; c: number } | undefined {
  let q = -1;
  let pending = 0;
  let c = -1;
  scan(s, (i, depth) => {
    if (depth !== 0) return;
    if (s[i] === '?' && s[i - 1] !== '.' && s[i + 1] !== '.') {
      if (q < 0) q = i;
      pending++;
    } else if (s[i] === ':' && q >= 0) {
      pending--;
      if (pending === 0) {
        c = i;
        return true;
      }
    }
  });
  return q >= 0 && c > q ? { q, c } : undefined;
}

/** The top-level occurrences of a binary operator written with spaces around it. */
function splits(s: string, op: string): Split[] {
  const out: Split[] = [];
  const token = ` ${op} `;
  scan(s, (i, depth) => {
    if (depth === 0 && s.startsWith(token, i - 1) && s[i - 1] === ' ') out.push({ at: i, len: op.length });
  });
  return out;
}

/** The top-level commas of a bracketed literal's content. */
function commas(inner: string): number[] {
  const out: number[] = [];
  scan(inner, (i, depth) => {
    if (depth === 0 && inner[i] === ',') out.push(i);
  });
  return out;
}

/** Whether the brackets at both ends of `s` enclose all of it (`(a) + (b)` is not enclosed). */
function enclosed(s: string, open: string, close: string): boolean {
  if (!s.startsWith(open) || !s.endsWith(close)) return false;
  return closingBracket(s, 0) === s.length - 1;
}

/**
 * `head(args)tail` where the call's parentheses are the outermost ones and `tail` is a short suffix
 * (`.flatten()`, `[0]`), or undefined.
 */
function callParts(s: string): { head: string; args: string[]; tail: string; receiver?: string } | undefined {
  let start: number;
  let receiver: string | undefined;
  const open = /^[A-Za-z_][A-Za-z0-9_.]*(?:\([^()]*\))?(?:\.[A-Za-z_][A-Za-z0-9_]*)*\(/.exec(s);
  if (open) start = open[0].length - 1;
  else {
    // A method of a parenthesized receiver (`(l == null ? [] : l).transformList(...)`).
    const end = s.startsWith('(') ? closingBracket(s, 0) : -1;
    const method = end < 0 ? null : /^(?:\.[A-Za-z_][A-Za-z0-9_]*)*(?:\([^()]*\))?(?:\.[A-Za-z_][A-Za-z0-9_]*)+\(/.exec(s.slice(end + 1));
    if (!method) return undefined;
    receiver = s.slice(0, end + 1);
    start = end + method[0].length;
  }
  const close = closingBracket(s, start);
  if (close < 0) return undefined;
  const tail = s.slice(close + 1);
  if (!/^(?:\.[A-Za-z_][A-Za-z0-9_]*\(\)|\[\d+\])*$/.test(tail)) return undefined;
  const inner = s.slice(start + 1, close);
  const cs = commas(inner);
  if (cs.length === 0) return undefined;
  const args: string[] = [];
  let from = 0;
  for (const c of cs) {
    args.push(inner.slice(from, c).trim());
    from = c + 1;
  }
  args.push(inner.slice(from).trim());
  return { head: s.slice(0, start), args, tail, ...(receiver !== undefined ? { receiver } : {}) };
}

function pad(n: number): string {
  return ' '.repeat(n);
}

function layoutAt(s: string, indent: number): string {
  const text = s.trim();
  if (text.length + indent <= WIDTH) return text;
  const t = ternary(text);
  if (t) {
    const test = text.slice(0, t.q).trim();
    const then = text.slice(t.q + 1, t.c).trim();
    const otherwise = text.slice(t.c + 1).trim();
    return `${layoutAt(test, indent)}\n${pad(indent)}? ${layoutAt(then, indent + 2)}\n${pad(indent)}: ${layoutAt(otherwise, indent + 2)}`;
  }
  for (const op of ['||', '&&', '+']) {
    const at = splits(text, op);
    if (at.length === 0) continue;
    const parts: string[] = [];
    let from = 0;
    for (const sp of at) {
      parts.push(text.slice(from, sp.at).trim());
      from = sp.at + sp.len;
    }
    parts.push(text.slice(from).trim());
    return parts.map((p, i) => (i === 0 ? layoutAt(p, indent) : `${pad(indent)}${op} ${layoutAt(p, indent + op.length + 1)}`)).join('\n');
  }
  for (const [open, close] of [
    ['(', ')'],
    ['[', ']'],
  ] as const) {
    if (!enclosed(text, open, close)) continue;
    const inner = text.slice(1, -1).trim();
    const cs = commas(inner);
    if (open === '(' && cs.length === 0) return `(\n${pad(indent + 2)}${layoutAt(inner, indent + 2)}\n${pad(indent)})`;
    if (open === '[') {
      const items: string[] = [];
      let from = 0;
      for (const c of cs) {
        items.push(inner.slice(from, c).trim());
        from = c + 1;
      }
      items.push(inner.slice(from).trim());
      return `[\n${items.map((x) => `${pad(indent + 2)}${layoutAt(x, indent + 2)}`).join(',\n')}\n${pad(indent)}]`;
    }
  }
  // A call whose arguments run long (`list.transformList(i, c, test, patches).flatten()`): one argument per line.
  const call = callParts(text);
  if (call) {
    const args = call.args.map((a) => `${pad(indent + 2)}${layoutAt(a, indent + 2)}`);
    const head = call.receiver === undefined ? call.head : `${layoutAt(call.receiver, indent)}${call.head.slice(call.receiver.length)}`;
    return `${head}(\n${args.join(',\n')}\n${pad(indent)})${call.tail}`;
  }
  // A struct or map literal (`JSONPatch{op: ..., path: ...}`, `{"k": v}`): one field per line.
  const struct = /^([A-Za-z_][A-Za-z0-9_.]*)?\{/.exec(text);
  if (struct && enclosed(text.slice(struct[1]?.length ?? 0), '{', '}')) {
    const head = struct[1] ?? '';
    const inner = text.slice(head.length + 1, -1).trim();
    const cs = commas(inner);
    if (cs.length > 0) {
      const fields: string[] = [];
      let from = 0;
      for (const c of cs) {
        fields.push(inner.slice(from, c).trim());
        from = c + 1;
      }
      fields.push(inner.slice(from).trim());
      const field = (f: string): string => {
        const name = /^(\??(?:[A-Za-z_][A-Za-z0-9_]*|"(?:[^"\\]|\\.)*"))\s*:\s*/.exec(f);
        if (!name) return layoutAt(f, indent + 2);
        return `${name[1]}: ${layoutAt(f.slice(name[0].length), indent + 4 + name[1]!.length)}`;
      };
      return `${head}{\n${fields.map((f) => `${pad(indent + 2)}${field(f)}`).join(',\n')}\n${pad(indent)}}`;
    }
  }
  return text;
}

/** `expr` laid out over several lines where it is wider than the page; unchanged where it fits, or where its author broke its lines already. */
export function layoutCel(expr: string): string {
  if (expr.includes('\n')) return expr;
  return layoutAt(expr, 0);
}
