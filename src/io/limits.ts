/** Bounds on what transmute reads, so that every walk over an object or a path stays within the stack. */

/** Far beyond any Kubernetes object (CRD schemas reach a few dozen levels), well within the composer's stack. */
export const MAX_OBJECT_DEPTH = 256;
