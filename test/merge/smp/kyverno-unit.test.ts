/**
 * The strategic-merge cases of ../shared/conformance/kyverno/kyverno-unit, replayed against src/merge/smp.
 *
 * - smp-anchor-preprocess: PreProcessPattern(pattern, resource) must equal expected_patch.json ({} = skip).
 * - smp-with-anchors: ProcessStrategicMergePatch(patch, resource) must equal expected.json exactly.
 * - smp+emitted-diff: Kyverno's emitted RFC 6902 ops, applied to the resource, must give our merged object
 *   (Kyverno emits a diff of before/after; only the final object is meaningful, reference kyverno.md 1.16).
 * - engine-mutate: the cases whose rules are plain patchStrategicMerge (optionally in a foreach over a list
 *   of the request object) with only `{{element.x}}` / `{{request.object.x}}` variables are replayed through
 *   a deliberately small engine emulation below (rule order, applyRules, foreach order with the Descending
 *   default for strategic merge, "no change = skip"); the rest need the interpreter (JMESPath functions,
 *   context entries, preconditions, JSON patches) and are listed in NOT_PURE_SMP with the reason.
 */
import { readdirSync, readFileSync, existsSync } from 'node:fs';
import { applyPatch, deepClone, type Operation } from 'fast-json-patch';
import { expect, it } from 'vitest';
import { isJsonObject, jsonEqual, type JsonObject, type JsonValue } from '../../../src/ir/json.js';
import { preprocessPattern, strategicMerge } from '../../../src/merge/smp/index.js';
import { describeShared, sharedPath } from '../../support/shared.js';

const UNIT_DIR = sharedPath('conformance/kyverno/kyverno-unit');

/** engine-mutate cases that are not strategic-merge-only, with what they need instead. */
const NOT_PURE_SMP: Readonly<Record<string, string>> = {
  engine__Test_Container_InitContainer_foreach: 'needs the `images` context and nested {{ }} templates (interpreter)',
  engine__Test_foreach: 'needs the `images` context and nested {{ }} templates (interpreter)',
  engine__Test_chained_rules: 'needs JMESPath regex_replace_all with {{@}} (interpreter)',
  engine__Test_mutate_nested_foreach: 'patchesJson6902 in a nested foreach (JSON patch, interpreter)',
  engine__Test_nonZeroIndexNumberPatchesJson6902: 'patchesJson6902 with JMESPath preconditions (interpreter)',
  engine__Test_precondition: 'needs precondition evaluation (interpreter)',
};

interface UnitCase {
  id: string;
  dir: string;
  manifest: JsonObject;
}

function readJson(dir: string, file: string): JsonValue {
  return JSON.parse(readFileSync(`${dir}/${file}`, 'utf8')) as JsonValue;
}

function casesOfKind(kind: string): UnitCase[] {
  if (!existsSync(UNIT_DIR)) return [];
  return readdirSync(UNIT_DIR)
    .sort()
    .map((id) => ({ id, dir: `${UNIT_DIR}/${id}`, manifest: readJson(`${UNIT_DIR}/${id}`, 'manifest.json') as JsonObject }))
    .filter((c) => c.manifest.case_kind === kind);
}

describeShared('kyverno-unit smp-anchor-preprocess (PreProcessPattern)', () => {
  const cases = casesOfKind('smp-anchor-preprocess');
  it('has cases', () => expect(cases.length).toBeGreaterThan(0));
  for (const c of cases) {
    it(c.id, () => {
      const out = preprocessPattern(readJson(c.dir, 'pattern.json'), readJson(c.dir, 'resource.json'));
      const expected = readJson(c.dir, 'expected_patch.json');
      if (!out.ok) {
        // Upstream replaces the patch by {} on a condition failure; any other error would fail the test.
        expect(out.error.kind).not.toBe('error');
        expect(expected).toEqual({});
        return;
      }
      expect(out.patch).toEqual(expected);
    });
  }
});

describeShared('kyverno-unit smp-with-anchors (ProcessStrategicMergePatch)', () => {
  const cases = casesOfKind('smp-with-anchors');
  it('has cases', () => expect(cases.length).toBeGreaterThan(0));
  for (const c of cases) {
    it(c.id, () => {
      const r = strategicMerge(readJson(c.dir, 'resource.json'), readJson(c.dir, 'patch.json'));
      expect(r.ok).toBe(true);
      if (r.ok) expect(r.value.value).toEqual(readJson(c.dir, 'expected.json'));
    });
  }
});

