/**
 * Generates the JSON Schema (draft 2020-12) of the IR from the TypeScript declarations in `nodes.ts` and the
 * files it imports, with ts-morph. One `$defs` entry per named type; unions of string literals become `enum`,
 * other unions `oneOf` (the IR's unions are discriminated by `kind`, or disjoint by shape); optional properties
 * are left out of `required`; interfaces without an index signature are closed (`additionalProperties: false`).
 *
 * Pure: source file path in, schema object out. `scripts/generate-ir-schema.ts` writes `schema.json`;
 * `test/ir/schema.test.ts` regenerates in memory and fails when the committed file drifts.
 */
import {
  Node,
  Project,
  SyntaxKind,
  ts,
  type InterfaceDeclaration,
  type JSDocableNode,
  type PropertySignature,
  type TypeAliasDeclaration,
  type TypeNode,
} from 'ts-morph';

export type JsonSchema = { [key: string]: unknown };

type NamedDecl = InterfaceDeclaration | TypeAliasDeclaration;

const SCHEMA_ID = 'https://transmute.dev/schemas/ir/v1alpha1.json';

export function generateIrSchema(nodesFile: string): JsonSchema {
  const project = new Project({
    skipAddingFilesFromTsConfig: true,
    // Only declarations are read (no type checking), so the standard library is not needed; it costs seconds.
    skipLoadingLibFiles: true,
    compilerOptions: { strict: true, module: ts.ModuleKind.NodeNext, moduleResolution: ts.ModuleResolutionKind.NodeNext, target: ts.ScriptTarget.ES2022 },
  });
  const source = project.addSourceFileAtPath(nodesFile);
  project.resolveSourceFileDependencies();
  const gen = new Generator();
  // Every type nodes.ts declares or re-exports is part of the contract, referenced or not.
  for (const [name, decls] of source.getExportedDeclarations()) {
    const decl = decls.find((d): d is NamedDecl => Node.isInterfaceDeclaration(d) || Node.isTypeAliasDeclaration(d));
    if (decl) gen.named(name, decl);
  }
  gen.drain();
  relaxOverlappingUnions(gen.defs);
  const defs: JsonSchema = {};
  for (const name of [...gen.defs.keys()].sort()) defs[name] = gen.defs.get(name);
  return {
    $schema: 'https://json-schema.org/draft/2020-12/schema',
    $id: SCHEMA_ID,
    title: 'transmute IR',
    description: 'Policies of guarded path operations (generated from src/ir/nodes.ts by `npm run schema`; do not edit).',
    $ref: '#/$defs/PolicySet',
    $defs: defs,
  };
}

class Generator {
  readonly defs = new Map<string, JsonSchema>();
  private readonly queue: [string, NamedDecl][] = [];
  private readonly seen = new Set<string>();

  named(name: string, decl: NamedDecl): void {
    if (this.seen.has(name)) return;
    this.seen.add(name);
    this.queue.push([name, decl]);
  }

  drain(): void {
    for (let item = this.queue.shift(); item; item = this.queue.shift()) {
      const [name, decl] = item;
      const schema = Node.isInterfaceDeclaration(decl) ? this.interface(decl) : this.type(decl.getTypeNodeOrThrow());
      this.defs.set(name, withDescription(schema, decl));
    }
  }

  private ref(name: string, decl: NamedDecl): JsonSchema {
    this.named(name, decl);
    return { $ref: `#/$defs/${name}` };
  }

  private interface(decl: InterfaceDeclaration): JsonSchema {
    const properties: JsonSchema = {};
    const required: string[] = [];
    let additional: JsonSchema | false = false;
    const collect = (d: InterfaceDeclaration) => {
      for (const base of d.getExtends()) {
        const baseDecl = declarationOf(base.getExpression());
        if (!baseDecl || !Node.isInterfaceDeclaration(baseDecl)) throw new Error(`cannot resolve base ${base.getText()} of ${d.getName()}`);
        collect(baseDecl);
      }
      for (const member of d.getMembers()) {
        if (Node.isPropertySignature(member)) {
          const name = member.getName();
          properties[name] = withDescription(this.property(member), member);
          if (!member.hasQuestionToken() && !required.includes(name)) required.push(name);
        } else if (Node.isIndexSignatureDeclaration(member)) {
          additional = this.type(member.getReturnTypeNodeOrThrow());
        } else {
          throw new Error(`unsupported member ${member.getText()} in ${d.getName()}`);
        }
      }
    };
    collect(decl);
    const schema: JsonSchema = { type: 'object' };
    if (Object.keys(properties).length > 0) schema.properties = properties;
    if (required.length > 0) schema.required = required;
    schema.additionalProperties = additional;
    return schema;
  }

  private property(p: PropertySignature): JsonSchema {
    return this.type(p.getTypeNodeOrThrow());
  }

