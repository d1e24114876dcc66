/**
 * The AST produced by the `jmespath` package's parser (jmespath.js 0.16, `compile()`), typed.
 * Node names are that package's; see node_modules/jmespath/jmespath.js `nud`/`led`.
 */
export type Comparator = 'EQ' | 'NE' | 'LT' | 'LTE' | 'GT' | 'GTE';

export type JmesNode =
  | { type: 'Literal'; value: unknown }
  | { type: 'Field'; name: string }
  | { type: 'Identity' }
  | { type: 'Current' }
  | { type: 'Index'; value: number }
  | { type: 'Slice'; children: [number | null, number | null, number | null] }
  | { type: 'Subexpression'; children: [JmesNode, JmesNode] }
  | { type: 'IndexExpression'; children: [JmesNode, JmesNode] }
  | { type: 'Projection'; children: [JmesNode, JmesNode] }
  | { type: 'ValueProjection'; children: [JmesNode, JmesNode] }
  | { type: 'FilterProjection'; children: [JmesNode, JmesNode, JmesNode] }
  | { type: 'Flatten'; children: [JmesNode] }
  | { type: 'Pipe'; children: [JmesNode, JmesNode] }
  | { type: 'OrExpression'; children: [JmesNode, JmesNode] }
  | { type: 'AndExpression'; children: [JmesNode, JmesNode] }
  | { type: 'NotExpression'; children: [JmesNode] }
  | { type: 'Comparator'; name: Comparator; children: [JmesNode, JmesNode] }
  | { type: 'MultiSelectList'; children: JmesNode[] }
  | { type: 'MultiSelectHash'; children: { type: 'KeyValuePair'; name: string; value: JmesNode }[] }
  | { type: 'Function'; name: string; children: JmesNode[] }
  | { type: 'ExpressionReference'; children: [JmesNode] };
