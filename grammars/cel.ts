/**
 * CEL lexer and parser (chevrotain 11), producing the AST of src/cel/ast.ts.
 *
 * The grammar mirrors cel-go's CEL.g4: precedence ?: < || < && < relations (== != < <= > >= in)
 * < + - < * / % < unary (! -) < member (. .? [] [?] calls) < primary. Message construction
 * `Qualified.Name{...}` is a primary alternative, recognised by looking ahead for IDENT (. IDENT)* '{'.
 * Limits follow cel-go's parser defaults (parser/options.go): 100,000 code points per expression and
 * a recursion depth of 250, both reported as syntax errors rather than a stack overflow.
 */
import { createToken, EmbeddedActionsParser, Lexer, type IToken, type TokenType } from 'chevrotain';
import { OP, type Expr, type MapEntry, type StructField } from '../src/cel/ast.js';
import { decodeDouble, decodeInt, decodeQuoted, decodeUint } from '../src/cel/literals.js';
import { expandCall, MacroError, type MacroOptions } from '../src/cel/macros.js';

export const CEL_MAX_CODE_POINTS = 100_000;
export const CEL_MAX_RECURSION_DEPTH = 250;

// ---------------------------------------------------------------------------------------------- tokens
const WhiteSpace = createToken({ name: 'WhiteSpace', pattern: /[ \t\r\n\f]+/, group: Lexer.SKIPPED });
const Comment = createToken({ name: 'Comment', pattern: /\/\/[^\n]*/, group: Lexer.SKIPPED });

const Identifier = createToken({ name: 'Identifier', pattern: /[_a-zA-Z][_a-zA-Z0-9]*/ });
const EscapedIdent = createToken({ name: 'EscapedIdent', pattern: /`[a-zA-Z0-9_.\-/ ]+`/ });
const In = createToken({ name: 'In', pattern: /in/, longer_alt: Identifier });
const True = createToken({ name: 'True', pattern: /true/, longer_alt: Identifier });
const False = createToken({ name: 'False', pattern: /false/, longer_alt: Identifier });
const Null = createToken({ name: 'Null', pattern: /null/, longer_alt: Identifier });

// Strings: triple-quoted before single-quoted; raw strings take backslashes literally (CEL.g4 STRING).
const STRING_BODY =
  String.raw`(?:[rR](?:"""[\s\S]*?"""|'''[\s\S]*?'''|"[^"\n\r]*"|'[^'\n\r]*')` +
  String.raw`|"""(?:\\[\s\S]|[^\\])*?"""|'''(?:\\[\s\S]|[^\\])*?'''|"(?:\\[^\n\r]|[^"\\\n\r])*"|'(?:\\[^\n\r]|[^'\\\n\r])*')`;
const Bytes = createToken({ name: 'Bytes', pattern: new RegExp(`[bB]${STRING_BODY}`) });
const Str = createToken({ name: 'String', pattern: new RegExp(STRING_BODY) });

const Float = createToken({
  name: 'Float',
  pattern: /(?:\d+\.\d+(?:[eE][+-]?\d+)?|\d+[eE][+-]?\d+|\.\d+(?:[eE][+-]?\d+)?)/,
});
const UInt = createToken({ name: 'UInt', pattern: /(?:0[xX][0-9a-fA-F]+|\d+)[uU]/ });
const Int = createToken({ name: 'Int', pattern: /0[xX][0-9a-fA-F]+|\d+/ });

