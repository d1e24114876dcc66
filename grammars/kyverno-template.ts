/**
 * Kyverno's `{{ }}` template language as a chevrotain 11 lexer and parser, for static analysis of policy
 * strings: which holes a string has, where they are (for diagnostics), whether a string is exactly one hole
 * (typed substitution), and the JMESPath text of each hole.
 *
 *   template = { text | escape | variable } ;
 *   variable = ( "{{" | "{{-" ) { text | "{" { text } "}" | variable } "}}" ;
 *   escape   = "\{{" ;                     (the hole after it is literal text: pkg/engine/variables RegexEscpVariables)
 *
 * Nesting is resolved inside-out (a hole inside a hole is substituted first, then the outer text is scanned
 * again), which is what upstream's `RegexVariables` loop does: `(^|[^\\])(\{\{(?:\{[^{}]*\}|[^{}])*\}\})`
 * never matches a hole that contains `{{`, so the innermost one matches first. The *evaluation* of a string
 * is dynamic (a substituted value may itself contain `{{ }}`, which upstream evaluates again), so the runtime
 * in src/dialects/kyverno/variables.ts follows the upstream loop; this parser is for reading, not evaluating.
 * Anything this grammar does not accept (an unterminated `{{`, stray braces inside a hole) is plain text to
 * upstream's regular expression, and `parseTemplate` reports it as `{ ok: false }` so callers fall back to
 * treating the string dynamically.
 */
import { createToken, EmbeddedActionsParser, Lexer, type IToken, type TokenType } from 'chevrotain';

export type TemplateNode =
  | { kind: 'text'; text: string; start: number; end: number }
  /** `\{{`: the backslash is dropped at the end of substitution and the `{{` stays literal. */
  | { kind: 'escape'; start: number; end: number }
  | {
      kind: 'variable';
      /** `{{- expr }}`: substituted once, the result is not scanned for variables again. */
      shallow: boolean;
      body: TemplateNode[];
      /** Offsets of the whole hole, `{{` to `}}` inclusive-exclusive. */
      start: number;
      end: number;
    };