  type(node: TypeNode): JsonSchema {
    switch (node.getKind()) {
      case SyntaxKind.StringKeyword:
        return { type: 'string' };
      case SyntaxKind.NumberKeyword:
        return { type: 'number' };
      case SyntaxKind.BooleanKeyword:
        return { type: 'boolean' };
      case SyntaxKind.UnknownKeyword:
      case SyntaxKind.AnyKeyword:
        return {};
      case SyntaxKind.NullKeyword:
        return { type: 'null' };
      case SyntaxKind.ParenthesizedType:
        return this.type(node.asKindOrThrow(SyntaxKind.ParenthesizedType).getTypeNode());
      case SyntaxKind.LiteralType:
        return literal(node.asKindOrThrow(SyntaxKind.LiteralType).getLiteral());
      case SyntaxKind.ArrayType:
        return { type: 'array', items: this.type(node.asKindOrThrow(SyntaxKind.ArrayType).getElementTypeNode()) };
      case SyntaxKind.UnionType:
        return this.union(node.asKindOrThrow(SyntaxKind.UnionType).getTypeNodes());
      case SyntaxKind.TypeLiteral: {
        const lit = node.asKindOrThrow(SyntaxKind.TypeLiteral);
        const properties: JsonSchema = {};
        const required: string[] = [];
        for (const p of lit.getProperties()) {
          properties[p.getName()] = withDescription(this.property(p), p);
          if (!p.hasQuestionToken()) required.push(p.getName());
        }
        const schema: JsonSchema = { type: 'object', properties };
        if (required.length > 0) schema.required = required;
        schema.additionalProperties = false;
        return schema;
      }
      case SyntaxKind.TypeReference:
        return this.reference(node.asKindOrThrow(SyntaxKind.TypeReference));
      default:
        throw new Error(`unsupported type ${node.getText()} (${node.getKindName()})`);
    }
  }

  private reference(node: Node & { getTypeName(): Node; getTypeArguments(): TypeNode[] }): JsonSchema {
    const name = node.getTypeName().getText();
    const args = node.getTypeArguments();
    if (name === 'Record' && args.length === 2) return { type: 'object', additionalProperties: this.type(args[1]!) };
    if ((name === 'Array' || name === 'ReadonlyArray') && args.length === 1) return { type: 'array', items: this.type(args[0]!) };
    const decl = declarationOf(node.getTypeName());
    if (!decl) throw new Error(`cannot resolve type ${name}`);
    return this.ref(decl.getName(), decl);
  }

  private union(members: TypeNode[]): JsonSchema {
    const schemas = members.map((m) => this.type(m));
    if (schemas.every((s) => typeof s.const === 'string')) return { type: 'string', enum: schemas.map((s) => s.const) };
    const simple = schemas.every((s) => Object.keys(s).length === 1 && typeof s.type === 'string');
    if (simple) return { type: schemas.map((s) => s.type) };
    return { oneOf: schemas };
  }
}

/**
 * `oneOf` requires exactly one member to match. Unions whose members share a `kind` (the `Node` union holds
 * both `CelGuard` and `CelValue`, which have the same shape) become `anyOf` so valid nodes validate.
 */
function relaxOverlappingUnions(defs: Map<string, JsonSchema>): void {
  const kindsOf = (s: JsonSchema, seen: Set<string>): string[] => {
    if (typeof s.$ref === 'string') {
      const name = s.$ref.slice('#/$defs/'.length);
      if (seen.has(name)) return [];
      seen.add(name);
      return kindsOf(defs.get(name) ?? {}, seen);
    }
    if (Array.isArray(s.oneOf)) return (s.oneOf as JsonSchema[]).flatMap((m) => kindsOf(m, seen));
    const kind = (s.properties as Record<string, JsonSchema> | undefined)?.kind;
    if (!kind) return [];
    if (typeof kind.const === 'string') return [kind.const];
    return Array.isArray(kind.enum) ? (kind.enum as string[]) : [];
  };
  const visit = (s: unknown): void => {
    if (Array.isArray(s)) return s.forEach(visit);
    if (typeof s !== 'object' || s === null) return;
    const o = s as JsonSchema;
    if (Array.isArray(o.oneOf)) {
      const all = (o.oneOf as JsonSchema[]).flatMap((m) => kindsOf(m, new Set()));
      if (new Set(all).size !== all.length) {
        o.anyOf = o.oneOf;
        delete o.oneOf;
      }
    }
    Object.values(o).forEach(visit);
  };
  for (const def of defs.values()) visit(def);
}

function literal(lit: Node): JsonSchema {
  if (Node.isStringLiteral(lit)) return { const: lit.getLiteralValue() };
  if (Node.isNumericLiteral(lit)) return { const: lit.getLiteralValue() };
  if (lit.getKind() === SyntaxKind.TrueKeyword) return { const: true };
  if (lit.getKind() === SyntaxKind.FalseKeyword) return { const: false };
  if (lit.getKind() === SyntaxKind.NullKeyword) return { type: 'null' };
  throw new Error(`unsupported literal ${lit.getText()}`);
}

/** The interface or type alias a name refers to, following imports and re-exports. */
function declarationOf(nameNode: Node): NamedDecl | undefined {
  let symbol = nameNode.getSymbol();
  if (symbol?.isAlias()) symbol = symbol.getAliasedSymbol();
  return symbol?.getDeclarations().find((d): d is NamedDecl => Node.isInterfaceDeclaration(d) || Node.isTypeAliasDeclaration(d));
}

/** The node's JSDoc text, on one line, as `description`. */
function withDescription(schema: JsonSchema, node: JSDocableNode | Node): JsonSchema {
  if (!('getJsDocs' in node)) return schema;
  const text = (node as JSDocableNode)
    .getJsDocs()
    .map((d) => d.getDescription().trim())
    .filter((t) => t.length > 0)
    .join('\n');
  if (!text) return schema;
  const description = text.replace(/\s*\n\s*/g, ' ');
  return schema.$ref ? { $ref: schema.$ref, description } : { description, ...schema };
}
