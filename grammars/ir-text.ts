/**
 * The grammar of one line of the IR text form (src/ir/print.ts writes it; src/ir/parse-text.ts reads the
 * indentation structure and calls `parseLine` for each line).
 *
 *   line      := 'policy' name | 'semantics' NAME option* | 'match' json | 'guard' guard | 'rule' name | 'else'
 *              | op | step
 *   op        := 'set' PATH '=' value | 'remove' PATH | 'setMembers' PATH NAME valueList
 *              | 'merge' NAME PATH '=' value | 'image' PATH option* | 'jsonPatch' NAME ('from' value)? | 'when' guard
 *              | 'forEach' PATH 'in' (PATH | value) ('index' name)? 'order' NAME | 'let' 'lazy'? name '=' value
 *              | 'fail' STRING
 *   step      := ('add'|'remove'|'replace'|'move'|'copy'|'test') STRING ('from' STRING)? ('=' value)?
 *   guard     := ('exists'|'notExists') PATH | ('eq'|'neq') PATH value | ('in'|'notIn') PATH valueList
 *              | 'match' PATH STRING | ('and'|'or') '(' (guard (',' guard)*)? ')' | 'not' '(' guard ')'
 *              | 'true' | 'false' | ('cel'|'jmes') STRING
 *   value     := json | 'ref' PATH | 'fromMetadata' NAME | ('cel'|'jmes') STRING | 'templated' NAME json
 *              | 'template' (STRING | jsonArray) | 'external' option*
 *   valueList := '[' (value (',' value)*)? ']'
 *   option    := NAME '=' (STRING | NUMBER | NAME)
 *   name      := NAME | STRING
 *
 * PATH is one token (the path grammar, grammars/ir-path.ts, parses its inside), so a path reads as one word.
 */
import { createToken, EmbeddedActionsParser, Lexer, type IToken, type TokenType } from 'chevrotain';
import type { Origin } from '../src/diagnostics/span.js';
import type { JsonObject, JsonValue } from '../src/ir/json.js';
import type { ExprSource, Guard, JsonPatchStep, Op, Semantics, TemplatePart, Value } from '../src/ir/nodes.js';
import type { Path } from '../src/ir/path.js';
import { parseTemplateText } from '../src/dialects/ir/template.js';
import { parsePathSyntax, PATH_ROOTS, PathSyntaxError } from './ir-path.js';

/** A syntax error at the half-open range [start, end) of the line's content. */
export class LineSyntaxError extends Error {
  constructor(
    message: string,
    readonly start: number,
    readonly end: number,
  ) {
    super(message);
  }
}

export type Statement =
  | { kind: 'policy'; name: string }
  | { kind: 'semantics'; semantics: Semantics }
  | { kind: 'match'; json: JsonValue }
  | { kind: 'guard'; guard: Guard }
  | { kind: 'rule'; name: string }
  | { kind: 'else' }
  | { kind: 'op'; op: Op }
  | { kind: 'step'; step: JsonPatchStep };

/** What the caller supplies per line: the origin of its nodes and, optionally, of each path (by offsets). */
export interface LineContext {
  origin: Origin;
  pathOrigin?: (start: number, end: number) => Origin | undefined;
}

// ---------------------------------------------------------------------------------------------- tokens

const NAME_PATTERN = /[A-Za-z_$][A-Za-z0-9_$-]*/;
const WhiteSpace = createToken({ name: 'WhiteSpace', pattern: /[ \t]+/, group: Lexer.SKIPPED });
const STRING_SRC = '"(?:[^"\\\\\\u0000-\\u001f]|\\\\(?:["\\\\/bfnrt]|u[0-9a-fA-F]{4}))*"';
const StringLit = createToken({ name: 'String', pattern: new RegExp(STRING_SRC) });
const PathTok = createToken({
  name: 'Path',
  pattern: new RegExp(
    `(?:${PATH_ROOTS.join('|')})(?![A-Za-z0-9_$-])` +
      `(?:\\.(?:[A-Za-z_$][A-Za-z0-9_$-]*|${STRING_SRC})|\\[(?:[^\\]"]|${STRING_SRC})*\\]|!exists|!absent)*`,
  ),
  line_breaks: false,
});
const NumberLit = createToken({ name: 'Number', pattern: /-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][+-]?\d+)?/ });
const NameCat = createToken({ name: 'NameCat', pattern: Lexer.NA });
const Name = createToken({ name: 'Name', pattern: NAME_PATTERN, categories: [NameCat] });
const Equals = createToken({ name: 'Equals', pattern: /=/ });
const LParen = createToken({ name: 'LParen', pattern: /\(/ });
const RParen = createToken({ name: 'RParen', pattern: /\)/ });
const LBracket = createToken({ name: 'LBracket', pattern: /\[/ });
const RBracket = createToken({ name: 'RBracket', pattern: /\]/ });
const LBrace = createToken({ name: 'LBrace', pattern: /\{/ });
const RBrace = createToken({ name: 'RBrace', pattern: /\}/ });
const Comma = createToken({ name: 'Comma', pattern: /,/ });
const Colon = createToken({ name: 'Colon', pattern: /:/ });