const EqEq = createToken({ name: 'EqEq', pattern: /==/, label: "'=='" });
const NotEq = createToken({ name: 'NotEq', pattern: /!=/, label: "'!='" });
const LessEq = createToken({ name: 'LessEq', pattern: /<=/, label: "'<='" });
const Less = createToken({ name: 'Less', pattern: /</, label: "'<'" });
const GreaterEqual = createToken({ name: 'GreaterEqual', pattern: />=/, label: "'>='" });
const Greater = createToken({ name: 'Greater', pattern: />/, label: "'>'" });
const AndAnd = createToken({ name: 'AndAnd', pattern: /&&/, label: "'&&'" });
const OrOr = createToken({ name: 'OrOr', pattern: /\|\|/, label: "'||'" });
const Bang = createToken({ name: 'Bang', pattern: /!/, label: "'!'" });
const Plus = createToken({ name: 'Plus', pattern: /\+/, label: "'+'" });
const Minus = createToken({ name: 'Minus', pattern: /-/, label: "'-'" });
const Star = createToken({ name: 'Star', pattern: /\*/, label: "'*'" });
const Slash = createToken({ name: 'Slash', pattern: /\//, label: "'/'" });
const Percent = createToken({ name: 'Percent', pattern: /%/, label: "'%'" });
const Question = createToken({ name: 'Question', pattern: /\?/, label: "'?'" });
const Colon = createToken({ name: 'Colon', pattern: /:/, label: "':'" });
const Dot = createToken({ name: 'Dot', pattern: /\./, label: "'.'" });
const Comma = createToken({ name: 'Comma', pattern: /,/, label: "','" });
const LParen = createToken({ name: 'LParen', pattern: /\(/, label: "'('" });
const RParen = createToken({ name: 'RParen', pattern: /\)/, label: "')'" });
const LBracket = createToken({ name: 'LBracket', pattern: /\[/, label: "'['" });
const RBracket = createToken({ name: 'RBracket', pattern: /\]/, label: "']'" });
const LCurly = createToken({ name: 'LCurly', pattern: /\{/, label: "'{'" });
const RCurly = createToken({ name: 'RCurly', pattern: /\}/, label: "'}'" });

const ALL_TOKENS: TokenType[] = [
  WhiteSpace,
  Comment,
  Bytes,
  Str,
  Float,
  UInt,
  Int,
  In,
  True,
  False,
  Null,
  Identifier,
  EscapedIdent,
  EqEq,
  NotEq,
  LessEq,
  GreaterEqual,
  Less,
  Greater,
  AndAnd,
  OrOr,
  Bang,
  Plus,
  Minus,
  Star,
  Slash,
  Percent,
  Question,
  Colon,
  Dot,
  Comma,
  LParen,
  RParen,
  LBracket,
  RBracket,
  LCurly,
  RCurly,
];

/** cel-go's reserved identifiers (parser/parser.go reservedIds): an error as identifiers, fine as field or method names. */
const RESERVED = new Set([
  'as',
  'break',
  'const',
  'continue',
  'else',
  'for',
  'function',
  'if',
  'import',
  'let',
  'loop',
  'package',
  'namespace',
  'return',
  'var',
  'void',
  'while',
]);

export class CelSyntaxError extends Error {
  constructor(
    message: string,
    readonly start: number,
    readonly end: number,
  ) {
    super(message);
  }
}

/** Binary operator tokens: cel-go function name and precedence (higher binds tighter). */
const BINARY_OPS = new Map<TokenType, { fn: string; prec: number }>([
  [OrOr, { fn: OP.or, prec: 1 }],
  [AndAnd, { fn: OP.and, prec: 2 }],
  [EqEq, { fn: OP.eq, prec: 3 }],
  [NotEq, { fn: OP.ne, prec: 3 }],
  [Less, { fn: OP.lt, prec: 3 }],
  [LessEq, { fn: OP.le, prec: 3 }],
  [Greater, { fn: OP.gt, prec: 3 }],
  [GreaterEqual, { fn: OP.ge, prec: 3 }],
  [In, { fn: OP.in, prec: 3 }],
  [Plus, { fn: OP.add, prec: 4 }],
  [Minus, { fn: OP.sub, prec: 4 }],
  [Star, { fn: OP.mul, prec: 5 }],
  [Slash, { fn: OP.div, prec: 5 }],
  [Percent, { fn: OP.mod, prec: 5 }],
]);

/** The offset after the token (its image is the matched text; endOffset is not kept by every token pattern). */
function tokenEnd(t: IToken): number {
  return t.startOffset + t.image.length;
}

// ---------------------------------------------------------------------------------------------- parser
class CelParser extends EmbeddedActionsParser {
  depth = 0;
  macroOptions: MacroOptions = { twoVarComprehensions: true };

  constructor() {
    super(ALL_TOKENS, { maxLookahead: 3, recoveryEnabled: false });
    this.performSelfAnalysis();
  }

  private enter(t: IToken): void {
    if (++this.depth > CEL_MAX_RECURSION_DEPTH) {
      throw new CelSyntaxError(`expression recursion limit exceeded: ${CEL_MAX_RECURSION_DEPTH}`, t.startOffset, tokenEnd(t));
    }
  }

  private call(fn: string, target: Expr | undefined, args: Expr[], start: number, end: number, namePos: number): Expr {
    const node: Extract<Expr, { kind: 'call' }> = { kind: 'call', fn, target, args, start, end, namePos };
    try {
      return expandCall(node, this.macroOptions);
    } catch (e) {
      if (e instanceof MacroError) throw new CelSyntaxError(e.message, e.start, e.end);
      throw e;
    }
  }

  /** IDENT (. IDENT)* '{' ahead (after an optional leading dot): message construction, not a selection. */
  private messageAhead(): boolean {
    let i = 1;
    if (this.LA(i).tokenType === Dot) i++;
    if (this.LA(i).tokenType !== Identifier) return false;
    i++;
    for (;;) {
      const t = this.LA(i).tokenType;
      if (t === LCurly) return true;
      if (t !== Dot || this.LA(i + 1).tokenType !== Identifier) return false;
      i += 2;
    }
  }

  public expr = this.RULE('expr', (): Expr => {
    const first = this.LA(1);
    this.ACTION(() => this.enter(first));
    const cond = this.SUBRULE(this.binary);
    let result = cond;
    this.OPTION(() => {
      this.CONSUME(Question);
      const t = this.SUBRULE2(this.binary);
      this.CONSUME(Colon);
      const f = this.SUBRULE(this.expr);
      result = this.ACTION(() => this.call(OP.cond, undefined, [cond, t, f], cond.start, f.end, cond.end));
    });
    this.ACTION(() => this.depth--);
    return result;
  });

  /**
   * All binary operators in one rule: operands and operators are collected flat and the tree is built
   * by precedence (|| < && < relations < + - < * / %, all left-associative, as CEL.g4). One rule
   * instead of one per precedence level keeps the JS stack per nesting level small enough for
   * cel-go's 250 levels under chevrotain (about 40% of the frames of the five-rule form).
   */
  private binary = this.RULE('binary', (): Expr => {
    const operands: Expr[] = [];
    // Operands are unary expressions (CEL.g4 unary: member | '!'+ member | '-'+ member), parsed inline
    // rather than by a rule of their own for the same stack reason.
    const prefix: IToken[] = [];
    this.MANY(() => prefix.push(this.OR([{ ALT: () => this.CONSUME3(Bang) }, { ALT: () => this.CONSUME3(Minus) }])));
    const sign = this.ACTION(() => this.literalSign(prefix));
    const first = this.SUBRULE(this.member, { ARGS: [sign] });
    operands.push(this.ACTION(() => this.applyPrefix(prefix, sign, first)));
    const operators: IToken[] = [];
    this.MANY2(() => {
      operators.push(
        this.OR2([
          { ALT: () => this.CONSUME(OrOr) },
          { ALT: () => this.CONSUME(AndAnd) },
          { ALT: () => this.CONSUME(EqEq) },
          { ALT: () => this.CONSUME(NotEq) },
          { ALT: () => this.CONSUME(Less) },
          { ALT: () => this.CONSUME(LessEq) },
          { ALT: () => this.CONSUME(Greater) },
          { ALT: () => this.CONSUME(GreaterEqual) },
          { ALT: () => this.CONSUME(In) },
          { ALT: () => this.CONSUME(Plus) },
          { ALT: () => this.CONSUME(Minus) },
          { ALT: () => this.CONSUME(Star) },
          { ALT: () => this.CONSUME(Slash) },
          { ALT: () => this.CONSUME(Percent) },
        ]),
      );
      const prefix2: IToken[] = [];
      this.MANY3(() => prefix2.push(this.OR3([{ ALT: () => this.CONSUME4(Bang) }, { ALT: () => this.CONSUME4(Minus) }])));
      const sign2 = this.ACTION(() => this.literalSign(prefix2));
      const next = this.SUBRULE2(this.member, { ARGS: [sign2] });
      operands.push(this.ACTION(() => this.applyPrefix(prefix2, sign2, next)));
    });
    return this.ACTION(() => (operators.length === 0 ? operands[0]! : this.buildBinary(operands, operators)));
  });

  /**
   * A single '-' before a numeric literal is the literal's sign (CEL.g4 literal: sign=MINUS? NUM_INT),
   * which is how -9223372036854775808 stays in range; it is then not an operator.
   */
  private literalSign(prefix: IToken[]): IToken | undefined {
    if (prefix.length !== 1 || prefix[0]!.tokenType !== Minus) return undefined;
    const next = this.LA(1).tokenType;
    return next === Int || next === Float ? prefix[0] : undefined;
  }

  /** `!`s or `-`s before an operand: an odd count applies the operator once; mixing them is not CEL. */
  private applyPrefix(prefix: IToken[], sign: IToken | undefined, m: Expr): Expr {
    if (prefix.length === 0 || sign !== undefined) return m;
    const kind = prefix[0]!.tokenType;
    const bad = prefix.find((t) => t.tokenType !== kind);
    if (bad) throw new CelSyntaxError(`Syntax error: mismatched input '${bad.image}'`, bad.startOffset, tokenEnd(bad));
    if (prefix.length % 2 === 0) return m;
    const op = kind === Bang ? OP.not : OP.neg;
    return this.call(op, undefined, [m], prefix[0]!.startOffset, m.end, prefix[0]!.startOffset);
  }

  /** Shunting-yard over the flat operand/operator lists (iterative: no recursion per operator). */
  private buildBinary(operands: Expr[], operators: IToken[]): Expr {
    const values: Expr[] = [operands[0]!];
    const pending: IToken[] = [];
    const reduce = (): void => {
      const op = pending.pop()!;
      const right = values.pop()!;
      const left = values.pop()!;
      values.push(this.call(BINARY_OPS.get(op.tokenType)!.fn, undefined, [left, right], left.start, right.end, op.startOffset));
    };
    for (let i = 0; i < operators.length; i++) {
      const op = operators[i]!;
      const prec = BINARY_OPS.get(op.tokenType)!.prec;
      while (pending.length > 0 && BINARY_OPS.get(pending[pending.length - 1]!.tokenType)!.prec >= prec) reduce();
      pending.push(op);
      values.push(operands[i + 1]!);
    }
    while (pending.length > 0) reduce();
    return values[0]!;
  }

  private member = this.RULE('member', (sign?: IToken): Expr => {
    let e = this.SUBRULE(this.primary, { ARGS: [sign] });
    this.MANY(() => {
      this.OR([
        {
          ALT: () => {
            const dot = this.CONSUME(Dot);
            const opt = this.OPTION(() => this.CONSUME(Question));
            const name = this.OR2([{ ALT: () => this.CONSUME(Identifier) }, { ALT: () => this.CONSUME(EscapedIdent) }]);
            const args = this.OPTION2(() => {
              this.CONSUME(LParen);
              const list = this.SUBRULE(this.exprList);
              const close = this.CONSUME(RParen);
              return { list, close };
            });
            e = this.ACTION(() => {
              if (args) {
                if (opt || name.tokenType === EscapedIdent) throw new CelSyntaxError(`Syntax error: mismatched input '('`, dot.startOffset, tokenEnd(args.close));
                return this.call(name.image, e, args.list, e.start, tokenEnd(args.close), name.startOffset);
              }
              const field = name.tokenType === EscapedIdent ? name.image.slice(1, -1) : name.image;
              return { kind: 'select', operand: e, field, testOnly: false, optional: opt !== undefined, start: e.start, end: tokenEnd(name) };
            });
          },
        },
        {
          ALT: () => {
            const open = this.CONSUME(LBracket);
            const opt = this.OPTION3(() => this.CONSUME2(Question));
            const index = this.SUBRULE(this.expr);
            const close = this.CONSUME(RBracket);
            e = this.ACTION(() =>
              opt
                ? { kind: 'index', operand: e, index, optional: true, start: e.start, end: tokenEnd(close) }
                : { kind: 'index', operand: e, index, optional: false, start: e.start, end: tokenEnd(close) },
            );
            void open;
          },
        },
      ]);
    });
    return e;
  });

  private exprList = this.RULE('exprList', (): Expr[] => {
    const out: Expr[] = [];
    this.MANY_SEP({ SEP: Comma, DEF: () => out.push(this.SUBRULE(this.expr)) });
    return out;
  });

  private primary = this.RULE('primary', (sign?: IToken): Expr => {
    return this.OR({
      IGNORE_AMBIGUITIES: true,
      DEF: [
      { GATE: () => sign !== undefined, ALT: () => this.SUBRULE(this.numberLiteral, { ARGS: [sign] }) },
      { GATE: () => this.messageAhead(), ALT: () => this.SUBRULE(this.message) },
      {
        ALT: () => {
          const dot = this.OPTION(() => this.CONSUME(Dot));
          const id = this.CONSUME(Identifier);
          const args = this.OPTION2(() => {
            this.CONSUME(LParen);
            const list = this.SUBRULE(this.exprList);
            const close = this.CONSUME(RParen);
            return { list, close };
          });
          return this.ACTION(() => {
            const start = dot ? dot.startOffset : id.startOffset;
            if (args) {
              const fn = dot ? `.${id.image}` : id.image;
              return this.call(fn, undefined, args.list, start, tokenEnd(args.close), id.startOffset);
            }
            if (RESERVED.has(id.image)) throw new CelSyntaxError(`reserved identifier: ${id.image}`, id.startOffset, tokenEnd(id));
            const node: Expr = { kind: 'ident', name: id.image, start, end: tokenEnd(id) };
            if (dot) node.leadingDot = true;
            return node;
          });
        },
      },
      {
        ALT: () => {
          const open = this.CONSUME2(LParen);
          const e = this.SUBRULE(this.expr);
          const close = this.CONSUME2(RParen);
          void open;
          void close;
          return e;
        },
      },
      { ALT: () => this.SUBRULE(this.listLiteral) },
      { ALT: () => this.SUBRULE(this.mapLiteral) },
      { ALT: () => this.SUBRULE2(this.numberLiteral) },
      {
        ALT: () => {
          const t = this.CONSUME(Str);
          return this.ACTION(() => {
            const d = decodeQuoted(t.image, false);
            if ('error' in d) throw new CelSyntaxError(d.error, t.startOffset, tokenEnd(t));
            return { kind: 'literal', lit: { type: 'string', value: d.value as string }, start: t.startOffset, end: tokenEnd(t) };
          });
        },
      },
      {
        ALT: () => {
          const t = this.CONSUME(Bytes);
          return this.ACTION(() => {
            const d = decodeQuoted(t.image, true);
            if ('error' in d) throw new CelSyntaxError(d.error, t.startOffset, tokenEnd(t));
            return { kind: 'literal', lit: { type: 'bytes', value: d.value as Uint8Array }, start: t.startOffset, end: tokenEnd(t) };
          });
        },
      },
      {
        ALT: () => {
          const t = this.CONSUME(True);
          return { kind: 'literal', lit: { type: 'bool', value: true }, start: t.startOffset, end: tokenEnd(t) };
        },
      },
      {
        ALT: () => {
          const t = this.CONSUME(False);
          return { kind: 'literal', lit: { type: 'bool', value: false }, start: t.startOffset, end: tokenEnd(t) };
        },
      },
      {
        ALT: () => {
          const t = this.CONSUME(Null);
          return { kind: 'literal', lit: { type: 'null' }, start: t.startOffset, end: tokenEnd(t) };
        },
      },
    ]});
  });

  private numberLiteral = this.RULE('numberLiteral', (sign?: IToken): Expr => {
    const t = this.OR([{ ALT: () => this.CONSUME(Int) }, { ALT: () => this.CONSUME(UInt) }, { ALT: () => this.CONSUME(Float) }]);
    return this.ACTION(() => {
      const start = sign ? sign.startOffset : t.startOffset;
      const end = tokenEnd(t);
      if (t.tokenType === Int) {
        const v = decodeInt(t.image, sign !== undefined);
        if (typeof v === 'string') throw new CelSyntaxError(v, start, end);
        return { kind: 'literal', lit: { type: 'int', value: v }, start, end };
      }
      if (t.tokenType === UInt) {
        if (sign) throw new CelSyntaxError('invalid uint literal', start, end);
        const v = decodeUint(t.image);
        if (typeof v === 'string') throw new CelSyntaxError(v, start, end);
        return { kind: 'literal', lit: { type: 'uint', value: v }, start, end };
      }
      const v = decodeDouble(t.image, sign !== undefined);
      if (typeof v === 'string') throw new CelSyntaxError(v, start, end);
      return { kind: 'literal', lit: { type: 'double', value: v }, start, end };
    });
  });

  private listLiteral = this.RULE('listLiteral', (): Expr => {
    const open = this.CONSUME(LBracket);
    const elements: Expr[] = [];
    const optional: boolean[] = [];
    this.OPTION(() => {
      const first = () => {
        const q = this.OPTION2(() => this.CONSUME(Question));
        elements.push(this.SUBRULE(this.expr));
        optional.push(q !== undefined);
      };
      first();
      this.MANY({
        GATE: () => this.LA(2).tokenType !== RBracket,
        DEF: () => {
          this.CONSUME(Comma);
          const q = this.OPTION3(() => this.CONSUME2(Question));
          elements.push(this.SUBRULE2(this.expr));
          optional.push(q !== undefined);
        },
      });
      this.OPTION4(() => this.CONSUME2(Comma));
    });
    const close = this.CONSUME(RBracket);
    return { kind: 'list', elements, optional, start: open.startOffset, end: tokenEnd(close) };
  });

  private mapLiteral = this.RULE('mapLiteral', (): Expr => {
    const open = this.CONSUME(LCurly);
    const entries: MapEntry[] = [];
    const entry = (n: 1 | 2) => {
      const q = n === 1 ? this.OPTION2(() => this.CONSUME(Question)) : this.OPTION3(() => this.CONSUME2(Question));
      const key = n === 1 ? this.SUBRULE(this.expr) : this.SUBRULE2(this.expr);
      if (n === 1) this.CONSUME(Colon);
      else this.CONSUME2(Colon);
      const value = n === 1 ? this.SUBRULE3(this.expr) : this.SUBRULE4(this.expr);
      entries.push({ key, value, optional: q !== undefined });
    };
    this.OPTION(() => {
      entry(1);
      this.MANY({
        GATE: () => this.LA(2).tokenType !== RCurly,
        DEF: () => {
          this.CONSUME(Comma);
          entry(2);
        },
      });
      this.OPTION4(() => this.CONSUME2(Comma));
    });
    const close = this.CONSUME(RCurly);
    return { kind: 'map', entries, start: open.startOffset, end: tokenEnd(close) };
  });

  private message = this.RULE('message', (): Expr => {
    const dot = this.OPTION(() => this.CONSUME(Dot));
    const parts: IToken[] = [this.CONSUME(Identifier)];
    this.MANY(() => {
      this.CONSUME2(Dot);
      parts.push(this.CONSUME2(Identifier));
    });
    this.CONSUME(LCurly);
    const fields: StructField[] = [];
    const field = (n: 1 | 2) => {
      const q = n === 1 ? this.OPTION2(() => this.CONSUME(Question)) : this.OPTION3(() => this.CONSUME2(Question));
      const name =
        n === 1
          ? this.OR([{ ALT: () => this.CONSUME3(Identifier) }, { ALT: () => this.CONSUME(EscapedIdent) }])
          : this.OR2([{ ALT: () => this.CONSUME4(Identifier) }, { ALT: () => this.CONSUME2(EscapedIdent) }]);
      if (n === 1) this.CONSUME(Colon);
      else this.CONSUME2(Colon);
      const value = n === 1 ? this.SUBRULE(this.expr) : this.SUBRULE2(this.expr);
      this.ACTION(() => {
        const text = name.tokenType === EscapedIdent ? name.image.slice(1, -1) : name.image;
        fields.push({ name: text, value, optional: q !== undefined, namePos: { start: name.startOffset, end: tokenEnd(name) } });
      });
    };
    this.OPTION4(() => {
      field(1);
      this.MANY2({
        GATE: () => this.LA(2).tokenType !== RCurly,
        DEF: () => {
          this.CONSUME(Comma);
          field(2);
        },
      });
      this.OPTION5(() => this.CONSUME2(Comma));
    });
    const close = this.CONSUME(RCurly);
    return this.ACTION(() => {
      const typeName = (dot ? '.' : '') + parts.map((p) => p.image).join('.');
      const start = dot ? dot.startOffset : parts[0]!.startOffset;
      return { kind: 'struct', typeName, fields, start, end: tokenEnd(close) } as Expr;
    });
  });
}

let lexer: Lexer | undefined;
let parser: CelParser | undefined;

export type ParseOutcome = { ok: true; expr: Expr } | { ok: false; message: string; start: number; end: number };

function describe(t: IToken): string {
  return t.tokenType.name === 'EOF' ? '<EOF>' : t.image;
}

/** Parse one CEL expression. Never throws: failures come back with the offending offset range. */
export function parseCel(source: string, options: Partial<MacroOptions> = {}): ParseOutcome {
  // cel-go counts code points before lexing (parser.go Parse: expressionSizeCodePointLimit).
  if (source.length > CEL_MAX_CODE_POINTS) {
    let n = 0;
    for (let i = 0; i < source.length; i++) {
      const c = source.charCodeAt(i);
      if (c < 0xdc00 || c > 0xdfff) n++;
    }
    if (n > CEL_MAX_CODE_POINTS) {
      return { ok: false, message: `expression code point size exceeds limit: size: ${n}, limit ${CEL_MAX_CODE_POINTS}`, start: 0, end: 1 };
    }
  }
  lexer ??= new Lexer(ALL_TOKENS, { ensureOptimizations: false, positionTracking: 'onlyOffset' });
  parser ??= new CelParser();
  const lexed = lexer.tokenize(source);
  if (lexed.errors.length > 0) {
    const e = lexed.errors[0]!;
    const ch = source.slice(e.offset, e.offset + 1);
    const message = ch === '"' || ch === "'" ? 'Syntax error: unterminated string literal' : `Syntax error: token recognition error at: '${ch}'`;
    return { ok: false, message, start: e.offset, end: e.offset + Math.max(1, e.length) };
  }
  // Bracket depth pre-check: a deeply nested expression fails before the recursive descent starts.
  let depth = 0;
  for (const t of lexed.tokens) {
    const tt = t.tokenType;
    if (tt === LParen || tt === LBracket || tt === LCurly) {
      if (++depth > CEL_MAX_RECURSION_DEPTH) {
        return { ok: false, message: `expression recursion limit exceeded: ${CEL_MAX_RECURSION_DEPTH}`, start: t.startOffset, end: tokenEnd(t) };
      }
    } else if (tt === RParen || tt === RBracket || tt === RCurly) depth--;
  }
  parser.input = lexed.tokens;
  parser.depth = 0;
  parser.macroOptions = { twoVarComprehensions: options.twoVarComprehensions ?? true };
  let expr: Expr | undefined;
  try {
    expr = parser.expr();
  } catch (e) {
    if (e instanceof CelSyntaxError) return { ok: false, message: e.message, start: e.start, end: e.end };
    if (e instanceof RangeError) return { ok: false, message: `expression recursion limit exceeded: ${CEL_MAX_RECURSION_DEPTH}`, start: 0, end: 1 };
    throw e;
  }
  if (parser.errors.length > 0) {
    const err = parser.errors[0]!;
    const t = err.token;
    const at = t.tokenType.name === 'EOF' ? source.length : t.startOffset;
    const found = describe(t);
    const message =
      err.name === 'NotAllInputParsedException'
        ? `Syntax error: extraneous input '${found}'`
        : err.name === 'NoViableAltException' || err.name === 'EarlyExitException'
          ? `Syntax error: mismatched input '${found}'`
          : `Syntax error: ${err.message.replace(/^Expecting (?:token of type )?--> (.*?) <-- but found --> '(.*)' <--$/s, (_m, exp: string) => `mismatched input '${found}' expecting ${labelOf(exp)}`)}`;
    return { ok: false, message, start: at, end: t.tokenType.name === 'EOF' ? at + 1 : tokenEnd(t) };
  }
  const deep = tooDeep(expr!);
  if (deep) return { ok: false, message: `expression recursion limit exceeded: ${CEL_MAX_RECURSION_DEPTH}`, start: deep.start, end: Math.max(deep.end, deep.start + 1) };
  return { ok: true, expr: expr! };
}

/**
 * The first node nested deeper than cel-go's parser allows. cel-go's recursion listener counts, per grammar
 * rule, the contexts open at once: a chain such as `1 + 1 + ...` or `a.b.c...` opens one per link. The flat
 * operand lists here build such chains without recursion, so the tree is checked, iteratively: a run of nodes
 * of one kind nested in each other (one grammar rule) past the limit, or any nesting past four times it
 * (where several rules each stay under it), which nothing cel-go accepts reaches in practice.
 */
function tooDeep(root: Expr): Expr | undefined {
  // Expression nodes carry `kind`; entries of struct and map literals do not, but hold expressions.
  const stack: [object, number, string, number][] = [[root, 1, '', 0]];
  while (stack.length > 0) {
    const [node, depth, parentClass, run] = stack.pop()!;
    const isExpr = 'kind' in node;
    let cls = parentClass;
    let r = run;
    let d = depth;
    if (isExpr) {
      cls = ruleOf(node as Expr);
      r = cls === parentClass ? run + 1 : 1;
      if (r > CEL_MAX_RECURSION_DEPTH || depth > 4 * CEL_MAX_RECURSION_DEPTH) return node as Expr;
      d = depth + 1;
    }
    for (const v of Array.isArray(node) ? node : Object.values(node)) {
      if (v !== null && typeof v === 'object' && !(v instanceof Uint8Array)) stack.push([v as object, d, cls, r]);
    }
  }
  return undefined;
}

/** The kind of link a node adds to a chain: its operator (`_+_`, `_&&_`, ...), or its node kind. */
function ruleOf(e: Expr): string {
  return e.kind === 'call' && e.target === undefined && /^_.*_$/.test(e.fn) ? e.fn : e.kind;
}

function labelOf(name: string): string {
  const t = ALL_TOKENS.find((x) => x.name === name);
  return (t?.LABEL as string | undefined) ?? name;
}

export const celTokens = { Identifier, LParen, RParen } as const;
