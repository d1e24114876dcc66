/**
 * A YAML text decoded into a JSON value as sigs.k8s.io/yaml `Unmarshal` into `interface{}` decodes it (YAMLToJSON,
 * then encoding/json): YAML 1.1 scalars (yes/no booleans, octal 010), the first document only, timestamps left
 * as strings. Kyverno decodes this way in JMESPath's parse_yaml (functions.go jpParseYAML) and in its CEL
 * `yaml.parse()` (kyverno/sdk extensions/cel/libs/yaml YamlImpl.Parse).
 */
import { isScalar, parseAllDocuments, visit, type Tags } from 'yaml';

const yamlOptions = {
  version: '1.1' as const,
  customTags: (tags: Tags): Tags => tags.filter((t) => typeof t === 'string' || t.tag !== 'tag:yaml.org,2002:timestamp'),
};

/**
 * libyaml (go-yaml) keeps no final line break in a clipped block scalar that ends the input without
 * one (`a: >\n  text` is "text"); the `yaml` package always adds it.
 */
function clipFinalBlockScalar(doc: Parameters<typeof visit>[0], text: string): void {
  visit(doc, {
    Scalar(_key, node) {
      if (!isScalar(node) || node.range === undefined || node.range === null) return;
      if ((node.type !== 'BLOCK_FOLDED' && node.type !== 'BLOCK_LITERAL') || node.range[1] < text.length) return;
      const header = /^[|>]([1-9]?[+-]?|[+-]?[1-9]?)/.exec(text.slice(node.range[0]))?.[1] ?? '';
      if (!header.includes('+') && !header.includes('-') && typeof node.value === 'string' && node.value.endsWith('\n')) {
        node.value = node.value.slice(0, -1);
      }
    },
  });
}

export type YamlDecoded = { ok: true; value: unknown } | { ok: false; message: string };

/** The value of the first document of `text` (null when it has none), or why it does not decode. */
export function yamlToJsonValue(text: string): YamlDecoded {
  try {
    const docs = parseAllDocuments(text, yamlOptions);
    const list = Array.isArray(docs) ? docs : [docs];
    const first = list[0];
    if (first === undefined) return { ok: true, value: null };
    if (first.errors.length > 0) return { ok: false, message: `error converting YAML to JSON: ${first.errors[0]!.message}` };
    if (!text.endsWith('\n')) clipFinalBlockScalar(first, text);
    const value = first.toJS({ maxAliasCount: 1000 }) as unknown;
    return { ok: true, value: value === undefined ? null : value };
  } catch (e) {
    return { ok: false, message: `error converting YAML to JSON: ${e instanceof Error ? e.message : String(e)}` };
  }
}