const KEYWORDS = [
  'policy', 'semantics', 'match', 'guard', 'rule', 'else',
  'set', 'remove', 'setMembers', 'merge', 'image', 'jsonPatch', 'when', 'forEach', 'let', 'fail', 'in', 'index', 'order',
  'exists', 'notExists', 'eq', 'neq', 'notIn', 'and', 'or', 'not', 'true', 'false', 'null',
  'cel', 'jmes', 'ref', 'fromMetadata', 'template', 'templated', 'external', 'lazy',
  'add', 'replace', 'move', 'copy', 'test', 'from',
] as const;
type Keyword = (typeof KEYWORDS)[number];

const KW = Object.fromEntries(
  KEYWORDS.map((k) => [k, createToken({ name: `Kw_${k}`, pattern: new RegExp(k), longer_alt: Name, categories: [NameCat] })]),
) as Record<Keyword, TokenType>;

// Longer keywords first: `index` must not lex as `in` followed by a name.
const KEYWORD_TOKENS = [...KEYWORDS].sort((a, b) => b.length - a.length).map((k) => KW[k]);

const ALL_TOKENS: TokenType[] = [
  WhiteSpace,
  StringLit,
  PathTok,
  NumberLit,
  ...KEYWORD_TOKENS,
  NameCat,
  Name,
  Equals,
  LParen,
  RParen,
  LBracket,
  RBracket,
  LBrace,
  RBrace,
  Comma,
  Colon,
];

const lineLexer = new Lexer(ALL_TOKENS, { positionTracking: 'onlyOffset', ensureOptimizations: false });

// ---------------------------------------------------------------------------------------------- parser

type Options = { key: IToken; value: IToken }[];

function fail(message: string, tok: IToken): never {
  throw new LineSyntaxError(message, tok.startOffset, tok.startOffset + Math.max(1, tok.image.length));
}

function stringOf(tok: IToken): string {
  return JSON.parse(tok.image) as string;
}

function oneOf<T extends string>(tok: IToken, what: string, allowed: readonly T[]): T {
  if ((allowed as readonly string[]).includes(tok.image)) return tok.image as T;
  return fail(`${what} must be one of ${allowed.join(', ')}, got ${tok.image}`, tok);
}

class LineParser extends EmbeddedActionsParser {
  ctx: LineContext = { origin: { file: '', line: 0, col: 0, endLine: 0, endCol: 0, dialect: 'ir' } };

  constructor() {
    super(ALL_TOKENS, { recoveryEnabled: false, maxLookahead: 2 });
    this.performSelfAnalysis();
  }

  private origin(): Origin {
    return this.ctx.origin;
  }

  private pathOf(tok: IToken): Path {
    try {
      const p = parsePathSyntax(tok.image);
      const origin = this.ctx.pathOrigin?.(tok.startOffset, tok.startOffset + tok.image.length);
      return origin ? { root: p.root, segments: p.segments, origin } : { root: p.root, segments: p.segments };
    } catch (e) {
      if (!(e instanceof PathSyntaxError)) throw e;
      throw new LineSyntaxError(`invalid path: ${e.message}`, tok.startOffset + e.start, tok.startOffset + Math.max(e.end, e.start + 1));
    }
  }

  private expr(tok: IToken): ExprSource {
    return { text: stringOf(tok), origin: this.origin() };
  }

