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

type Fact = TypeRef | DeclaredOnly;

export class CheckedSubtrees {
  /**
   * Per container: the type validateTyped (duplicates allowed) found it free of errors at, or a DeclaredOnly
   * for one known only to have no undeclared field anywhere below it (implied by valid). The first container
   * recorded is held in two fields, the rest in a map made on first use: most evaluations record one
   * container only (the document typed or decoded whole, fast-checks.ts), and a map per evaluation cost
   * more than the look-ups it serves. A container in both (the field slot was freed, then taken again)
   * reads from the fields, which hold the later fact.
   */
  private firstContainer: object | undefined;
  private firstFact: Fact | undefined;
  private facts: Map<object, Fact> | undefined;
  /** One DeclaredOnly per type, so that recording one allocates nothing. */
  private declaredTags: Map<TypeRef, DeclaredOnly> | undefined;

  /** The documents recorded last by noteValidDocument and noteDeclaredDocument, with their type (no value: none recorded). */
  private lastValidTr: TypeRef | undefined;
  private lastValid: JsonValue | undefined;
  private lastDeclaredTr: TypeRef | undefined;
  private lastDeclared: JsonValue | undefined;

  constructor(readonly schema: Schema) {}

  /**
   * A whole document found valid at `tr` (validateTyped, duplicates allowed): the next typing of a document
   * at `tr` compares against it (fast-checks.ts typesCleanlySince), walking only what differs. Valid implies
   * declared, so the next strict decode does the same.
   */
  noteValidDocument(tr: TypeRef, v: JsonValue): void {
    this.lastValidTr = this.lastDeclaredTr = tr;
    this.lastValid = this.lastDeclared = v;
  }

  /**
   * A whole document found to have no undeclared field at `tr`: the next strict decode compares against it
   * (fast-checks.ts declaresEveryFieldSince), walking only what differs.
   */
  noteDeclaredDocument(tr: TypeRef, v: JsonValue): void {
    this.lastDeclaredTr = tr;
    this.lastDeclared = v;
  }

  /** The document noteValidDocument recorded last, when it was at `tr`. */
  validDocument(tr: TypeRef): JsonValue | undefined {
    return this.lastValidTr === tr ? this.lastValid : undefined;
  }

  /** The document noteDeclaredDocument (or noteValidDocument) recorded last, when it was at `tr`. */
  declaredDocument(tr: TypeRef): JsonValue | undefined {
    return this.lastDeclaredTr === tr ? this.lastDeclared : undefined;
  }

  /**
   * Drops what is known about `v`, a container changed in place (a JSONPatch writing into maps the
   * evaluation owns, src/interpreter/ops/json-patch.ts): its facts, and the documents recorded last when `v`
   * is one of them.
   */
  forget(v: object): void {
    if (this.firstContainer === v) this.firstContainer = this.firstFact = undefined;
    this.facts?.delete(v);
    if (this.lastValid === v) this.lastValidTr = this.lastValid = undefined;
    if (this.lastDeclared === v) this.lastDeclaredTr = this.lastDeclared = undefined;
  }

  /** Nothing is recorded about any container: a walk of a whole document would find no fact to skip with. */
  knowsNothing(): boolean {
    return this.firstContainer === undefined && this.facts === undefined;
  }

  private factOf(v: object): Fact | undefined {
    if (this.firstContainer === v) return this.firstFact;
    return this.facts === undefined ? undefined : this.facts.get(v);
  }

  private record(v: object, fact: Fact): void {
    const first = this.firstContainer;
    if (first === undefined || first === v) {
      this.firstContainer = v;
      this.firstFact = fact;
    } else (this.facts ??= new Map()).set(v, fact);
  }

  isValid(tr: TypeRef, v: object): boolean {
    return this.factOf(v) === tr;
  }

  markValid(tr: TypeRef, v: object): void {
    this.record(v, tr);
  }

  isDeclared(tr: TypeRef, v: object): boolean {
    const fact = this.factOf(v);
    return fact === tr || (fact instanceof DeclaredOnly && fact.tr === tr);
  }

  markDeclared(tr: TypeRef, v: object): void {
    // Valid at `tr` says more; another type's entry is only replaced (at worst a later walk again).
    if (this.factOf(v) === tr) return;
    const tags = (this.declaredTags ??= new Map());
    let tag = tags.get(tr);
    if (tag === undefined) {
      tag = new DeclaredOnly(tr);
      tags.set(tr, tag);
    }
    this.record(v, tag);
  }
}
