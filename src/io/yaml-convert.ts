/**
 * Turns one composed YAML document (the `yaml` package's AST) into a plain JSON value the way Kubernetes'
 * sigs.k8s.io/yaml `YAMLToJSON` does: go-yaml v2 scalar resolution (see go-yaml-resolve.ts), merge keys with
 * go-yaml v2 semantics, non-string keys stringified, duplicate keys resolved "last one wins" (with a TM1006
 * warning, as the API server's strict field validation reports them), and aliases expanded under go-yaml's
 * alias-ratio budget so a "billion laughs" document is refused after a few thousand nodes instead of expanded.
 *
 * Objects are built with `defineOwn`, so `__proto__` and `constructor` are ordinary own keys.
 */
import { isAlias, isMap, isScalar, isSeq, type Alias, type Node, type Pair, type Scalar, type YAMLMap } from 'yaml';
import type { DiagnosticCode } from '../diagnostics/codes.js';
import { defineOwn, type JsonObject, type JsonValue } from '../ir/json.js';
import { jsonKeyOf, resolveScalar, type Resolved, YAML_TAG_PREFIX } from './go-yaml-resolve.js';

/** A problem found while converting, with raw offsets into the text the AST was parsed from. */
export interface ConvertIssue {
  code: DiagnosticCode;
  message: string;
  range: [number, number];
  related?: { message: string; range: [number, number] }[];
}

export interface Converted {
  /** Absent when an error made the document unusable. */
  value?: JsonValue;
  issues: ConvertIssue[];
}

/** decode.go `allowedAliasRatio`: small documents may be 99% alias expansion, huge ones only 10%. */
export function allowedAliasRatio(decodeCount: number): number {
  const low = 400_000;
  const high = 4_000_000;
  if (decodeCount <= low) return 0.99;
  if (decodeCount >= high) return 0.1;
  return 0.99 - 0.89 * ((decodeCount - low) / (high - low));
}

class Abort {
  constructor(readonly issue: ConvertIssue) {}
}

type AnyNode = Node | Pair | null | undefined;

function rangeOf(node: AnyNode): [number, number] {
  const r = (node as { range?: [number, number, number] } | null | undefined)?.range;
  return r ? [r[0], r[1]] : [0, 0];
}

const MERGE_TAG = `${YAML_TAG_PREFIX}merge`;

function isMergeKey(key: unknown): boolean {
  if (!isScalar(key) || key.source !== '<<') return false;
  return key.tag === MERGE_TAG || (key.tag === undefined && key.type === 'PLAIN');
}

/**
 * Finds the node each alias refers to: the closest preceding definition of its anchor in document order, as
 * go-yaml's parser binds them (an anchor is defined before its node's children, so an alias inside its own
 * anchored node refers to that node and is reported as a cycle when expanded).
 */
export function aliasTargets(root: Node | null): Map<Alias, Node | undefined> {
  const anchors = new Map<string, Node>();
  const targets = new Map<Alias, Node | undefined>();
  const stack: AnyNode[] = [root];
  while (stack.length > 0) {
    const node = stack.pop();
    if (!node) continue;
    if (isAlias(node)) {
      targets.set(node, anchors.get(node.source));
      continue;
    }
    const anchor = (node as { anchor?: string }).anchor;
    if (anchor) anchors.set(anchor, node as Node);
    if (isMap(node) || isSeq(node)) {
      const items = node.items as unknown[];
      for (let i = items.length - 1; i >= 0; i--) {
        const item = items[i];
        if (isMap(node)) {
          const pair = item as Pair;
          stack.push(pair.value as AnyNode, pair.key as AnyNode);
        } else stack.push(item as AnyNode);
      }
    }
  }
  return targets;
}

class Converter {
  private decodeCount = 0;
  private aliasCount = 0;
  private aliasDepth = 0;
  private readonly active = new Set<Alias>();
  private targets: Map<Alias, Node | undefined> | undefined;
  private readonly reportedDuplicates = new Set<unknown>();
  readonly issues: ConvertIssue[] = [];

  constructor(
    private readonly root: Node | null,
    private readonly maxDepth: number,
    private readonly yaml12: boolean,
  ) {}

  run(): Converted {
    try {
      this.count(null); // the document node, as decode.go counts it
      this.count(this.root);
      const value = this.value(this.root, 0);
      return { value, issues: this.issues };
    } catch (e) {
      if (e instanceof Abort) return { issues: [...this.issues, e.issue] };
      throw e;
    }
  }

  /** decode.go `unmarshal`: every decoded node counts; nodes reached through an alias count as alias expansion. */
  private count(node: AnyNode): void {
    this.decodeCount++;
    if (this.aliasDepth > 0) this.aliasCount++;
    if (this.aliasCount > 100 && this.decodeCount > 1000 && this.aliasCount / this.decodeCount > allowedAliasRatio(this.decodeCount)) {
      throw new Abort({
        code: 'TM1002',
        message: `document contains excessive aliasing (${this.aliasCount} of ${this.decodeCount} nodes come from alias expansion); refused without expanding further`,
        range: rangeOf(node),
      });
    }
  }

  private target(alias: Alias): Node {
    this.targets ??= aliasTargets(this.root);
    const target = this.targets.get(alias);
    if (!target) throw new Abort({ code: 'TM1001', message: `unknown anchor '${alias.source}' referenced`, range: rangeOf(alias) });
    return target;
  }