  public line = this.RULE('line', (): Statement => {
    return this.OR([
      {
        ALT: () => {
          this.CONSUME(KW.policy);
          const name = this.SUBRULE(this.name);
          return { kind: 'policy', name } as Statement;
        },
      },
      {
        ALT: () => {
          this.CONSUME(KW.semantics);
          const order = this.CONSUME(NameCat);
          const opts = this.SUBRULE(this.options);
          return this.ACTION(() => ({ kind: 'semantics', semantics: semanticsOf(order, opts) })) as Statement;
        },
      },
      {
        ALT: () => {
          this.CONSUME(KW.match);
          const json = this.SUBRULE(this.json);
          return { kind: 'match', json } as Statement;
        },
      },
      {
        ALT: () => {
          this.CONSUME(KW.guard);
          const guard = this.SUBRULE(this.guard);
          return { kind: 'guard', guard } as Statement;
        },
      },
      {
        ALT: () => {
          this.CONSUME(KW.rule);
          const name = this.SUBRULE1(this.name);
          return { kind: 'rule', name } as Statement;
        },
      },
      { ALT: () => (this.CONSUME(KW.else), { kind: 'else' }) as Statement },
      { ALT: () => ({ kind: 'op', op: this.SUBRULE(this.op) }) as Statement },
      { ALT: () => ({ kind: 'step', step: this.SUBRULE(this.step) }) as Statement },
    ]);
  });

  private name = this.RULE('name', (): string => {
    return this.OR([
      { ALT: () => this.CONSUME(NameCat).image },
      {
        ALT: () => {
          const t = this.CONSUME(StringLit);
          return this.ACTION(() => stringOf(t)) as string;
        },
      },
    ]);
  });

  private options = this.RULE('options', (): Options => {
    const out: Options = [];
    // The gate keeps `external …` options from swallowing the `index`/`order` words of an enclosing forEach.
    this.MANY({
      GATE: () => this.LA(2).tokenType === Equals,
      DEF: () => {
        const key = this.CONSUME(NameCat);
        this.CONSUME(Equals);
        const value = this.OR([
          { ALT: () => this.CONSUME(StringLit) },
          { ALT: () => this.CONSUME(NumberLit) },
          { ALT: () => this.CONSUME1(NameCat) },
        ]);
        out.push({ key, value });
      },
    });
    return out;
  });

  // ------------------------------------------------------------------------------------------ ops

