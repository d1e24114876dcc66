import { diagnostic, type Diagnostic } from '../diagnostics/diagnostic.js';
import type { Span } from '../diagnostics/span.js';
import { hasOwn, isJsonObject, type JsonObject, type JsonValue } from '../ir/json.js';
import type { LabelRequirement, LabelSelector } from '../ir/match.js';
import { compileWildcard, containsWildcard } from './glob.js';

/** A label map as found in `metadata.labels`; read it with `labelValue` (own string values only). */
export type Labels = JsonObject;

const NO_LABELS: Labels = Object.freeze({}) as Labels;

/** `metadata.labels` of an object, or an empty map; never copies. */
export function labelsOf(obj: JsonValue | null | undefined): Labels {
  return metadataMap(obj, 'labels');
}

/** `metadata.annotations` of an object, or an empty map; never copies. */
export function annotationsOf(obj: JsonValue | null | undefined): Labels {
  return metadataMap(obj, 'annotations');
}

function metadataMap(obj: JsonValue | null | undefined, field: string): Labels {
  if (!isJsonObject(obj) || !hasOwn(obj, 'metadata')) return NO_LABELS;
  const meta = obj['metadata'];
  if (!isJsonObject(meta) || !hasOwn(meta, field)) return NO_LABELS;
  const m = meta[field];
  return isJsonObject(m) ? m : NO_LABELS;
}

/** The value of label `key`, or undefined; `__proto__`/`constructor` are ordinary keys, non-strings are absent. */
export function labelValue(labels: Labels, key: string): string | undefined {
  if (!hasOwn(labels, key)) return undefined;
  const v = labels[key];
  return typeof v === 'string' ? v : undefined;
}

export interface CompiledSelector {
  matches(labels: Labels): boolean;
  /** `{}`: selects everything (apimachinery `Selector.Empty()`), which lets callers skip lookups. */
  readonly selectsAll: boolean;
}

export const SELECT_NOTHING: CompiledSelector = { matches: () => false, selectsAll: false };
export const SELECT_ALL: CompiledSelector = { matches: () => true, selectsAll: true };

export interface SelectorOptions {
  /**
   * Kyverno expands `*` and `?` in matchLabels keys and values against the actual labels before evaluating
   * (`pkg/engine/wildcards.ReplaceInSelector`). The net effect: a wildcard entry holds when some label
   * matches both its key and value patterns (an unmatched entry is rewritten with `0` for each wildcard,
   * which by construction cannot match a label the wildcard missed). Entries with wildcards skip validation.
   */
  wildcardMatchLabels?: boolean;
  /** Where the selector sits, for messages (`match.any[0].labelSelector`). */
  field?: string;
  span?: Span;
  dialect?: string;
}

type Test = (labels: Labels) => boolean;

/**
 * Compiles a `metav1.LabelSelector` with `LabelSelectorAsSelector` semantics: `null`/`undefined` selects
 * nothing, `{}` selects everything, matchLabels and matchExpressions are ANDed. Validation errors (bad
 * operator, values required for In/NotIn or forbidden for Exists/DoesNotExist, malformed keys or values)
 * come back as diagnostics, and the selector is then unusable (upstream refuses to build it).
 */
export function compileLabelSelector(
  sel: LabelSelector | null | undefined,
  options: SelectorOptions = {},
): { selector: CompiledSelector; diagnostics: Diagnostic[] } {
  if (sel === null || sel === undefined) return { selector: SELECT_NOTHING, diagnostics: [] };
  const diagnostics = validateLabelSelector(sel, options);
  if (diagnostics.length > 0) return { selector: SELECT_NOTHING, diagnostics };
  const tests: Test[] = [];
  const matchLabels = sel.matchLabels ?? {};
  for (const key of Object.keys(matchLabels)) {
    const want = matchLabels[key]!;
    if (options.wildcardMatchLabels && (containsWildcard(key) || containsWildcard(want))) {
      tests.push(wildcardEntry(key, want));
    } else {
      tests.push((labels) => labelValue(labels, key) === want);
    }
  }
  for (const req of sel.matchExpressions ?? []) tests.push(requirementTest(req));
  if (tests.length === 0) return { selector: SELECT_ALL, diagnostics };
  const matches: Test = tests.length === 1 ? tests[0]! : (labels) => tests.every((t) => t(labels));
  return { selector: { matches, selectsAll: false }, diagnostics };
}

function wildcardEntry(keyPattern: string, valuePattern: string): Test {
  const keyMatch = compileWildcard(keyPattern);
  const valueMatch = compileWildcard(valuePattern);
  return (labels) => {
    for (const k of Object.keys(labels)) {
      const v = labels[k];
      if (typeof v === 'string' && keyMatch(k) && valueMatch(v)) return true;
    }
    return false;
  };
}