describeShared('kyverno-unit smp+emitted-diff', () => {
  const cases = casesOfKind('smp+emitted-diff');
  it('has cases', () => expect(cases.length).toBeGreaterThan(0));
  for (const c of cases) {
    it(c.id, () => {
      const resource = readJson(c.dir, 'resource.json');
      const r = strategicMerge(resource, readJson(c.dir, 'patch.json'));
      expect(r.ok).toBe(true);
      if (!r.ok) return;
      const ops = readJson(c.dir, 'expected_emitted_patch.json') as unknown as Operation[];
      const expected = applyPatch(deepClone(resource), ops, true, false).newDocument as JsonValue;
      expect(r.value.value).toEqual(expected);
      // The order Kyverno's diff reveals: the patched element moved to the front (Prepend).
      expect(jsonEqual(r.value.value, expected)).toBe(true);
    });
  }
});

describeShared('kyverno-unit engine-mutate (strategic-merge-only rules)', () => {
  const cases = casesOfKind('engine-mutate');
  it('every engine case is replayed or excluded with a reason', () => {
    expect(cases.length).toBeGreaterThan(0);
    for (const c of cases) {
      const policy = readJson(c.dir, 'policy.json') as JsonObject;
      const supported = unsupportedReason(policy) === undefined;
      // An exclusion must be real: the small emulation below cannot run it.
      expect({ id: c.id, supported }).toEqual({ id: c.id, supported: NOT_PURE_SMP[c.id] === undefined });
    }
  });
  for (const c of cases.filter((x) => NOT_PURE_SMP[x.id] === undefined)) {
    it(c.id, () => {
      const policy = readJson(c.dir, 'policy.json') as JsonObject;
      const resource = readJson(c.dir, 'resource.json');
      const partial = c.manifest.expected_partial;
      if (isJsonObject(partial)) {
        const run = runPolicy(policy, resource, 'All');
        if (typeof partial._status === 'string') expect(run.status).toBe(partial._status);
        expect(partialMismatches(run.object, partial)).toEqual([]);
        return;
      }
      for (const [file, applyRules] of [
        ['expected.json', 'All'],
        ['expected_applyRules_All.json', 'All'],
        ['expected_applyRules_One.json', 'One'],
      ] as const) {
        if (!existsSync(`${c.dir}/${file}`)) continue;
        expect(runPolicy(policy, resource, applyRules).object).toEqual(readJson(c.dir, file));
      }
    });
  }
});

// ---------------------------------------------------------------------------------------------- emulation

const TEMPLATE = /\{\{\s*(element|request\.object)((?:\.[A-Za-z0-9_-]+)+)\s*\}\}/g;

function rulesOf(policy: JsonObject): JsonObject[] {
  const spec = policy.spec as JsonObject;
  return (spec.rules as JsonObject[]) ?? [];
}

/** Why the emulation cannot run a policy, or undefined when it can. */
function unsupportedReason(policy: JsonObject): string | undefined {
  for (const rule of rulesOf(policy)) {
    if (rule.preconditions !== undefined || rule.context !== undefined) return 'preconditions or context';
    const mutate = rule.mutate as JsonObject;
    const bodies: JsonValue[] = [];
    if (mutate.patchStrategicMerge !== undefined) bodies.push(mutate.patchStrategicMerge);
    else if (Array.isArray(mutate.foreach)) {
      for (const fe of mutate.foreach as JsonObject[]) {
        if (fe.patchStrategicMerge === undefined || fe.foreach !== undefined || fe.preconditions !== undefined || fe.context !== undefined) return 'foreach shape';
        if (typeof fe.list !== 'string' || !/^request\.object(\.[A-Za-z]+)+$/.test(fe.list)) return 'foreach list';
        bodies.push(fe.patchStrategicMerge);
      }
    } else return 'not a strategic merge';
    const text = JSON.stringify(bodies);
    if (text.replace(TEMPLATE, '').includes('{{')) return 'template';
  }
  return undefined;
}

function lookup(root: JsonValue | undefined, dotted: string): JsonValue | undefined {
  let cur = root;
  for (const part of dotted.split('.').filter((p) => p !== '')) cur = isJsonObject(cur) ? cur[part] : undefined;
  return cur;
}