  private op = this.RULE('op', (): Op => {
    return this.OR([
      {
        ALT: () => {
          this.CONSUME(KW.set);
          const p = this.CONSUME(PathTok);
          this.CONSUME(Equals);
          const value = this.SUBRULE(this.value);
          return this.ACTION(() => ({ kind: 'set', path: this.pathOf(p), value, origin: this.origin() })) as Op;
        },
      },
      {
        ALT: () => {
          this.CONSUME(KW.remove);
          const p = this.CONSUME1(PathTok);
          return this.ACTION(() => ({ kind: 'remove', path: this.pathOf(p), origin: this.origin() })) as Op;
        },
      },
      {
        ALT: () => {
          this.CONSUME(KW.setMembers);
          const p = this.CONSUME2(PathTok);
          const mode = this.CONSUME(NameCat);
          const values = this.SUBRULE(this.valueList);
          return this.ACTION(() => ({
            kind: 'setMembers',
            path: this.pathOf(p),
            values,
            mode: oneOf(mode, 'setMembers mode', ['merge', 'prune'] as const),
            origin: this.origin(),
          })) as Op;
        },
      },
      {
        ALT: () => {
          this.CONSUME(KW.merge);
          const strategy = this.CONSUME1(NameCat);
          const p = this.CONSUME3(PathTok);
          this.CONSUME1(Equals);
          const value = this.SUBRULE1(this.value);
          return this.ACTION(() => ({
            kind: 'merge',
            path: this.pathOf(p),
            value,
            strategy: oneOf(strategy, 'merge strategy', ['json', 'smp', 'ssa'] as const),
            origin: this.origin(),
          })) as Op;
        },
      },
      {
        ALT: () => {
          this.CONSUME(KW.image);
          const p = this.CONSUME4(PathTok);
          const opts = this.SUBRULE(this.options);
          return this.ACTION(() => imageOf(this.pathOf(p), opts, this.origin())) as Op;
        },
      },
      {
        ALT: () => {
          this.CONSUME(KW.jsonPatch);
          const profile = this.CONSUME2(NameCat);
          let stepsFrom: Value | undefined;
          this.OPTION(() => {
            this.CONSUME(KW.from);
            stepsFrom = this.SUBRULE3(this.value);
          });
          return this.ACTION(() => {
            const op = { kind: 'jsonPatch', steps: [] as JsonPatchStep[] } as Op & { kind: 'jsonPatch' };
            if (stepsFrom) op.stepsFrom = stepsFrom;
            op.profile = oneOf(profile, 'jsonPatch profile', ['rfc6902', 'kyverno', 'evanphx-v4'] as const);
            op.origin = this.origin();
            return op;
          }) as Op;
        },
      },
      {
        ALT: () => {
          this.CONSUME(KW.when);
          const guard = this.SUBRULE(this.guard);
          return { kind: 'when', guard, then: [], origin: this.origin() } as Op;
        },
      },
      { ALT: () => this.SUBRULE(this.forEach) },
      {
        ALT: () => {
          this.CONSUME(KW.let);
          // `let lazy = 1` binds a variable named lazy; `let lazy x = 1` binds x lazily.
          const lazy = this.OPTION1({ GATE: () => this.LA(2).tokenType !== Equals, DEF: () => this.CONSUME(KW.lazy) }) !== undefined;
          const name = this.SUBRULE(this.name);
          this.CONSUME2(Equals);
          const value = this.SUBRULE2(this.value);
          return (lazy ? { kind: 'let', name, value, lazy, origin: this.origin() } : { kind: 'let', name, value, origin: this.origin() }) as Op;
        },
      },
      {
        ALT: () => {
          this.CONSUME(KW.fail);
          const message = this.CONSUME(StringLit);
          return this.ACTION(() => ({ kind: 'fail', message: stringOf(message), origin: this.origin() })) as Op;
        },
      },
    ]);
  });

  private forEach = this.RULE('forEach', (): Op => {
    this.CONSUME(KW.forEach);
    const bindTok = this.CONSUME(PathTok);
    this.CONSUME(KW.in);
    const list = this.OR([
      {
        ALT: () => {
          const t = this.CONSUME1(PathTok);
          return this.ACTION(() => this.pathOf(t)) as Path | Value;
        },
      },
      { ALT: () => this.SUBRULE(this.value) as Path | Value },
    ]);
    let indexBind: string | undefined;
    this.OPTION(() => {
      this.CONSUME(KW.index);
      indexBind = this.SUBRULE(this.name);
    });
    this.CONSUME(KW.order);
    const order = this.CONSUME(NameCat);
    return this.ACTION(() => {
      const bindPath = this.pathOf(bindTok);
      const seg = bindPath.segments[0];
      if (bindPath.root !== 'vars' || bindPath.segments.length !== 1 || seg?.kind !== 'field' || seg.test !== undefined) {
        fail('forEach binds a variable written vars.<name>', bindTok);
      }
      const op: Op = { kind: 'forEach', list, bind: seg.name, order: oneOf(order, 'forEach order', ['asc', 'desc'] as const), body: [], origin: this.origin() };
      return indexBind === undefined ? op : { kind: 'forEach', list, bind: seg.name, indexBind, order: op.order, body: [], origin: op.origin };
    }) as Op;
  });

  private step = this.RULE('step', (): JsonPatchStep => {
    const opTok = this.OR([
      { ALT: () => this.CONSUME(KW.add) },
      { ALT: () => this.CONSUME(KW.remove) },
      { ALT: () => this.CONSUME(KW.replace) },
      { ALT: () => this.CONSUME(KW.move) },
      { ALT: () => this.CONSUME(KW.copy) },
      { ALT: () => this.CONSUME(KW.test) },
    ]);
    const pathTok = this.CONSUME(StringLit);
    let from: IToken | undefined;
    let value: Value | undefined;
    this.OPTION(() => {
      this.CONSUME(KW.from);
      from = this.CONSUME1(StringLit);
    });
    this.OPTION1(() => {
      this.CONSUME(Equals);
      value = this.SUBRULE(this.value);
    });
    return this.ACTION(() => {
      const step = { op: opTok.image, path: stringOf(pathTok) } as JsonPatchStep;
      if (from) step.from = stringOf(from);
      if (value) step.value = value;
      step.origin = this.origin();
      return step;
    }) as JsonPatchStep;
  });

