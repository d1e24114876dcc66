/**
 * Subtrees already checked against one schema during one evaluation, so a document that changes a little
 * between checks (MAP runs a policy's mutations one after another, typing the live object before every
 * ApplyConfiguration and strictly decoding it after every JSONPatch) is walked only where it changed.
 *
 * Sound only while the recorded containers are not mutated: callers keep one memo per evaluation of
 * copy-on-write documents (the interpreter never writes in place into a container it has handed to an
 * engine) and drop it afterwards.
 */
import type { Schema, TypeRef } from './schema.js';

export class CheckedSubtrees {
  /** Containers that validateTyped (duplicates allowed) found free of errors, with the type they were checked as. */
  private readonly valid = new Map<object, TypeRef>();
  /** Containers with no undeclared field anywhere below them (implied by `valid`). */
  private readonly declared = new Map<object, TypeRef>();

  constructor(readonly schema: Schema) {}

  isValid(tr: TypeRef, v: object): boolean {
    return this.valid.get(v) === tr;
  }

  markValid(tr: TypeRef, v: object): void {
    this.valid.set(v, tr);
  }

  isDeclared(tr: TypeRef, v: object): boolean {
    return this.valid.get(v) === tr || this.declared.get(v) === tr;
  }

  markDeclared(tr: TypeRef, v: object): void {
    this.declared.set(v, tr);
  }
}