/** Whole-string templates keep the value's JSON type; embedded ones are stringified (kyverno.md 1.6). */
function substitute(v: JsonValue, vars: { element?: JsonValue; object: JsonValue }): JsonValue {
  if (typeof v === 'string') {
    const whole = /^\{\{\s*(element|request\.object)((?:\.[A-Za-z0-9_-]+)+)\s*\}\}$/.exec(v);
    const pick = (root: string, path: string) => lookup(root === 'element' ? vars.element : vars.object, path);
    if (whole) return pick(whole[1]!, whole[2]!) ?? null;
    return v.replace(TEMPLATE, (_m, root: string, path: string) => {
      const x = pick(root, path);
      return typeof x === 'string' ? x : JSON.stringify(x);
    });
  }
  if (Array.isArray(v)) return v.map((x) => substitute(x, vars));
  if (isJsonObject(v)) {
    const out: JsonObject = {};
    for (const k of Object.keys(v)) out[substitute(k, vars) as string] = substitute(v[k]!, vars);
    return out;
  }
  return v;
}

function mergeOrThrow(object: JsonValue, patch: JsonValue): JsonValue {
  const r = strategicMerge(object, patch);
  if (!r.ok) throw new Error(r.diagnostics.map((d) => d.message).join('; '));
  return r.value.value;
}

/** Kyverno's rule loop for these policies: sequential rules, request.object updated between rules. */
function runPolicy(policy: JsonObject, resource: JsonValue, applyRules: 'All' | 'One'): { object: JsonValue; status: string } {
  let object = resource;
  let status = 'skip';
  for (const rule of rulesOf(policy)) {
    const mutate = rule.mutate as JsonObject;
    let patched = object;
    if (mutate.patchStrategicMerge !== undefined) {
      patched = mergeOrThrow(object, substitute(mutate.patchStrategicMerge, { object }));
    } else {
      for (const fe of mutate.foreach as JsonObject[]) {
        const list = lookup(object, (fe.list as string).slice('request.object'.length));
        const elements = Array.isArray(list) ? [...list] : [];
        // A strategic-merge foreach defaults to Descending (mutate/foreach.go); `order` overrides.
        const descending = fe.order === undefined ? true : fe.order === 'Descending';
        if (descending) elements.reverse();
        // request.object stays the one the loop started from; patches accumulate on `patched`.
        for (const element of elements) {
          if (element === null) continue;
          patched = mergeOrThrow(patched, substitute(fe.patchStrategicMerge!, { element, object }));
        }
      }
    }
    if (!jsonEqual(patched, object)) {
      object = patched;
      status = 'pass';
      if (applyRules === 'One') break;
    }
  }
  return { object, status };
}

function pointerGet(root: JsonValue, pointer: string): JsonValue | undefined {
  let cur: JsonValue | undefined = root;
  for (const raw of pointer.split('/').slice(1)) {
    const part = raw.replace(/~1/g, '/').replace(/~0/g, '~');
    if (Array.isArray(cur)) cur = cur[Number(part)];
    else cur = isJsonObject(cur) ? cur[part] : undefined;
  }
  return cur;
}

function isSubset(want: JsonValue, got: JsonValue | undefined): boolean {
  if (isJsonObject(want)) return isJsonObject(got) && Object.keys(want).every((k) => isSubset(want[k]!, got[k]));
  return jsonEqual(want, got);
}

/** expected_partial (INDEX.md): JSON pointers, `_byName:<ptr>`, `_allElements:<ptr>`; `_`-keys are notes. */
function partialMismatches(object: JsonValue, partial: JsonObject): string[] {
  const problems: string[] = [];
  for (const [key, want] of Object.entries(partial)) {
    if (key.startsWith('_byName:')) {
      const list = pointerGet(object, key.slice('_byName:'.length));
      for (const [name, sub] of Object.entries(want as JsonObject)) {
        const el = Array.isArray(list) ? list.find((e) => isJsonObject(e) && e.name === name) : undefined;
        if (!isSubset(sub, el)) problems.push(`${key} ${name}`);
      }
    } else if (key.startsWith('_allElements:')) {
      const list = pointerGet(object, key.slice('_allElements:'.length));
      if (!Array.isArray(list) || !list.every((e) => isSubset(want, e))) problems.push(key);
    } else if (!key.startsWith('_')) {
      if (!jsonEqual(pointerGet(object, key), want)) problems.push(key);
    }
  }
  return problems;
}
