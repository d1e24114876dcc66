import { isAbsolute, relative, sep } from 'node:path';

/** Whether the absolute path `child` is `parent` or lies below it. */
export function isInside(child: string, parent: string): boolean {
  const r = relative(parent, child);
  return r === '' || (r !== '..' && !r.startsWith(`..${sep}`) && !isAbsolute(r));
}
