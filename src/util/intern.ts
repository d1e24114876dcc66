/**
 * The internalized copy of a string (V8 keeps one copy of each property name, and compares two of them by
 * identity). A constant of a compiled program is compared with object keys and other constants at every
 * evaluation: the parser's slices, escapes and folded concatenations are not internalized, and each such
 * comparison then reads both strings (a concatenation is flattened first), where an internalized pair is
 * one pointer comparison, and a property look-up by an internalized name skips the string table.
 */
export function internString(s: string): string {
  const holder: Record<string, 0> = { [s]: 0 };
  // A property's name is internalized (an integer-like one is an element, and comes back as it came).
  for (const key in holder) return key;
  return s;
}
