/**
 * The grammar of IR path text, e.g. `object.spec.containers[name: "nginx"].image`,
 * `object.metadata.labels.app!absent`, `vars.c.ports[-1]`, `object.metadata.annotations."x/y"`.
 *
 *   path    := ROOT segment*
 *   segment := '.' (NAME | STRING) test?
 *            | '[' ( '*' | '-' | INTEGER | key ':' (scalar | '*') | key '==' scalar ) ']' test?
 *   key     := NAME | STRING
 *   scalar  := STRING | NUMBER | true | false | null
 *   test    := '!exists' | '!absent'
 *
 * Whitespace is allowed only inside brackets, so a path is one word wherever it is embedded.
 * The parser builds plain segment objects; `src/ir/path-text.ts` turns failures into diagnostics.
 */
import { createToken, EmbeddedActionsParser, Lexer, type IToken, type TokenType } from 'chevrotain';
import type { JsonScalar } from '../src/ir/json.js';
import type { PathRoot, Segment, SegmentTest } from '../src/ir/path.js';

export const PATH_ROOTS: readonly PathRoot[] = ['object', 'oldObject', 'request', 'params', 'namespaceObject', 'vars'];

/** A field name that prints without quotes. */
export const BARE_NAME = /^[A-Za-z_$][A-Za-z0-9_$-]*$/;

const WhiteSpace = createToken({ name: 'WhiteSpace', pattern: /[ \t]+/, group: Lexer.SKIPPED });
const Name = createToken({ name: 'Name', pattern: /[A-Za-z_$][A-Za-z0-9_$-]*/ });
const StringLit = createToken({
  name: 'String',
  pattern: /"(?:[^"\\\u0000-\u001f]|\\(?:["\\/bfnrt]|u[0-9a-fA-F]{4}))*"/,
});
const NumberLit = createToken({ name: 'Number', pattern: /-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][+-]?\d+)?/ });
const Dash = createToken({ name: 'Dash', pattern: /-/ });
const Dot = createToken({ name: 'Dot', pattern: /\./ });
const LBracket = createToken({ name: 'LBracket', pattern: /\[/ });
const RBracket = createToken({ name: 'RBracket', pattern: /\]/ });
const Star = createToken({ name: 'Star', pattern: /\*/ });
const EqEq = createToken({ name: 'EqEq', pattern: /==/ });
const Colon = createToken({ name: 'Colon', pattern: /:/ });
const BangExists = createToken({ name: 'BangExists', pattern: /!exists/ });
const BangAbsent = createToken({ name: 'BangAbsent', pattern: /!absent/ });

const ALL_TOKENS: TokenType[] = [
  WhiteSpace,
  Name,
  StringLit,
  NumberLit,
  Dash,
  Dot,
  LBracket,
  RBracket,
  Star,
  EqEq,
  Colon,
  BangExists,
  BangAbsent,
];

export const pathLexer = new Lexer(ALL_TOKENS, { positionTracking: 'onlyOffset', ensureOptimizations: false });

/** A grammar-level failure: a message and the half-open offset range it concerns. */
export class PathSyntaxError extends Error {
  constructor(
    message: string,
    readonly start: number,
    readonly end: number,
  ) {
    super(message);
  }
}

export interface ParsedPath {
  root: PathRoot;
  segments: Segment[];
}

class PathParser extends EmbeddedActionsParser {
  constructor() {
    super(ALL_TOKENS, { recoveryEnabled: false, maxLookahead: 3 });
    this.performSelfAnalysis();
  }

  public path = this.RULE('path', (): ParsedPath => {
    const rootTok = this.CONSUME(Name);
    const segments: Segment[] = [];
    this.MANY(() => {
      segments.push(this.SUBRULE(this.segment));
    });
    return this.ACTION(() => {
      if (!(PATH_ROOTS as readonly string[]).includes(rootTok.image)) {
        throw new PathSyntaxError(
          `unknown path root "${rootTok.image}" (expected one of ${PATH_ROOTS.join(', ')})`,
          rootTok.startOffset,
          rootTok.startOffset + rootTok.image.length,
        );
      }
      return { root: rootTok.image as PathRoot, segments };
    }) as ParsedPath;
  });

  private segment = this.RULE('segment', (): Segment => {
    let seg: Segment = undefined as unknown as Segment;
    this.OR([
      {
        ALT: () => {
          this.CONSUME(Dot);
          const nameTok = this.OR1([{ ALT: () => this.CONSUME1(Name) }, { ALT: () => this.CONSUME1(StringLit) }]);
          seg = this.ACTION(() => ({ kind: 'field', name: tokenText(nameTok) })) as Segment;
        },
      },
      {
        ALT: () => {
          this.CONSUME(LBracket);
          seg = this.SUBRULE(this.bracketBody);
          this.CONSUME(RBracket);
        },
      },
    ]);
    this.OPTION(() => {
      const testTok = this.OR2([{ ALT: () => this.CONSUME(BangExists) }, { ALT: () => this.CONSUME(BangAbsent) }]);
      this.ACTION(() => {
        if (seg.kind === 'append' || seg.kind === 'each') {
          throw new PathSyntaxError(
            `a "${testTok.image}" test cannot follow an ${seg.kind === 'append' ? 'append [-]' : 'each [*]'} segment`,
            testTok.startOffset,
            testTok.startOffset + testTok.image.length,
          );
        }
        const test: SegmentTest = testTok.tokenType === BangExists ? 'exist' : 'notExist';
        seg = { ...seg, test };
      });
    });
    return seg;
  });

