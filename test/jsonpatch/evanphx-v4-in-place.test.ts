/**
 * Differential test of the in-place JSONPatch (src/jsonpatch/evanphx-v4-in-place.ts) against evanphx-v4.ts:
 * random patches over random Pods, with a random part of each document owned. Whenever it answers, the
 * result is the reference's (member order too); it gives up only on a step the reference fails or one it
 * does not take, leaving the document exactly as it was; it never writes into a container it does not own
 * (those are frozen) nor below one.
 */
import { describe, expect, it } from 'vitest';
import { makePods } from '../../bench/pods.js';
import type { JsonObject, JsonValue } from '../../src/ir/json.js';
import type { PatchStep } from '../../src/jsonpatch/apply.js';
import { applyEvanphxV4 } from '../../src/jsonpatch/evanphx-v4.js';
import { applyEvanphxV4InPlace, MemberSets } from '../../src/jsonpatch/evanphx-v4-in-place.js';
import { mulberry32 as random, pick } from '../support/random.js';

const clone = <T>(v: T): T => JSON.parse(JSON.stringify(v)) as T;
const escape = (s: string): string => s.replace(/~/g, '~0').replace(/\//g, '~1');

/** Every path of `v` (containers and scalars), as pointer pieces. */
function places(v: JsonValue, path: string[] = [], out: string[][] = []): string[][] {
  out.push(path);
  if (v === null || typeof v !== 'object') return out;
  if (Array.isArray(v)) v.forEach((x, i) => places(x, [...path, String(i)], out));
  else for (const k of Object.keys(v)) places(v[k]!, [...path, k], out);
  return out;
}

const VALUES: JsonValue[] = [null, 'x', 3, true, [], {}, ['a', 'b'], { k: 'v' }, { name: 'side', image: 'i' }];
const OPS = ['add', 'add', 'add', 'replace', 'replace', 'remove', 'test', 'move', 'copy'];
/** The patches of member sets only (setMembers takes them whole, or gives them to InPlaceRun). */
const SET_OPS = ['add', 'replace'];

/** A step at an existing place, beside one, below a missing one, or at an odd array index. */
function randomStep(doc: JsonValue, next: () => number, ops: readonly string[] = OPS): PatchStep {
  const op = pick(next, ops);
  const at = pick(next, places(doc));
  const r = next();
  let path: string;
  if (r < 0.5) path = at.map((p) => '/' + escape(p)).join('');
  else if (r < 0.7) path = [...at, pick(next, ['new', 'a/b', '-', '0', '-1', '9', '01'])].map((p) => '/' + escape(p)).join('');
  else if (r < 0.8) path = [...at, 'missing', 'deeper'].map((p) => '/' + escape(p)).join('');
  else if (r < 0.9) path = pick(next, ['', '/', 'metadata/name', '/spec/containers/-', '/spec/containers/-1/name', '/spec/containers/5']);
  else path = at.map((p) => '/' + escape(p)).join('') + '/-';
  const hasValue = op !== 'remove' || next() < 0.2;
  const from = pick(next, places(doc)).map((p) => '/' + escape(p)).join('');
  return { op, path, from, value: hasValue ? clone(pick(next, VALUES)) : undefined, hasValue };
}

/** A set of containers closed upwards (each one's parent is in it), chosen at random. */
function ownedPart(doc: JsonValue, next: () => number): Set<object> {
  const owned = new Set<object>();
  const visit = (v: JsonValue): void => {
    if (v === null || typeof v !== 'object' || next() < 0.25) return;
    owned.add(v);
    if (Array.isArray(v)) v.forEach(visit);
    else Object.values(v).forEach(visit);
  };
  visit(doc);
  return owned;
}

function freezeUnowned(v: JsonValue, owned: Set<object>): void {
  if (v === null || typeof v !== 'object') return;
  if (!owned.has(v)) Object.freeze(v);
  if (Array.isArray(v)) v.forEach((x) => freezeUnowned(x, owned));
  else Object.values(v).forEach((x) => freezeUnowned(x, owned));
}

/** Every owned container with its JSON text (what `changed` must name when it differs afterwards). */
function ownedTexts(owned: Set<object>): Map<object, string> {
  return new Map([...owned].map((c) => [c, JSON.stringify(c)]));
}

describe.each([
  { name: 'any steps', ops: OPS, seeds: 3000, reused: false },
  { name: 'member sets only', ops: SET_OPS, seeds: 1500, reused: false },
  // One MemberSets filled again at every patch, as a JSONPatch op keeps one.
  { name: 'member sets only, one record', ops: SET_OPS, seeds: 1500, reused: true },
])('in-place evanphx v4 patch ($name)', ({ ops, seeds, reused }) => {
  it('gives the reference result, or gives up leaving the document as it was', () => {
    const pods = makePods(40);
    const record = reused ? new MemberSets() : undefined;
    let answered = 0;
    let inPlace = 0;
    for (let seed = 1; seed <= seeds; seed++) {
      const next = random(seed);
      const doc = clone(pods[seed % pods.length]!) as JsonValue;
      const steps: PatchStep[] = [];
      const count = 1 + Math.floor(next() * 3);
      for (let i = 0; i < count; i++) steps.push(randomStep(doc, next, ops));
      const label = `seed ${seed}: ${JSON.stringify(steps)}`;
      const expected = applyEvanphxV4(clone(doc), steps);
      const owned = ownedPart(doc, next);
      freezeUnowned(doc, owned);
      const before = JSON.stringify(doc);
      const texts = ownedTexts(owned);
      const added: object[] = [];
      const r = applyEvanphxV4InPlace(doc, steps, { has: (v) => owned.has(v), add: (v) => added.push(v) }, record);
      if (r === undefined) {
        expect(JSON.stringify(doc), `${label}: restored`).toBe(before);
        // A member taken out and put back by one patch is left to the reference, which alone tells an equal
        // document in another key order (and keeps the one given).
        const putsBack = steps.some((s, i) => s.op !== 'remove' && steps.slice(0, i).some((r) => r.op === 'remove' && r.path === s.path));
        const taken = !putsBack && steps.every((s) => (s.op === 'add' || s.op === 'replace' || s.op === 'remove') && s.path !== '');
        expect(taken && expected.ok, `${label}: gave up on a patch it takes`).toBe(false);
        continue;
      }
      answered++;
      expect(expected.ok, `${label}: answered a failing patch`).toBe(true);
      if (!expected.ok) continue;
      expect(JSON.stringify(r.doc), label).toBe(JSON.stringify(expected.doc));
      for (const c of r.changed) expect(owned.has(c), `${label}: changed an unowned container`).toBe(true);
      // The strict decode forgets what it knew of exactly these (a container left out would keep a stale fact).
      for (const [c, text] of texts) if (JSON.stringify(c) !== text) expect(r.changed.includes(c), `${label}: a changed container left out`).toBe(true);
      if (r.differs) expect(JSON.stringify(r.doc), `${label}: said to differ`).not.toBe(before);
      if (r.changed.length > 0) inPlace++;
      if (r.doc === doc) expect(r.changed[0], `${label}: the root changed in place comes first`).toBe(doc);
      r.commit();
      expect(added.every((c) => !owned.has(c)), `${label}: hands over only new containers`).toBe(true);
    }
    expect(answered).toBeGreaterThan(seeds / 5);
    expect(inPlace).toBeGreaterThan(seeds / 10);
  });
});

describe('in-place evanphx v4 patch: names Object.prototype has', () => {
  it('finds only own members on the way, as the reference does', () => {
    const withOwn: JsonValue = JSON.parse('{"a": {"constructor": {"x": 1}, "toString": {"y": 2}, "__proto__": {"z": 3}}}') as JsonValue;
    const without: JsonValue = { a: { b: 1 } };
    for (const doc of [withOwn, without]) {
      for (const path of ['/a/constructor/x', '/a/toString/y', '/a/__proto__/z', '/a/hasOwnProperty/q', '/a/constructor/new', '/a/__proto__/new']) {
        for (const op of ['add', 'replace', 'remove']) {
          const steps: PatchStep[] = [{ op, path, value: 'v', hasValue: op !== 'remove' }];
          const expected = applyEvanphxV4(clone(doc), steps);
          const mine = clone(doc);
          const owned = new Set<object>();
          const r = applyEvanphxV4InPlace(mine, steps, { has: (v) => owned.has(v), add: () => undefined });
          const label = `${op} ${path} on ${JSON.stringify(doc)}`;
          if (r === undefined) {
            expect(expected.ok, `${label}: gave up on a patch it takes`).toBe(false);
            continue;
          }
          expect(expected.ok, label).toBe(true);
          if (expected.ok) expect(JSON.stringify(r.doc), label).toBe(JSON.stringify(expected.doc));
        }
      }
    }
  });

  it('follows the decoded path a step carries (PatchStep.segments) as it follows its path', () => {
    const pods = makePods(10);
    for (const pod of pods) {
      for (const path of ['/metadata/labels/x~1y', '/spec/containers/0/name', '/spec/containers/-', '/metadata/annotations/a~0b']) {
        const value = path.endsWith('-') ? { name: 'c' } : 'v';
        const plain = applyEvanphxV4InPlace(clone(pod) as JsonValue, [{ op: 'add', path, value, hasValue: true }], { has: () => false, add: () => undefined });
        const carried = applyEvanphxV4InPlace(clone(pod) as JsonValue, [{ op: 'add', path, value, hasValue: true, segments: path.split('/').map((p) => p.replace(/~1/g, '/').replace(/~0/g, '~')) }], {
          has: () => false,
          add: () => undefined,
        });
        expect(JSON.stringify(carried?.doc), path).toBe(JSON.stringify(plain?.doc));
        expect(carried?.sets, path).toEqual(plain?.sets);
      }
    }
  });
});

describe('in-place evanphx v4 patch: one MemberSets for patch after patch', () => {
  it('tells each patch afresh (what it changed, created, whether it surely differs)', () => {
    const record = new MemberSets();
    const owned = new Set<object>();
    const added: object[] = [];
    const own = { has: (v: object) => owned.has(v), add: (v: object) => added.push(v) };
    const doc: JsonValue = { metadata: { labels: { a: '1' } }, spec: { x: 1 } };
    const first = applyEvanphxV4InPlace(doc, [{ op: 'add', path: '/metadata/labels/b', value: '2', hasValue: true }], own, record)!;
    expect(first.differs).toBe(true);
    expect(first.changed).toEqual([]);
    first.commit();
    expect(added.length).toBe(3);
    added.forEach((c) => owned.add(c));
    const second = applyEvanphxV4InPlace(first.doc, [{ op: 'replace', path: '/spec/x', value: 1, hasValue: true }], own, record)!;
    expect(second.differs, 'sets the value held').toBe(false);
    expect(second.changed).toEqual([]);
    expect(second.sets).toEqual([]);
    expect(second.doc).toBe(first.doc);
    const third = applyEvanphxV4InPlace(first.doc, [{ op: 'replace', path: '/metadata/labels/a', value: '3', hasValue: true }], own, record)!;
    expect(third.differs, 'a replace').toBe(false);
    expect(third.changed).toEqual([first.doc, (first.doc as JsonObject).metadata, ((first.doc as JsonObject).metadata as JsonObject).labels]);
    expect(third.sets.map((s) => s.path.join('/'))).toEqual(['/metadata/labels/a']);
    added.length = 0;
    third.commit();
    expect(added).toEqual([]);
  });
});