  // ------------------------------------------------------------------------------------------ guards

  private guard = this.RULE('guard', (): Guard => {
    return this.OR([
      {
        ALT: () => {
          const k = this.OR1([{ ALT: () => this.CONSUME(KW.exists) }, { ALT: () => this.CONSUME(KW.notExists) }]);
          const p = this.CONSUME(PathTok);
          return this.ACTION(() => ({ kind: k.image, path: this.pathOf(p), origin: this.origin() })) as Guard;
        },
      },
      {
        ALT: () => {
          const k = this.OR2([{ ALT: () => this.CONSUME(KW.eq) }, { ALT: () => this.CONSUME(KW.neq) }]);
          const p = this.CONSUME1(PathTok);
          const value = this.SUBRULE(this.value);
          return this.ACTION(() => ({ kind: k.image, path: this.pathOf(p), value, origin: this.origin() })) as Guard;
        },
      },
      {
        ALT: () => {
          const k = this.OR3([{ ALT: () => this.CONSUME(KW.in) }, { ALT: () => this.CONSUME(KW.notIn) }]);
          const p = this.CONSUME2(PathTok);
          const values = this.SUBRULE(this.valueList);
          return this.ACTION(() => ({ kind: k.image, path: this.pathOf(p), values, origin: this.origin() })) as Guard;
        },
      },
      {
        ALT: () => {
          this.CONSUME(KW.match);
          const p = this.CONSUME3(PathTok);
          const pattern = this.CONSUME(StringLit);
          return this.ACTION(() => ({ kind: 'match', path: this.pathOf(p), pattern: stringOf(pattern), origin: this.origin() })) as Guard;
        },
      },
      {
        ALT: () => {
          const k = this.OR4([{ ALT: () => this.CONSUME(KW.and) }, { ALT: () => this.CONSUME(KW.or) }]);
          this.CONSUME(LParen);
          const args: Guard[] = [];
          this.MANY_SEP({ SEP: Comma, DEF: () => args.push(this.SUBRULE(this.guard)) });
          this.CONSUME(RParen);
          return { kind: k.image, args, origin: this.origin() } as Guard;
        },
      },
      {
        ALT: () => {
          this.CONSUME(KW.not);
          this.CONSUME1(LParen);
          const arg = this.SUBRULE1(this.guard);
          this.CONSUME1(RParen);
          return { kind: 'not', arg, origin: this.origin() } as Guard;
        },
      },
      { ALT: () => (this.CONSUME(KW.true), { kind: 'const', value: true, origin: this.origin() }) as Guard },
      { ALT: () => (this.CONSUME(KW.false), { kind: 'const', value: false, origin: this.origin() }) as Guard },
      {
        ALT: () => {
          const k = this.OR5([{ ALT: () => this.CONSUME(KW.cel) }, { ALT: () => this.CONSUME(KW.jmes) }]);
          const t = this.CONSUME1(StringLit);
          return this.ACTION(() => ({ kind: k.image, expr: this.expr(t), origin: this.origin() })) as Guard;
        },
      },
    ]);
  });

  // ------------------------------------------------------------------------------------------ values

