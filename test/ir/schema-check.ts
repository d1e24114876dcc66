/**
 * A small JSON Schema checker for the subset the IR schema uses ($ref, type, const, enum, properties,
 * required, additionalProperties, items, oneOf, anyOf): enough to check real IR against schema.json
 * without another dependency. Returns the first few problems, each with its JSON path.
 */
type Schema = { [key: string]: unknown };

export function checkAgainstSchema(root: Schema, value: unknown): string[] {
  const defs = (root.$defs ?? {}) as Record<string, Schema>;
  const errors: string[] = [];

  const typeOf = (v: unknown): string =>
    v === null ? 'null' : Array.isArray(v) ? 'array' : typeof v === 'number' ? (Number.isInteger(v) ? 'integer' : 'number') : typeof v;
  const typeMatches = (t: string, v: unknown): boolean => t === typeOf(v) || (t === 'number' && typeOf(v) === 'integer');

  const check = (s: Schema, v: unknown, at: string, out: string[]): void => {
    if (typeof s.$ref === 'string') {
      const def = defs[s.$ref.replace('#/$defs/', '')];
      if (!def) return void out.push(`${at}: unknown $ref ${s.$ref}`);
      check(def, v, at, out);
    }
    if (s.type !== undefined) {
      const types = Array.isArray(s.type) ? (s.type as string[]) : [s.type as string];
      if (!types.some((t) => typeMatches(t, v))) return void out.push(`${at}: expected ${types.join('|')}, got ${typeOf(v)}`);
    }
    if ('const' in s && s.const !== v) out.push(`${at}: expected ${JSON.stringify(s.const)}`);
    if (Array.isArray(s.enum) && !s.enum.includes(v)) out.push(`${at}: ${JSON.stringify(v)} not in enum`);
    for (const key of ['oneOf', 'anyOf'] as const) {
      const members = s[key] as Schema[] | undefined;
      if (!members) continue;
      const matching = members.filter((m) => {
        const sub: string[] = [];
        check(m, v, at, sub);
        return sub.length === 0;
      }).length;
      if (key === 'oneOf' ? matching !== 1 : matching === 0) out.push(`${at}: ${matching} members of ${key} match`);
    }
    if (typeOf(v) === 'object') {
      const obj = v as Record<string, unknown>;
      const props = (s.properties ?? {}) as Record<string, Schema>;
      for (const r of (s.required ?? []) as string[]) if (!Object.prototype.hasOwnProperty.call(obj, r)) out.push(`${at}: missing ${r}`);
      for (const k of Object.keys(obj)) {
        if (Object.prototype.hasOwnProperty.call(props, k)) check(props[k]!, obj[k], `${at}.${k}`, out);
        else if (s.additionalProperties === false && s.type === 'object') out.push(`${at}: unexpected property ${k}`);
        else if (typeof s.additionalProperties === 'object') check(s.additionalProperties as Schema, obj[k], `${at}.${k}`, out);
      }
    }
    if (Array.isArray(v) && s.items) v.forEach((x, i) => check(s.items as Schema, x, `${at}[${i}]`, out));
  };

  check(root, value, '$', errors);
  return errors.slice(0, 5);
}
