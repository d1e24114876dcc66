/** The compact structural schema format (a node refers to its children by index into the table's nodes). */
import type { JsonValue } from '../ir/json.js';

export interface SchemaNode {
  type?: 'object' | 'array' | 'string' | 'integer' | 'number' | 'boolean';
  properties?: Record<string, number>;
  additionalProperties?: number | boolean;
  items?: number;
  required?: string[];
  enum?: JsonValue[];
  hasDefault?: boolean;
  nullable?: boolean;
  preserve?: boolean;
  intOrString?: boolean;
  pattern?: string;
  format?: string;
  maxLength?: number;
  minLength?: number;
  maxItems?: number;
  minItems?: number;
  minimum?: number;
  maximum?: number;
  maxProperties?: number;
  minProperties?: number;
  oneOf?: number[];
  anyOf?: number[];
  allOf?: number[];
  not?: number;
  listType?: 'atomic' | 'set' | 'map';
  listMapKeys?: string[];
}

export interface KindSchema {
  root: number;
  scope: 'Namespaced' | 'Cluster';
  deprecated?: boolean;
}

export interface CompactSchemaTable {
  source: string;
  nodes: SchemaNode[];
  /** `group/version/Kind` to its root node. */
  kinds: Record<string, KindSchema>;
}

/** Builds a table's node list, sharing identical subschemas (children come before their parents). */
export class NodeInterner {
  readonly nodes: SchemaNode[] = [];
  private readonly ids = new Map<string, number>();

  intern(node: SchemaNode): number {
    const key = JSON.stringify(node);
    let id = this.ids.get(key);
    if (id === undefined) {
      id = this.nodes.length;
      this.nodes.push(node);
      this.ids.set(key, id);
    }
    return id;
  }
}

