/**
 * The shortcuts in the leaves of AssignImage and ModifySet (issue 17) against the plain definitions they
 * stand for: an image edit is split, replace, join (src/k8s/image-ref.ts); a merge appends each value no
 * element is jsonEqual to.
 */
import { describe, expect, it } from 'vitest';
import { imageLeaf } from '../../src/interpreter/ops/image.js';
import { setMembersLeaf } from '../../src/interpreter/ops/set-members.js';
import { UNCHANGED } from '../../src/interpreter/walk.js';
import { jsonEqual, type JsonValue } from '../../src/ir/json.js';
import type { ImageOp, SetMembersOp } from '../../src/ir/nodes.js';
import type { Segment } from '../../src/ir/path.js';
import { joinImage, splitImage } from '../../src/k8s/image-ref.js';
import { O, p } from './support.js';

const SEG: Segment = { kind: 'field', name: 'image' };

const IMAGES = [
  '',
  'app',
  'app:1',
  'app@sha256:abc',
  'team/app:1',
  'registry.io/app:1',
  'registry.io/team/app@sha256:1',
  'localhost/app',
  'localhost:5000/app:2',
  'mirror.example.com/app',
  'mirror.example.com/registry.io/app:1',
  'mirror.example.com:443/app',
  'mirror.example.comx/app',
  'mirror.example.com',
];
const DOMAINS = ['mirror.example.com', 'localhost', 'localhost:5000', 'registry.io', 'nodomain', 'a/b.io', ''];

function expectedImage(op: ImageOp, old: string | undefined): JsonValue | typeof UNCHANGED {
  const current = old ?? '';
  const parts = splitImage(current);
  const next = joinImage({ domain: op.domain ?? parts.domain, path: op.repo ?? parts.path, tag: op.tag ?? parts.tag });
  return old !== undefined && next === current ? UNCHANGED : next;
}

describe('leaf shortcuts', () => {
  it('an AssignImage leaf gives what split, replace and join give', () => {
    for (const domain of DOMAINS) {
      for (const extra of [{}, { tag: ':2' }, { repo: 'other' }]) {
        const op: ImageOp = { kind: 'image', path: p('object', 'image'), domain, ...extra, origin: O };
        const leaf = imageLeaf(op);
        for (const image of [...IMAGES, undefined]) {
          expect(leaf(image, image !== undefined, SEG), JSON.stringify({ domain, extra, image })).toBe(expectedImage(op, image));
        }
      }
    }
  });

  it('a ModifySet merge appends exactly the values no element is jsonEqual to', () => {
    const values: JsonValue[] = ['a', 'b', 1, 0, true, false, null, { k: 1 }, ['a'], '1'];
    const op: SetMembersOp = { kind: 'setMembers', path: p('object', 'l'), values: [], mode: 'merge', origin: O };
    for (let i = 0; i < values.length; i++) {
      for (let j = 0; j < values.length; j++) {
        const old = [values[i]!, { k: 1 }, 'x'];
        const members = [values[j]!, values[(j + 3) % values.length]!, values[j]!];
        const want: JsonValue[] = old.slice();
        for (const m of members) if (!want.some((el) => jsonEqual(el, m))) want.push(m);
        const got = setMembersLeaf(op, members)(old, true, SEG);
        expect(got === UNCHANGED ? old : got, JSON.stringify({ old, members })).toEqual(want);
      }
    }
  });
});