  /** Runs `body` on the alias's target, with go-yaml's cycle check (decode.go `alias`). */
  private throughAlias<T>(alias: Alias, body: (target: Node) => T): T {
    if (this.active.has(alias)) {
      throw new Abort({ code: 'TM1002', message: `anchor '${alias.source}' value contains itself`, range: rangeOf(alias) });
    }
    const target = this.target(alias);
    this.active.add(alias);
    this.aliasDepth++;
    try {
      return body(target);
    } finally {
      this.aliasDepth--;
      this.active.delete(alias);
    }
  }

  private value(node: AnyNode, depth: number): JsonValue {
    if (node === null || node === undefined) return null;
    if (isAlias(node)) {
      return this.throughAlias(node, (target) => {
        this.count(target);
        return this.value(target, depth);
      });
    }
    if (isScalar(node)) return this.scalar(node);
    if (isSeq(node)) {
      this.enter(node, depth);
      const out: JsonValue[] = [];
      for (const item of node.items as AnyNode[]) {
        this.count(item);
        out.push(this.value(item, depth + 1));
      }
      return out;
    }
    if (isMap(node)) {
      this.enter(node, depth);
      const out: JsonObject = {};
      this.fillMap(node, out, depth + 1);
      return out;
    }
    throw new Abort({ code: 'TM1001', message: 'unsupported YAML node', range: rangeOf(node) });
  }

  private enter(node: AnyNode, depth: number): void {
    if (depth + 1 > this.maxDepth) {
      throw new Abort({ code: 'TM1007', message: `nesting deeper than ${this.maxDepth} levels`, range: rangeOf(node) });
    }
  }

  private resolved(node: Scalar): Resolved {
    const source = typeof node.source === 'string' ? node.source : String(node.value ?? '');
    const r = resolveScalar(source, node.type === 'PLAIN', node.tag, this.yaml12);
    if ('error' in r) throw new Abort({ code: 'TM1001', message: r.error, range: rangeOf(node) });
    return r;
  }

  private scalar(node: Scalar): JsonValue {
    const r = this.resolved(node);
    if (typeof r.value === 'number' && !Number.isFinite(r.value)) {
      // encoding/json refuses NaN and infinities, so YAMLToJSON (and kubectl) fail on them as well.
      throw new Abort({ code: 'TM1001', message: `${String(node.source)} (a YAML ${Number.isNaN(r.value) ? 'NaN' : 'infinity'}) has no JSON representation`, range: rangeOf(node) });
    }
    return r.value;
  }

  /** decode.go `mapping`: pairs in order; `<<` merges overwrite what is already there (go-yaml v2, not v3). */
  private fillMap(map: YAMLMap, out: JsonObject, depth: number): void {
    const seen = new Map<string, AnyNode>();
    for (const pair of map.items as Pair[]) {
      if (isMergeKey(pair.key)) {
        this.merge(pair.value as AnyNode, out, depth);
        continue;
      }
      const keyNode = pair.key as AnyNode;
      this.count(keyNode);
      const key = this.key(keyNode);
      this.count(pair.value as AnyNode);
      const value = this.value(pair.value as AnyNode, depth);
      const first = seen.get(key);
      if (first !== undefined && !this.reportedDuplicates.has(keyNode)) {
        this.reportedDuplicates.add(keyNode);
        this.issues.push({
          code: 'TM1006',
          message: `duplicate key '${key}': the last value wins`,
          range: rangeOf(keyNode),
          related: [{ message: 'first defined here', range: rangeOf(first) }],
        });
      }
      seen.set(key, keyNode);
      // Last value wins; the key keeps the position of its first occurrence.
      defineOwn(out, key, value);
    }
  }

  private merge(value: AnyNode, out: JsonObject, depth: number): void {
    const wantMap = (): Abort =>
      new Abort({ code: 'TM1001', message: 'map merge requires map or sequence of maps as the value', range: rangeOf(value) });
    const mergeOne = (node: AnyNode): void => {
      this.count(node);
      if (isMap(node)) this.fillMap(node, out, depth);
      else if (isAlias(node)) {
        this.throughAlias(node, (target) => {
          if (!isMap(target)) throw wantMap();
          this.count(target);
          this.fillMap(target, out, depth);
        });
      } else throw wantMap();
    };
    if (isSeq(value)) {
      // Step backwards: earlier maps in the list take precedence.
      const items = value.items as AnyNode[];
      for (let i = items.length - 1; i >= 0; i--) mergeOne(items[i]);
    } else mergeOne(value);
  }

  private key(node: AnyNode): string {
    if (isAlias(node)) {
      return this.throughAlias(node, (target) => {
        this.count(target);
        return this.key(target);
      });
    }
    if (!isScalar(node)) {
      throw new Abort({ code: 'TM1001', message: 'invalid map key: a map or sequence cannot be a key in JSON', range: rangeOf(node) });
    }
    const k = jsonKeyOf(this.resolved(node));
    if (typeof k !== 'string') throw new Abort({ code: 'TM1001', message: k.error, range: rangeOf(node) });
    return k;
  }
}

/** Converts a composed document's contents; limits are enforced as it goes. */
export function yamlToJson(root: Node | null, maxDepth: number, yaml12 = false): Converted {
  return new Converter(root, maxDepth, yaml12).run();
}
