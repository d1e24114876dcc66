/**
 * A Kyverno condition value written as a JSON array of strings (`'["a", "b"]'`, operators.go
 * anyAllInHelper's json.Unmarshal into []string): the strings, 'invalid' for JSON that is not an array of
 * strings, undefined for text that is not JSON at all.
 */
export function jsonStringArray(s: string): string[] | 'invalid' | undefined {
  let parsed: unknown;
  try {
    parsed = JSON.parse(s);
  } catch {
    return undefined;
  }
  if (!Array.isArray(parsed) || parsed.some((x) => typeof x !== 'string')) return 'invalid';
  return parsed as string[];
}
