/**
 * JMESPath truthiness (go-jmespath util.go isFalse): null, false, "", [] and {} are false, everything else
 * (every number, 0 included) is true. In CEL one membership test covers every JSON type: `in` compares with
 * heterogeneous equality, so `0 in [false]` is false and `[] in [[]]` true.
 */
import { bind, frag, type Frag } from './frag.js';
import type { Cx } from './context.js';

const FALSY = '[dyn(null), dyn(false), dyn(""), dyn([]), dyn({})]';

/** A CEL bool that is true when `f` is JMESPath-truthy; errors of `f` propagate. */
export function truthy(f: Frag, cx: Cx): Frag {
  switch (f.t) {
    case 'bool':
      return f;
    case 'null':
      return frag('false', 'bool', { simple: true, atom: true });
    case 'string':
      return frag(`${f.atom ? f.cel : `(${f.cel})`} != ""`, 'bool', { err: f.err });
    case 'list':
    case 'map':
      return frag(`size(${f.cel}) != 0`, 'bool', { err: f.err });
    case 'int':
    case 'double':
      // Always true, but the value is still evaluated so that its error surfaces.
      return f.err ? bind(f, cx.names, () => frag('true', 'bool', { simple: true, atom: true })) : frag('true', 'bool', { simple: true, atom: true });
    default:
      return frag(`!(${f.atom ? f.cel : `(${f.cel})`} in ${FALSY})`, 'bool', { err: f.err, atom: true });
  }
}
