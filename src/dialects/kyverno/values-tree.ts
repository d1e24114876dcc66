/**
 * cli.kyverno.io Values keys as Kyverno's JSON context reads them (pkg/engine/context AddVariable): a key is
 * split on dots as a CSV record with '.' as separator (so `"a.b".c` keeps `a.b` whole), and the value lands
 * at that nested path; later keys merge into the maps earlier ones built. `settings.data.config: x` thus
 * defines `settings` as `{data: {config: x}}`, standing in for a `configMap` context entry named `settings`.
 */
import { copyObject, defineOwn, hasOwn, isJsonObject, type JsonObject, type JsonValue } from '../../ir/json.js';

/** encoding/csv with Comma '.': fields, quotes around a field keep its dots; `""` inside quotes is a quote. */
export function splitValueKey(key: string): string[] {
  const fields: string[] = [];
  let i = 0;
  for (;;) {
    let field = '';
    if (key[i] === '"') {
      i++;
      for (; i < key.length; i++) {
        if (key[i] === '"') {
          if (key[i + 1] === '"') {
            field += '"';
            i++;
          } else {
            i++;
            break;
          }
        } else field += key[i];
      }
      // Anything up to the next separator is kept (LazyQuotes-free readers refuse it; Kyverno's key stays usable).
      while (i < key.length && key[i] !== '.') field += key[i++];
    } else {
      while (i < key.length && key[i] !== '.') field += key[i++];
    }
    fields.push(field);
    if (i >= key.length) return fields;
    i++; // the '.'
  }
}

/** The variables a values map defines, nested; `base` (earlier values) is merged into, never mutated. */
export function valueTree(values: JsonObject, base: JsonObject = {}): JsonObject {
  let tree = base;
  for (const key of Object.keys(values)) tree = setPath(tree, splitValueKey(key), values[key]!);
  return tree;
}

function setPath(tree: JsonObject, path: readonly string[], value: JsonValue): JsonObject {
  const [head, ...rest] = path;
  const out = copyObject(tree);
  if (rest.length === 0) {
    const existing = hasOwn(tree, head!) ? tree[head!] : undefined;
    defineOwn(out, head!, isJsonObject(existing) && isJsonObject(value) ? merge(existing, value) : value);
    return out;
  }
  const child = hasOwn(tree, head!) && isJsonObject(tree[head!]) ? (tree[head!] as JsonObject) : {};
  defineOwn(out, head!, setPath(child, rest, value));
  return out;
}

function merge(a: JsonObject, b: JsonObject): JsonObject {
  const out = copyObject(a);
  for (const k of Object.keys(b)) {
    const av = hasOwn(a, k) ? a[k] : undefined;
    const bv = b[k]!;
    defineOwn(out, k, isJsonObject(av) && isJsonObject(bv) ? merge(av, bv) : bv);
  }
  return out;
}
