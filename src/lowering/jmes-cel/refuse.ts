/**
 * Refusals travel as exceptions inside the compiler (a construct deep in an expression refuses the whole
 * expression) and come out of the public functions as `{ ok: false, why, class }`.
 * - cannot: the target CEL environment has no way to express it;
 * - yet: expressible, but this compiler does not do it.
 */
export type RefusalClass = 'cannot' | 'yet';

export class Refused extends Error {
  constructor(
    readonly cls: RefusalClass,
    readonly why: string,
  ) {
    super(why);
  }
}

export function cannot(why: string): never {
  throw new Refused('cannot', why);
}

export function yet(why: string): never {
  throw new Refused('yet', why);
}