  private value = this.RULE('value', (): Value => {
    return this.OR([
      {
        ALT: () => {
          const json = this.SUBRULE(this.json);
          return { kind: 'literal', json, origin: this.origin() } as Value;
        },
      },
      {
        ALT: () => {
          this.CONSUME(KW.ref);
          const p = this.CONSUME(PathTok);
          return this.ACTION(() => ({ kind: 'ref', path: this.pathOf(p), origin: this.origin() })) as Value;
        },
      },
      {
        ALT: () => {
          this.CONSUME(KW.fromMetadata);
          const f = this.CONSUME(NameCat);
          return this.ACTION(() => ({
            kind: 'fromMetadata',
            field: oneOf(f, 'fromMetadata field', ['name', 'namespace'] as const),
            origin: this.origin(),
          })) as Value;
        },
      },
      {
        ALT: () => {
          const k = this.OR1([{ ALT: () => this.CONSUME(KW.cel) }, { ALT: () => this.CONSUME(KW.jmes) }]);
          const t = this.CONSUME(StringLit);
          return this.ACTION(() => ({ kind: k.image, expr: this.expr(t), origin: this.origin() })) as Value;
        },
      },
      {
        ALT: () => {
          const kw = this.CONSUME(KW.template);
          const parts = this.OR2([
            {
              ALT: () => {
                const t = this.CONSUME1(StringLit);
                return this.ACTION(() => templateOfString(t)) as TemplatePart[];
              },
            },
            {
              ALT: () => {
                const arr = this.SUBRULE(this.jsonArray);
                return this.ACTION(() => templateOfParts(arr, kw)) as TemplatePart[];
              },
            },
          ]);
          return { kind: 'template', parts, origin: this.origin() } as Value;
        },
      },
      {
        ALT: () => {
          this.CONSUME(KW.templated);
          const language = this.CONSUME1(NameCat);
          const json = this.SUBRULE1(this.json);
          return this.ACTION(() => ({
            kind: 'templated',
            language: oneOf(language, 'templated language', ['kyverno'] as const),
            json,
            origin: this.origin(),
          })) as Value;
        },
      },
      {
        ALT: () => {
          const kw = this.CONSUME(KW.external);
          const opts = this.SUBRULE(this.options);
          return this.ACTION(() => externalOf(kw, opts, this.origin())) as Value;
        },
      },
    ]);
  });

  private valueList = this.RULE('valueList', (): Value[] => {
    const out: Value[] = [];
    this.CONSUME(LBracket);
    this.MANY_SEP({ SEP: Comma, DEF: () => out.push(this.SUBRULE(this.value)) });
    this.CONSUME(RBracket);
    return out;
  });

  // ------------------------------------------------------------------------------------------ JSON

  private json = this.RULE('json', (): JsonValue => {
    return this.OR([
      {
        ALT: () => {
          const t = this.CONSUME(StringLit);
          return this.ACTION(() => stringOf(t)) as JsonValue;
        },
      },
      {
        ALT: () => {
          const t = this.CONSUME(NumberLit);
          return this.ACTION(() => Number(t.image)) as JsonValue;
        },
      },
      { ALT: () => (this.CONSUME(KW.true), true) },
      { ALT: () => (this.CONSUME(KW.false), false) },
      { ALT: () => (this.CONSUME(KW.null), null) },
      { ALT: () => this.SUBRULE(this.jsonArray) },
      { ALT: () => this.SUBRULE(this.jsonObject) },
    ]);
  });

  private jsonArray = this.RULE('jsonArray', (): JsonValue[] => {
    const out: JsonValue[] = [];
    this.CONSUME(LBracket);
    this.MANY_SEP({ SEP: Comma, DEF: () => out.push(this.SUBRULE(this.json)) });
    this.CONSUME(RBracket);
    return out;
  });

  private jsonObject = this.RULE('jsonObject', (): JsonObject => {
    const out: JsonObject = {};
    this.CONSUME(LBrace);
    this.MANY_SEP({
      SEP: Comma,
      DEF: () => {
        const k = this.CONSUME(StringLit);
        this.CONSUME(Colon);
        const v = this.SUBRULE(this.json);
        this.ACTION(() => {
          const key = stringOf(k);
          // An own property even for "__proto__", as JSON.parse would make it.
          Object.defineProperty(out, key, { value: v, enumerable: true, writable: true, configurable: true });
        });
      },
    });
    this.CONSUME(RBrace);
    return out;
  });
}

// ---------------------------------------------------------------------------------------------- node builders

function optionMap(opts: Options, allowed: readonly string[], what: string): Map<string, IToken> {
  const m = new Map<string, IToken>();
  for (const { key, value } of opts) {
    if (!allowed.includes(key.image)) fail(`unknown ${what} option ${key.image} (allowed: ${allowed.join(', ')})`, key);
    if (m.has(key.image)) fail(`${what} option ${key.image} is given twice`, key);
    m.set(key.image, value);
  }
  return m;
}

function stringOption(tok: IToken, what: string): string {
  if (tok.tokenType !== StringLit) fail(`${what} must be a quoted string`, tok);
  return stringOf(tok);
}

