/**
 * Kind schemas from loaded files: CustomResourceDefinition manifests (`--crd`; a `List` of them too, as
 * `kubectl get crd -o yaml` prints) and OpenAPI v3 documents (`--schema`). Later documents win for a kind
 * defined twice.
 */
import type { Diagnostic, Result } from '../../../diagnostics/index.js';
import { diagnostic, fail, ok } from '../../../diagnostics/index.js';
import { hasOwn, isJsonObject } from '../../../ir/json.js';
import type { SourceDoc } from '../../../io/source.js';
import { convertOpenApiDocument } from './convert.js';
import { crdKindSchemas } from './crd.js';
import { KindSchemaTable } from './kinds.js';

function finish(table: KindSchemaTable, diagnostics: Diagnostic[]): Result<KindSchemaTable> {
  return diagnostics.some((d) => d.severity === 'error') ? fail(...diagnostics) : ok(table, diagnostics);
}

/** The served kinds of every CRD in `docs`. */
export function kindSchemasFromCrds(docs: readonly SourceDoc[]): Result<KindSchemaTable> {
  const table = new KindSchemaTable();
  const diagnostics: Diagnostic[] = [];
  const add = (r: ReturnType<typeof crdKindSchemas>) => {
    diagnostics.push(...r.diagnostics);
    if (r.ok) table.addAll(r.value.kinds);
  };
  for (const doc of docs) {
    const v = doc.value;
    if (isJsonObject(v) && hasOwn(v, 'kind') && v['kind'] === 'List' && hasOwn(v, 'items') && Array.isArray(v['items'])) {
      v['items'].forEach((item, i) => add(crdKindSchemas(item, doc, ['items', i])));
    } else add(crdKindSchemas(v, doc));
  }
  return finish(table, diagnostics);
}

/** The kinds of every OpenAPI v3 document in `docs` (`x-kubernetes-group-version-kind` of each schema). */
export function kindSchemasFromOpenApi(docs: readonly SourceDoc[]): Result<KindSchemaTable> {
  const table = new KindSchemaTable();
  const diagnostics: Diagnostic[] = [];
  for (const doc of docs) {
    const r = convertOpenApiDocument(doc.value, { source: doc });
    diagnostics.push(...r.diagnostics);
    if (!r.ok) continue;
    if (r.value.kinds.size === 0) {
      diagnostics.push(
        diagnostic('TM2002', {
          phase: 'parse',
          severity: 'warning',
          message: 'OpenAPI v3 document: no schema names a kind (x-kubernetes-group-version-kind); it adds nothing',
          span: doc.spanOf(['components', 'schemas']),
        }),
      );
    }
    table.addAll(r.value.kinds);
  }
  return finish(table, diagnostics);
}