const EscapedOpen = createToken({ name: 'ESCAPED_OPEN', pattern: /\\\{\{/ });
const OpenShallow = createToken({ name: 'OPEN_SHALLOW', pattern: /\{\{-/ });
const Open = createToken({ name: 'OPEN', pattern: /\{\{/ });
const Close = createToken({ name: 'CLOSE', pattern: /\}\}/ });
const LBrace = createToken({ name: 'LBRACE', pattern: /\{/ });
const RBrace = createToken({ name: 'RBRACE', pattern: /\}/ });
const Backslash = createToken({ name: 'BACKSLASH', pattern: /\\/ });
// Everything but { } and \ , written as ranges: chevrotain cannot optimise a complement set.
const Text = createToken({ name: 'TEXT', pattern: /[\u0000-\u005B\u005D-\u007A\u007C\u007E-\uFFFF]+/, line_breaks: true });

const ALL_TOKENS: TokenType[] = [EscapedOpen, OpenShallow, Open, Close, LBrace, RBrace, Backslash, Text];
const lexer = new Lexer(ALL_TOKENS, { positionTracking: 'onlyOffset', ensureOptimizations: true });

const endOf = (t: IToken): number => t.startOffset + t.image.length;

class TemplateParser extends EmbeddedActionsParser {
  constructor() {
    super(ALL_TOKENS, { recoveryEnabled: false, maxLookahead: 1 });
    this.performSelfAnalysis();
  }

  readonly template = this.RULE('template', (): TemplateNode[] => {
    const nodes: TemplateNode[] = [];
    this.MANY(() => {
      this.OR([
        { ALT: () => nodes.push(this.SUBRULE(this.variable)) },
        {
          ALT: () => {
            const t = this.CONSUME(EscapedOpen);
            nodes.push({ kind: 'escape', start: t.startOffset, end: endOf(t) });
          },
        },
        { ALT: () => nodes.push(textNode(this.CONSUME(Text))) },
        { ALT: () => nodes.push(textNode(this.CONSUME(Backslash))) },
        // Outside a hole single braces and a stray `}}` are text.
        { ALT: () => nodes.push(textNode(this.CONSUME(LBrace))) },
        { ALT: () => nodes.push(textNode(this.CONSUME(RBrace))) },
        { ALT: () => nodes.push(textNode(this.CONSUME(Close))) },
      ]);
    });
    return nodes;
  });

  readonly variable = this.RULE('variable', (): TemplateNode => {
    let shallow = false;
    const open = this.OR([{ ALT: () => this.CONSUME(Open) }, { ALT: () => ((shallow = true), this.CONSUME(OpenShallow)) }]);
    const body: TemplateNode[] = [];
    this.MANY(() => {
      this.OR2([
        { ALT: () => body.push(this.SUBRULE2(this.variable)) },
        { ALT: () => body.push(textNode(this.CONSUME2(Text))) },
        { ALT: () => body.push(textNode(this.CONSUME2(Backslash))) },
        {
          // A single-brace group (a JMESPath multiselect hash) holds no braces itself.
          ALT: () => {
            const l = this.CONSUME2(LBrace);
            let inner = '';
            this.MANY2(() => {
              inner += this.OR3([{ ALT: () => this.CONSUME3(Text).image }, { ALT: () => this.CONSUME3(Backslash).image }]);
            });
            const r = this.CONSUME2(RBrace);
            body.push({ kind: 'text', text: `{${inner}}`, start: l.startOffset, end: endOf(r) });
          },
        },
      ]);
    });
    const close = this.CONSUME(Close);
    return { kind: 'variable', shallow, body, start: open.startOffset, end: endOf(close) };
  });
}

function textNode(t: IToken): TemplateNode {
  return { kind: 'text', text: t.image, start: t.startOffset, end: endOf(t) };
}

let instance: TemplateParser | undefined;

export type TemplateParse = { ok: true; nodes: TemplateNode[] } | { ok: false; message: string; offset: number };

/** Parses a policy string into text, escapes and (nested) holes. */
export function parseTemplate(text: string): TemplateParse {
  if (!text.includes('{{')) return { ok: true, nodes: text === '' ? [] : [{ kind: 'text', text, start: 0, end: text.length }] };
  const lexed = lexer.tokenize(text);
  if (lexed.errors.length > 0) return { ok: false, message: lexed.errors[0]!.message, offset: lexed.errors[0]!.offset };
  instance ??= new TemplateParser();
  instance.input = lexed.tokens;
  const nodes = instance.template();
  if (instance.errors.length > 0) {
    const e = instance.errors[0]!;
    return { ok: false, message: e.message, offset: Number.isFinite(e.token.startOffset) ? e.token.startOffset : text.length };
  }
  return { ok: true, nodes };
}

/** The JMESPath text of a hole whose body has no nested hole (upstream trims the body, drops `{{`/`}}`). */
export function holeText(v: Extract<TemplateNode, { kind: 'variable' }>): string | undefined {
  if (v.body.some((n) => n.kind !== 'text')) return undefined;
  return v.body
    .map((n) => (n.kind === 'text' ? n.text : ''))
    .join('')
    .trim();
}

/** Every hole of a parsed template, innermost first (the order upstream substitutes them in). */
export function holes(nodes: readonly TemplateNode[]): Extract<TemplateNode, { kind: 'variable' }>[] {
  const out: Extract<TemplateNode, { kind: 'variable' }>[] = [];
  const walk = (ns: readonly TemplateNode[]): void => {
    for (const n of ns) {
      if (n.kind !== 'variable') continue;
      walk(n.body);
      out.push(n);
    }
  };
  walk(nodes);
  return out;
}

/** True when the whole string is one hole (no text around it): its value keeps its JSON type. */
export function isWholeHole(nodes: readonly TemplateNode[]): boolean {
  return nodes.length === 1 && nodes[0]!.kind === 'variable';
}