function semanticsOf(orderTok: IToken, opts: Options): Semantics {
  const order = oneOf(orderTok, 'semantics order', ['sequential', 'fixpoint', 'ordered'] as const);
  const m = optionMap(opts, ['maxPasses', 'reinvocation', 'failurePolicy', 'applyRules', 'namespace'], 'semantics');
  const s: Semantics = { order };
  const maxPasses = m.get('maxPasses');
  if (maxPasses) {
    const n = Number(maxPasses.image);
    if (maxPasses.tokenType !== NumberLit || !Number.isSafeInteger(n) || n < 1) fail('maxPasses must be a positive integer', maxPasses);
    s.maxPasses = n;
  }
  const re = m.get('reinvocation');
  if (re) s.reinvocation = oneOf(re, 'reinvocation', ['never', 'ifNeeded'] as const);
  const fp = m.get('failurePolicy');
  if (fp) s.failurePolicy = oneOf(fp, 'failurePolicy', ['fail', 'ignore'] as const);
  const ar = m.get('applyRules');
  if (ar) s.applyRules = oneOf(ar, 'applyRules', ['all', 'one'] as const);
  const ns = m.get('namespace');
  if (ns) s.namespace = oneOf(ns, 'namespace', ['implied'] as const);
  return s;
}

function imageOf(path: Path, opts: Options, origin: Origin): Op {
  const m = optionMap(opts, ['domain', 'repo', 'tag'], 'image');
  const op = { kind: 'image', path } as Op & { kind: 'image' };
  for (const k of ['domain', 'repo', 'tag'] as const) {
    const t = m.get(k);
    if (t) op[k] = stringOption(t, `image ${k}`);
  }
  op.origin = origin;
  return op;
}

function externalOf(kw: IToken, opts: Options, origin: Origin): Value {
  const m = optionMap(opts, ['provider', 'source', 'failurePolicy', 'default'], 'external');
  const need = (k: string): IToken => m.get(k) ?? fail(`external needs ${k}=…`, kw);
  const v: Value = {
    kind: 'external',
    provider: stringOption(need('provider'), 'provider'),
    source: oneOf(need('source'), 'source', ['ValueAtLocation', 'Username'] as const),
    failurePolicy: oneOf(need('failurePolicy'), 'failurePolicy', ['Fail', 'Ignore', 'UseDefault'] as const),
    origin,
  };
  const d = m.get('default');
  return d ? { kind: 'external', provider: v.provider, source: v.source, failurePolicy: v.failurePolicy, default: stringOption(d, 'default'), origin } : v;
}

function templateOfString(tok: IToken): TemplatePart[] {
  const t = parseTemplateText(stringOf(tok));
  return t.ok ? t.parts : fail(t.message, tok);
}

function templateOfParts(arr: JsonValue[], kw: IToken): TemplatePart[] {
  return arr.map((p) => {
    if (typeof p === 'string') return p;
    if (p !== null && typeof p === 'object' && !Array.isArray(p) && Object.keys(p).length === 1 && typeof p.jmes === 'string') {
      return { jmes: p.jmes };
    }
    return fail('template parts must be strings or {"jmes": "…"}', kw);
  });
}

// ---------------------------------------------------------------------------------------------- entry

let parser: LineParser | undefined;

/** Parses one line's content (indentation and any `@line:col` suffix already removed). Throws LineSyntaxError. */
export function parseLine(content: string, ctx: LineContext): Statement {
  const lexed = lineLexer.tokenize(content);
  if (lexed.errors.length > 0) {
    const e = lexed.errors[0]!;
    throw new LineSyntaxError(`unexpected character ${JSON.stringify(content.charAt(e.offset))}`, e.offset, e.offset + 1);
  }
  parser ??= new LineParser();
  parser.ctx = ctx;
  parser.input = lexed.tokens;
  const stmt = parser.line();
  if (parser.errors.length > 0) {
    const tok = parser.errors[0]!.token;
    if (tok.tokenType.name === 'EOF') throw new LineSyntaxError('unexpected end of line', content.length, content.length + 1);
    throw new LineSyntaxError(`unexpected ${JSON.stringify(tok.image)}`, tok.startOffset, tok.startOffset + tok.image.length);
  }
  return stmt;
}
