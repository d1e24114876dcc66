/**
 * validate.go validateRuleContext: the rule's own context entries (foreach and target contexts are not checked
 * here). Each entry needs a name that does not shadow a predefined variable, exactly one source, and the
 * source's own requirements (validateConfigMap, validateAPICall, validateGlobalReference, validateImageRegistry,
 * validateVariable). JMESPath expressions without variables must parse.
 */
import type { JsonObject } from '../../../ir/json.js';
import type { YamlPath } from '../../../io/source.js';
import { parseJmes } from '../../../jmespath/parse.js';
import { atKey, atValue, type Where } from './issue.js';
import { arr, get, isSet, obj, str } from './model.js';
import { replaceAllVars } from './regex.js';

export interface ContextError {
  message: string;
  at: Where;
}

const PREDEFINED = ['images', 'request', 'serviceAccountName', 'serviceAccountNamespace', 'element', 'elementIndex'];

/** The JMESPath check shared by the sources: skipped when the expression holds a variable. */
function jmesPathError(source: JsonObject | undefined, at: YamlPath): ContextError | undefined {
  const expr = str(get(source, 'jmesPath'));
  const replaced = replaceAllVars(expr, 'kyvernojmespathvariable');
  if (replaced.includes('kyvernojmespathvariable') || expr === '') return undefined;
  const parsed = parseJmes(expr);
  if (parsed.ok) return undefined;
  return { message: `failed to parse JMESPath ${expr}: SyntaxError: ${parsed.message}`, at: atValue([...at, 'jmesPath']) };
}

function entryError(entry: JsonObject, at: YamlPath): ContextError | undefined {
  const name = str(get(entry, 'name'));
  if (name === '') return { message: 'a name is required for context entries', at: atValue(at) };
  for (const v of PREDEFINED) {
    if (name === v || name.startsWith(v + '.')) {
      return { message: `entry name ${name} is invalid as it conflicts with a pre-defined variable ${v}`, at: atValue([...at, 'name']) };
    }
  }
  const sources = ['configMap', 'apiCall', 'globalReference', 'imageRegistry', 'variable'].filter((k) => isSet(entry, k));
  if (sources.length !== 1) {
    return {
      message: 'exactly one of configMap or apiCall or imageRegistry or variable is required for context entries',
      at: sources.length > 1 ? atKey([...at, sources[1]!]) : atValue(at),
    };
  }
  const kind = sources[0]!;
  const src = obj(get(entry, kind));
  const srcAt = [...at, kind];
  switch (kind) {
    case 'configMap':
      if (str(get(src, 'name')) === '') return { message: 'a name is required for configMap context entry', at: atKey(srcAt) };
      if (str(get(src, 'namespace')) === '') return { message: 'a namespace is required for configMap context entry', at: atKey(srcAt) };
      return undefined;
    case 'apiCall':
      if (str(get(src, 'urlPath')) !== '' && isSet(src, 'service')) {
        return { message: 'a URLPath cannot be used for service API calls', at: atKey([...srcAt, 'service']) };
      }
      return jmesPathError(src, srcAt);
    case 'globalReference':
      if (str(get(src, 'name')) === '') return { message: 'a name is required for globalReference context entry', at: atKey(srcAt) };
      return jmesPathError(src, srcAt);
    case 'imageRegistry':
      // The image reference itself is parsed by distribution/reference upstream; only its presence is checked here.
      if (str(get(src, 'reference')) === '') return { message: 'a ref is required for imageRegistry context entry', at: atKey(srcAt) };
      return jmesPathError(src, srcAt);
    default: {
      const err = jmesPathError(src, srcAt);
      if (err) return err;
      const expr = replaceAllVars(str(get(src, 'jmesPath')), 'kyvernojmespathvariable');
      const value = get(src, 'value');
      if ((value === undefined || value === null) && expr === '') {
        return { message: 'a variable must define a value or a jmesPath expression', at: atKey(srcAt) };
      }
      const dflt = get(src, 'default');
      if (dflt !== undefined && dflt !== null && expr === '') {
        return { message: 'a variable must define a default value only when a jmesPath expression is defined', at: atKey([...srcAt, 'default']) };
      }
      return undefined;
    }
  }
}

/** validateRuleContext for the rule at `at`. */
export function validateRuleContext(rule: JsonObject, at: YamlPath): ContextError | undefined {
  const entries = arr(get(rule, 'context'));
  if (entries === undefined || entries.length === 0) return undefined;
  // HasValidateCEL: context is not supported with validate.cel.
  const cel = obj(get(obj(get(rule, 'validate')), 'cel'));
  if (cel !== undefined && Object.keys(cel).length > 0) {
    return { message: 'context variables are not supported for CEL expressions in validate rules', at: atKey([...at, 'context']) };
  }
  for (let i = 0; i < entries.length; i++) {
    const entry = obj(entries[i]) ?? {};
    const err = entryError(entry, [...at, 'context', i]);
    if (err) return err;
  }
  return undefined;
}
