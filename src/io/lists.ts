/**
 * Lists of objects, as `kubectl get -o yaml` writes them (`kind: List`, `PodList`, ... with an `items` array),
 * expanded into their items as kubectl's resource builder flattens them (cli-runtime FlattenListVisitor).
 * Each item is a document of its own whose spans point into the List's `items`. An item with neither
 * apiVersion nor kind takes them from the List (`PodList` -> `Pod`), as apimachinery's unstructured list
 * decoding does.
 */
import { isJsonObject, type JsonObject, type JsonValue } from '../ir/json.js';
import { remappedDoc, type SourceDoc } from './source.js';

/** Deeper nesting of Lists than this is left as it is (the YAML nesting cap bounds it anyway). */
const MAX_LIST_DEPTH = 16;

export function isListObject(v: JsonValue): v is JsonObject & { kind: string; items: JsonValue[] } {
  return isJsonObject(v) && typeof v.kind === 'string' && v.kind.endsWith('List') && Array.isArray(v.items);
}

function itemDoc(list: SourceDoc, i: number, value: JsonValue): SourceDoc {
  return remappedDoc(list, value, (path) => ['items', i, ...path]);
}

/** The documents with every List replaced by its items (recursively); other documents are returned as they are. */
export function expandLists(docs: readonly SourceDoc[]): SourceDoc[] {
  const out: SourceDoc[] = [];
  const visit = (doc: SourceDoc, depth: number): void => {
    const v = doc.value;
    if (!isListObject(v) || depth >= MAX_LIST_DEPTH) {
      out.push(doc);
      return;
    }
    const itemKind = v.kind.slice(0, -'List'.length);
    v.items.forEach((item, i) => {
      const inherit = itemKind !== '' && typeof v.apiVersion === 'string' && isJsonObject(item) && item.apiVersion === undefined && item.kind === undefined;
      visit(itemDoc(doc, i, inherit ? { apiVersion: v.apiVersion as string, kind: itemKind, ...item } : item), depth + 1);
    });
  };
  for (const doc of docs) visit(doc, 0);
  return out;
}
