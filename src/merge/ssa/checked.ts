/**
 * Subtrees already checked against one schema during one evaluation, so a document that changes a little
 * between checks (MAP runs a policy's mutations one after another, typing the live object before every
 * ApplyConfiguration and strictly decoding it after every JSONPatch) is walked only where it changed.
 *
 * Sound only while the recorded containers are not mutated: callers keep one memo per evaluation of
 * copy-on-write documents and drop it afterwards. The exceptions are the maps the evaluation owns: a merge
 * writes into them only what keeps them valid (and records the result again), a JSONPatch has the strict
 * decode forget every container it changed (`forget`).
 */
import type { JsonValue } from '../../ir/json.js';
import type { Schema, TypeRef } from './schema.js';

/** A container with no undeclared field below it at `tr`, not known to type cleanly (see CheckedSubtrees). */
class DeclaredOnly {
  constructor(readonly tr: TypeRef) {}
}

export class CheckedSubtrees {
  /**
   * Per container: the type validateTyped (duplicates allowed) found it free of errors at, or a DeclaredOnly
   * for one known only to have no undeclared field anywhere below it (implied by valid). One map, made on
   * first use: an evaluation asks about a few containers only, and most evaluations ask nothing twice.
   */
  private facts: Map<object, TypeRef | DeclaredOnly> | undefined;
  /** One DeclaredOnly per type, so that recording one allocates nothing. */
  private declaredTags: Map<TypeRef, DeclaredOnly> | undefined;

  /** The documents recorded last by noteValidDocument and noteDeclaredDocument, with their type. */
  private lastValid: { readonly tr: TypeRef; readonly value: JsonValue } | undefined;
  private lastDeclared: { readonly tr: TypeRef; readonly value: JsonValue } | undefined;

  constructor(readonly schema: Schema) {}

  /**
   * A whole document found valid at `tr` (validateTyped, duplicates allowed): the next typing of a document
   * at `tr` compares against it (fast-checks.ts typesCleanlySince), walking only what differs. Valid implies
   * declared, so the next strict decode does the same.
   */
  noteValidDocument(tr: TypeRef, v: JsonValue): void {
    this.lastValid = this.lastDeclared = { tr, value: v };
  }

  /**
   * A whole document found to have no undeclared field at `tr`: the next strict decode compares against it
   * (fast-checks.ts declaresEveryFieldSince), walking only what differs.
   */
  noteDeclaredDocument(tr: TypeRef, v: JsonValue): void {
    this.lastDeclared = { tr, value: v };
  }

  /** The document noteValidDocument recorded last, when it was at `tr`. */
  validDocument(tr: TypeRef): JsonValue | undefined {
    const last = this.lastValid;
    return last !== undefined && last.tr === tr ? last.value : undefined;
  }

  /** The document noteDeclaredDocument (or noteValidDocument) recorded last, when it was at `tr`. */
  declaredDocument(tr: TypeRef): JsonValue | undefined {
    const last = this.lastDeclared;
    return last !== undefined && last.tr === tr ? last.value : undefined;
  }

  /**
   * Drops what is known about `v`, a container changed in place (a JSONPatch writing into maps the
   * evaluation owns, src/interpreter/ops/json-patch.ts): its facts, and the documents recorded last when `v`
   * is one of them.
   */
  forget(v: object): void {
    this.facts?.delete(v);
    if (this.lastValid?.value === v) this.lastValid = undefined;
    if (this.lastDeclared?.value === v) this.lastDeclared = undefined;
  }

  isValid(tr: TypeRef, v: object): boolean {
    return this.facts !== undefined && this.facts.get(v) === tr;
  }

  markValid(tr: TypeRef, v: object): void {
    (this.facts ??= new Map()).set(v, tr);
  }

  isDeclared(tr: TypeRef, v: object): boolean {
    if (this.facts === undefined) return false;
    const fact = this.facts.get(v);
    return fact === tr || (fact instanceof DeclaredOnly && fact.tr === tr);
  }

  markDeclared(tr: TypeRef, v: object): void {
    const facts = (this.facts ??= new Map());
    // Valid at `tr` says more; another type's entry is only replaced (at worst a later walk again).
    if (facts.get(v) === tr) return;
    const tags = (this.declaredTags ??= new Map());
    let tag = tags.get(tr);
    if (tag === undefined) {
      tag = new DeclaredOnly(tr);
      tags.set(tr, tag);
    }
    facts.set(v, tag);
  }
}