  private bracketBody = this.RULE('bracketBody', (): Segment => {
    return this.OR([
      { ALT: () => (this.CONSUME(Star), { kind: 'each' }) as Segment },
      { ALT: () => (this.CONSUME(Dash), { kind: 'append' }) as Segment },
      {
        ALT: () => {
          const tok = this.CONSUME(NumberLit);
          return this.ACTION(() => {
            const index = Number(tok.image);
            if (!/^-?\d+$/.test(tok.image) || !Number.isSafeInteger(index)) {
              throw new PathSyntaxError(`list index must be an integer, got ${tok.image}`, tok.startOffset, tok.startOffset + tok.image.length);
            }
            return { kind: 'index', index };
          }) as Segment;
        },
      },
      { ALT: () => this.SUBRULE(this.keyed) },
    ]);
  });

  private keyed = this.RULE('keyed', (): Segment => {
    const keyTok = this.OR([{ ALT: () => this.CONSUME(Name) }, { ALT: () => this.CONSUME(StringLit) }]);
    return this.OR1([
      {
        ALT: () => {
          this.CONSUME(Colon);
          return this.OR2([
            {
              ALT: () => {
                this.CONSUME(Star);
                return this.ACTION(() => ({ kind: 'keyedGlob', key: tokenText(keyTok) })) as Segment;
              },
            },
            {
              ALT: () => {
                const value = this.SUBRULE(this.scalar);
                return this.ACTION(() => ({ kind: 'keyed', key: tokenText(keyTok), value, create: true })) as Segment;
              },
            },
          ]);
        },
      },
      {
        ALT: () => {
          this.CONSUME(EqEq);
          const value = this.SUBRULE1(this.scalar);
          return this.ACTION(() => ({ kind: 'keyed', key: tokenText(keyTok), value, create: false })) as Segment;
        },
      },
    ]);
  });

  private scalar = this.RULE('scalar', (): JsonScalar => {
    return this.OR([
      {
        ALT: () => {
          const t = this.CONSUME(StringLit);
          return this.ACTION(() => tokenText(t)) as JsonScalar;
        },
      },
      {
        ALT: () => {
          const t = this.CONSUME(NumberLit);
          return this.ACTION(() => Number(t.image)) as JsonScalar;
        },
      },
      {
        ALT: () => {
          const t = this.CONSUME(Name);
          return this.ACTION(() => {
            if (t.image === 'true') return true;
            if (t.image === 'false') return false;
            if (t.image === 'null') return null;
            throw new PathSyntaxError(
              `key value must be a JSON scalar (a quoted string, a number, true, false or null), got ${t.image}`,
              t.startOffset,
              t.startOffset + t.image.length,
            );
          }) as JsonScalar;
        },
      },
    ]);
  });
}

function tokenText(tok: IToken): string {
  return tok.tokenType === StringLit ? (JSON.parse(tok.image) as string) : tok.image;
}

let parser: PathParser | undefined;

/**
 * Parses path text into its root and segments; throws `PathSyntaxError` with offsets into `text`.
 * The parser is built once (chevrotain's self-analysis is costly) and reused.
 */
/** As deep as the objects transmute reads (src/io/limits.ts MAX_OBJECT_DEPTH): a longer path reaches nothing. */
const MAX_PATH_SEGMENTS = 256;

export function parsePathSyntax(text: string): ParsedPath {
  const lexed = pathLexer.tokenize(text);
  if (lexed.errors.length > 0) {
    const e = lexed.errors[0]!;
    throw new PathSyntaxError(`unexpected character ${JSON.stringify(text.charAt(e.offset))}`, e.offset, e.offset + Math.max(1, e.length));
  }
  checkNoSpaceOutsideBrackets(text, lexed.tokens);
  parser ??= new PathParser();
  parser.input = lexed.tokens;
  const result = parser.path();
  if (parser.errors.length > 0) {
    const e = parser.errors[0]!;
    const tok = e.token;
    const start = Number.isFinite(tok.startOffset) ? tok.startOffset : text.length;
    const found = tok.tokenType.name === 'EOF' ? 'end of path' : JSON.stringify(tok.image);
    throw new PathSyntaxError(`unexpected ${found}`, start, start + Math.max(1, tok.image.length));
  }
  if (result.segments.length > MAX_PATH_SEGMENTS) {
    throw new PathSyntaxError(`the path has ${result.segments.length} segments; transmute follows at most ${MAX_PATH_SEGMENTS}`, 0, text.length);
  }
  return result;
}

function checkNoSpaceOutsideBrackets(text: string, tokens: IToken[]): void {
  let depth = 0;
  let prevEnd = 0;
  for (const t of tokens) {
    if (t.startOffset !== prevEnd && depth === 0) {
      throw new PathSyntaxError('unexpected space in path (spaces are allowed only inside brackets)', prevEnd, t.startOffset);
    }
    if (t.tokenType === LBracket) depth++;
    else if (t.tokenType === RBracket) depth = Math.max(0, depth - 1);
    prevEnd = t.startOffset + t.image.length;
  }
  if (prevEnd !== text.length && depth === 0 && tokens.length > 0) {
    throw new PathSyntaxError('unexpected space in path (spaces are allowed only inside brackets)', prevEnd, text.length);
  }
}