function requirementTest(req: LabelRequirement): Test {
  const key = req.key;
  switch (req.operator) {
    case 'Exists':
      return (labels) => labelValue(labels, key) !== undefined;
    case 'DoesNotExist':
      return (labels) => labelValue(labels, key) === undefined;
    case 'In': {
      const values = new Set(req.values ?? []);
      return (labels) => {
        const v = labelValue(labels, key);
        return v !== undefined && values.has(v);
      };
    }
    case 'NotIn': {
      // apimachinery `Requirement.Matches`: NotIn holds when the label is absent.
      const values = new Set(req.values ?? []);
      return (labels) => {
        const v = labelValue(labels, key);
        return v === undefined || !values.has(v);
      };
    }
    default:
      return () => false;
  }
}

// ---- validation (apimachinery `labels.NewRequirement`, `validation.IsQualifiedName`, `IsValidLabelValue`)

const NAME_PART = /^[A-Za-z0-9](?:[-A-Za-z0-9_.]{0,61}[A-Za-z0-9])?$/;
const DNS_LABEL = /^[a-z0-9](?:[-a-z0-9]{0,61}[a-z0-9])?$/;

/** Why `key` is not a qualified name (`prefix/name`), or undefined when it is. */
export function labelKeyProblem(key: string): string | undefined {
  const slash = key.indexOf('/');
  const name = slash < 0 ? key : key.slice(slash + 1);
  if (slash >= 0) {
    const prefix = key.slice(0, slash);
    if (prefix.length === 0) return 'prefix part must be non-empty';
    if (prefix.length > 253) return 'prefix part must be no more than 253 characters';
    // A DNS-1123 subdomain, checked label by label so no regex ever backtracks over the whole prefix.
    if (!prefix.split('.').every((l) => DNS_LABEL.test(l))) return 'prefix part must be a lowercase RFC 1123 subdomain';
  }
  if (name.length === 0) return 'name part must be non-empty';
  if (name.length > 63) return 'name part must be no more than 63 characters';
  if (!NAME_PART.test(name)) {
    return "name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character";
  }
  return undefined;
}

/** Why `value` is not a valid label value, or undefined when it is (the empty value is valid). */
export function labelValueProblem(value: string): string | undefined {
  if (value.length === 0) return undefined;
  if (value.length > 63) return 'must be no more than 63 characters';
  if (!NAME_PART.test(value)) {
    return "must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character";
  }
  return undefined;
}

const OPERATORS = new Set(['In', 'NotIn', 'Exists', 'DoesNotExist']);

/** The validation errors `LabelSelectorAsSelector` would raise, as diagnostics (TM2002). */
export function validateLabelSelector(sel: LabelSelector, options: SelectorOptions = {}): Diagnostic[] {
  const out: Diagnostic[] = [];
  const field = options.field ?? 'selector';
  const report = (message: string): void => {
    out.push(
      diagnostic('TM2002', {
        phase: 'parse',
        message: `${field}: ${message}`,
        span: options.span,
        ...(options.dialect !== undefined ? { dialect: options.dialect } : {}),
      }),
    );
  };
  const matchLabels = sel.matchLabels ?? {};
  for (const key of Object.keys(matchLabels)) {
    const value = matchLabels[key];
    if (typeof value !== 'string') {
      report(`matchLabels[${JSON.stringify(key)}]: value must be a string`);
      continue;
    }
    if (options.wildcardMatchLabels && (containsWildcard(key) || containsWildcard(value))) continue;
    const kp = labelKeyProblem(key);
    if (kp) report(`matchLabels key ${JSON.stringify(key)}: ${kp}`);
    const vp = labelValueProblem(value);
    if (vp) report(`matchLabels[${JSON.stringify(key)}] value ${JSON.stringify(value)}: ${vp}`);
  }
  (sel.matchExpressions ?? []).forEach((req, i) => {
    const at = `matchExpressions[${i}]`;
    const op = req.operator as string;
    if (!OPERATORS.has(op)) {
      report(`${at}: ${JSON.stringify(op)} is not a valid label selector operator`);
      return;
    }
    const kp = labelKeyProblem(String(req.key ?? ''));
    if (kp) report(`${at}.key ${JSON.stringify(req.key)}: ${kp}`);
    const values = req.values ?? [];
    if ((op === 'In' || op === 'NotIn') && values.length === 0) {
      report(`${at}.values: for 'In', 'NotIn' operators, values set can't be empty`);
    }
    if ((op === 'Exists' || op === 'DoesNotExist') && values.length > 0) {
      report(`${at}.values: for 'Exists', 'DoesNotExist' operators, values set must be empty`);
    }
    for (const v of values) {
      if (typeof v !== 'string') {
        report(`${at}.values: ${JSON.stringify(v)} must be a string`);
        continue;
      }
      const vp = labelValueProblem(v);
      if (vp) report(`${at}.values ${JSON.stringify(v)}: ${vp}`);
    }
  });
  return out;
}
