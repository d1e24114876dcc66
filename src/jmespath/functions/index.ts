/** The function table Kyverno registers: JMESPath built-ins, then its 50 custom functions (sum replaced). */
import { ARITHMETIC_FUNCTIONS } from './arithmetic.js';
import { DATA_FUNCTIONS } from './data.js';
import { IMAGE_FUNCTIONS } from './images.js';
import { RANDOM_FUNCTIONS } from './random.js';
import { REGEX_FUNCTIONS } from './regex.js';
import type { FunctionSpec, FunctionTable } from './registry.js';
import { SEMVER_FUNCTIONS } from './semver.js';
import { STANDARD_FUNCTIONS } from './standard.js';
import { STRING_FUNCTIONS } from './strings.js';
import { TIME_FUNCTIONS } from './time.js';
import { X509_FUNCTIONS } from './x509.js';

export function buildFunctionTable(...groups: FunctionSpec[][]): FunctionTable {
  const table = new Map<string, FunctionSpec>();
  for (const group of groups) for (const f of group) table.set(f.name, f);
  return table;
}

/** Names of Kyverno's custom functions, in `kyverno jp function` order (reference list of 50). */
export const KYVERNO_CUSTOM_FUNCTION_NAMES: readonly string[] = [
  ...STRING_FUNCTIONS,
  ...REGEX_FUNCTIONS,
  ...ARITHMETIC_FUNCTIONS,
  ...TIME_FUNCTIONS,
  ...SEMVER_FUNCTIONS,
  ...DATA_FUNCTIONS,
  ...RANDOM_FUNCTIONS,
  ...X509_FUNCTIONS,
  ...IMAGE_FUNCTIONS,
].map((f) => f.name);

export const STANDARD_FUNCTION_TABLE: FunctionTable = buildFunctionTable(STANDARD_FUNCTIONS);

export const KYVERNO_FUNCTIONS: FunctionTable = buildFunctionTable(
  STANDARD_FUNCTIONS,
  STRING_FUNCTIONS,
  REGEX_FUNCTIONS,
  ARITHMETIC_FUNCTIONS,
  TIME_FUNCTIONS,
  SEMVER_FUNCTIONS,
  DATA_FUNCTIONS,
  RANDOM_FUNCTIONS,
  X509_FUNCTIONS,
  IMAGE_FUNCTIONS,
);
