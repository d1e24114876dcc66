/**
 * Kyverno's regex and matching functions (functions.go jpRegexReplaceAll, jpRegexMatch,
 * jpPatternMatch, jpLabelMatch). Numbers given as the subject are formatted as Go's
 * strconv.FormatFloat(f, 'f', -1, 32) does (ifaceToString).
 */
import { failure, JmesFailure } from '../types.js';
import { formatFloat32, isMap, objsEqual, type JsonMap } from '../values.js';
import { compileGoRegexp, goRegexpTest, goReplaceAll } from './re2.js';
import { expectString, kyvernoError, kyvernoTypeError, type FunctionSpec } from './registry.js';
import { wildcardMatch } from './wildcard.js';

/** functions.go ifaceToString. */
export function ifaceToString(v: unknown): string | undefined {
  if (typeof v === 'string') return v;
  if (typeof v === 'number') return formatFloat32(v);
  if (typeof v === 'boolean') return v ? 'true' : 'false';
  return undefined;
}

function regexReplace(name: string, literal: boolean): FunctionSpec {
  return {
    name,
    args: [['string'], ['string', 'number'], ['string', 'number']],
    handler: (args) => {
      const pattern = expectString(name, args, 0);
      if (pattern instanceof JmesFailure) return pattern;
      const src = ifaceToString(args[1]);
      if (src === undefined) return kyvernoTypeError(name, 2, 'String or Real');
      const repl = ifaceToString(args[2]);
      if (repl === undefined) return kyvernoTypeError(name, 3, 'String or Real');
      const re = compileGoRegexp(pattern);
      if (typeof re === 'string') return kyvernoError(name, re);
      const out = goReplaceAll(re, src, repl, literal);
      if (out === undefined) return failure('Unsupported', `JMESPath function '${name}': pattern ${JSON.stringify(pattern)} is valid RE2 but not supported by transmute's replacer: ${re.js}`);
      return out;
    },
  };
}

/** regex_match's (and pattern_match's) pattern string and subject (a string or a number as Go prints it). */
function patternAndSubject(args: unknown[]): { pattern: string; src: string } | JmesFailure {
  const pattern = expectString('regex_match', args, 0);
  if (pattern instanceof JmesFailure) return pattern;
  const src = ifaceToString(args[1]);
  if (src === undefined) return kyvernoTypeError('regex_match', 2, 'String or Real');
  return { pattern, src };
}

export const REGEX_FUNCTIONS: FunctionSpec[] = [
  regexReplace('regex_replace_all', false),
  regexReplace('regex_replace_all_literal', true),
  {
    name: 'regex_match',
    args: [['string'], ['string', 'number']],
    handler: (args) => {
      const operands = patternAndSubject(args);
      if (operands instanceof JmesFailure) return operands;
      const { pattern, src } = operands;
      const re = compileGoRegexp(pattern);
      // regexp.Match returns the compile error unwrapped.
      if (typeof re === 'string') return failure('Runtime', re);
      return goRegexpTest(re, src);
    },
  },
  {
    name: 'pattern_match',
    args: [['string'], ['string', 'number']],
    handler: (args) => {
      // Upstream validates pattern_match with the name 'regex_match' too (functions.go jpPatternMatch).
      const operands = patternAndSubject(args);
      if (operands instanceof JmesFailure) return operands;
      return wildcardMatch(operands.pattern, operands.src);
    },
  },
  {
    name: 'label_match',
    args: [['object'], ['object']],
    handler: ([labels, target]) => {
      if (!isMap(labels)) return kyvernoTypeError('label_match', 0, 'Object');
      if (!isMap(target)) return kyvernoTypeError('label_match', 1, 'Object');
      for (const k of Object.keys(labels)) {
        if (!Object.prototype.hasOwnProperty.call(target, k) || !objsEqual((target as JsonMap)[k], labels[k])) return false;
      }
      return true;
    },
  },
];
