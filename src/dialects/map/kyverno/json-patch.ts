/**
 * A Kyverno `patchesJson6902` as one JSONPatch expression of a CEL policy. Kyverno applies it with evanphx
 * json-patch v5 and EnsurePathExistsOnAdd, AllowMissingPathOnRemove, SupportNegativeIndices (kyverno.md
 * §1.10); kube-apiserver and Kyverno's MutatingPolicy apply JSONPatch with evanphx v4, where `add` under a
 * missing parent fails, `remove` of a missing place fails and `replace` of a missing map key adds. Each
 * step is therefore written with the tests that make v4 do what v5 does:
 * - `add`: missing parent maps are created with the value nested in them (a missing list, when the next
 *   segment is an index or `-`, as a list holding the value after as many nulls as the index says), a list
 *   too short for an index on the way is padded with nulls, an existing place is replaced;
 * - `remove`: only where the place exists;
 * - `replace`: where the place exists; where it does not, Kyverno's rule fails, so the expression fails too.
 * The patch text may hold `{{ }}` variables: it is read with each hole as a placeholder, and every string
 * holding one is the Kyverno template it came from (a path `/spec/containers/{{elementIndex}}/image` is
 * built from the index). Steps are applied in order against the object as each finds it; the tests read the
 * object before the patch, so steps whose places overlap (one below or at another's) are refused, but for a
 * `remove` or `add` of a map member the next step adds again, which is dropped (withoutOverwritten); a map an
 * earlier `add` made sure of is not tested again, and what is tested below it is tested only where it was in
 * the object (else the earlier step created it, with only its own path in it). A step through an element of
 * a list reads the list from the object: refused where an earlier step added or removed one of its
 * elements; where an earlier step went through it, tested at run time that this step finds the list the
 * object had (the CEL fails where the earlier step created or lengthened it, with a note).
 */
import { parseDocument, visit } from 'yaml';
import { isJsonObject, type JsonObject, type JsonValue } from '../../../ir/json.js';
import type { JsonPatchOp, Op } from '../../../ir/nodes.js';
import { notYet, type Refusal } from '../../generate-report.js';
import { celLiteral } from '../emit-cel.js';
import { and, celCollection, concat, cond, failWith, has, NONE, one, patch, ROOT, translationLimit, type Cel, type Place } from './cel-patch.js';
import type { RuleScope } from './scope.js';
import type { TemplateOptions } from '../../../lowering/jmes-cel/index.js';
import { PLAIN_NOTE, plainScalarReadBack } from '../../../lowering/jmes-cel/template.js';
import { refused, writeProblem, type RuleCompiler } from './rule.js';

type R<T> = T | Refusal;

/**
 * A segment of a step's path: a static token, a list index computed in CEL (`{{elementIndex}}`), or (where the
 * caller takes them, readLoopSteps) a token holding substituted text, `pointer` the CEL of its pointer text.
 */
export type Seg = FixedSeg | { pointer: Cel };
type FixedSeg = { text: string } | { index: Cel };

/** A step whose tokens are static or element indices: the steps stepsPatches tests the object for. */
interface Step {
  op: 'add' | 'remove' | 'replace';
  segs: FixedSeg[];
  value?: Cel;
  /** The value as JSON when it holds no variable. */
  json?: JsonValue;
}

/** A step as readLoopSteps reads it: tokens may hold substituted text. */
export type LoopStep = Omit<Step, 'segs'> & { segs: Seg[] };

/** The steps, where none has a token holding substituted text (only readLoopSteps asks for those). */
function fixedSteps(steps: readonly LoopStep[]): R<Step[]> {
  for (const st of steps) if (st.segs.some((x) => 'pointer' in x)) return notYet('a variable in a JSON patch path token');
  return steps as Step[];
}

/**
 * `text` with each outermost `{{ … }}` replaced by `mask(hole)`: a hole may hold holes (Kyverno substitutes
 * the inner ones first, then reads the text they make: the template compiler replays that on the hole's
 * text), so `{{` opens one more and `}}` closes one. A `}}` outside any hole, or a hole left open, stays in
 * the text (the caller refuses it).
 */
function maskHoles(text: string, mask: (hole: string) => string): string {
  let out = '';
  let start = -1;
  let depth = 0;
  let i = 0;
  while (i < text.length) {
    if (text.startsWith('{{', i)) {
      if (depth === 0) start = i;
      depth++;
      i += 2;
    } else if (depth > 0 && text.startsWith('}}', i)) {
      i += 2;
      if (--depth === 0) out += mask(text.slice(start, i));
    } else {
      if (depth === 0) out += text[i];
      i++;
    }
  }
  return depth > 0 ? out + text.slice(start) : out;
}

/**
 * How the scalar holding a hole is written, which decides how the text substituted into it is read back
 * (convertPatchesToJSON: JSON when the text starts with `[`, else YAML): quoted or block scalars are
 * strings whatever the text, a plain one is resolved by what the text looks like.
 */
type Style = 'double' | 'single' | 'block' | 'plain';

/** The mark a string with a hole gets from its scalar's style (plain scalars keep none). */
const STYLE_MARK = /^__transmute_(double|single|block)__/;

/** The step list of a templated patch text: holes become placeholders while the text is read as YAML. */
function templatedSteps(text: string): R<{ steps: JsonValue; holes: string[]; json: boolean }> {
  const holes: string[] = [];
  const marked = maskHoles(text, (h) => {
    holes.push(h);
    return `__transmute_hole_${holes.length - 1}__`;
  });
  if (/\{\{|\}\}/.test(marked)) return notYet('unbalanced {{ }} in a JSON patch');
  if (/__transmute_(double|single|block)__/.test(marked)) return notYet('a JSON patch holding transmute\'s own style marks');
  const doc = parseDocument(marked);
  if (doc.errors.length > 0) return notYet('a JSON patch whose text is not YAML once its variables are set aside');
  visit(doc, {
    Scalar(key, node) {
      if (key === 'key' || typeof node.value !== 'string' || !/__transmute_hole_\d+__/.test(node.value)) return;
      const style = node.type === 'QUOTE_DOUBLE' ? 'double' : node.type === 'QUOTE_SINGLE' ? 'single' : node.type === 'BLOCK_LITERAL' || node.type === 'BLOCK_FOLDED' ? 'block' : undefined;
      if (style) node.value = `__transmute_${style}__${node.value}`;
    },
  });
  try {
    return { steps: doc.toJS() as JsonValue, holes, json: text.startsWith('[') };
  } catch {
    return notYet('a JSON patch whose text is not YAML once its variables are set aside');
  }
}

/** A string's style mark and the string without it. */
function styleOf(s: string): { style: Style; text: string } {
  const m = STYLE_MARK.exec(s);
  return m ? { style: m[1] as Style, text: s.slice(m[0].length) } : { style: 'plain', text: s };
}

/**
 * Characters a value substituted into a quoted or block scalar must not hold: the quote and escapes of
 * its style, line breaks (folded), and what YAML (go-yaml is_printable) or JSON refuses in a text.
 */
const CONTROLS_RE2 = '\\x00-\\x1f\\x7f-\\x9f\\x{2028}\\x{2029}\\x{feff}\\x{fffe}\\x{ffff}';
const CONTROLS_JS = '\\x00-\\x1f\\x7f-\\x9f\\u2028\\u2029\\ufeff\\ufffe\\uffff';
const FORBID: Record<'double' | 'single', TemplateOptions['forbid']> = {
  double: { re2: `["\\\\${CONTROLS_RE2}]`, js: new RegExp(`["\\\\${CONTROLS_JS}]`), why: 'the double-quoted scalar of the JSON patch text would read otherwise (a quote, a backslash, a line break or a control character)' },
  single: { re2: `['${CONTROLS_RE2}]`, js: new RegExp(`['${CONTROLS_JS}]`), why: 'the single-quoted scalar of the JSON patch text would read otherwise (a quote, a line break or a control character)' },
};

const PLACEHOLDER = /__transmute_hole_(\d+)__/g;

/** The paths of a templated patch text's steps, holes restored. */
export function patchPaths(text: string): R<string[]> {
  const read = templatedSteps(text);
  if (refused(read)) return read;
  if (!Array.isArray(read.steps)) return notYet('a JSON patch that is not a list');
  return read.steps.map((s) => (isJsonObject(s) && typeof s.path === 'string' ? restore(s.path, read.holes) : ''));
}

/** A string of the patch with its placeholders turned back into the template it was. */
function restore(s: string, holes: readonly string[]): string {
  return styleOf(s).text.replace(PLACEHOLDER, (_, n: string) => holes[Number(n)]!);
}

function hasPlaceholder(v: JsonValue): boolean {
  if (typeof v === 'string') return /__transmute_hole_\d+__/.test(v);
  if (Array.isArray(v)) return v.some(hasPlaceholder);
  if (isJsonObject(v)) return Object.entries(v).some(([k, x]) => hasPlaceholder(k) || hasPlaceholder(x));
  return false;
}

const INDEX_HOLE = /^\{\{-?\s*(elementIndex\d*)\s*\}\}$/;

/**
 * What a value substituted into a path token must not hold, by the style of the path's scalar: `/` (it would
 * split the token), and what would make the patch text read otherwise (a quote or escape of a quoted scalar;
 * in a plain one, a space, `:`, `#`, a quote, a brace or a backslash), or a control character.
 */
const TOKEN_FORBID: Record<'double' | 'single' | 'plain', TemplateOptions['forbid']> = {
  double: { re2: `["\\\\/${CONTROLS_RE2}]`, js: new RegExp(`["\\\\/${CONTROLS_JS}]`), why: 'the JSON patch path would read otherwise (a quote, a backslash, a "/" or a control character)' },
  single: { re2: `['/${CONTROLS_RE2}]`, js: new RegExp(`['/${CONTROLS_JS}]`), why: 'the JSON patch path would read otherwise (a quote, a "/" or a control character)' },
  plain: { re2: `[\\s:#"'{}\\\\/${CONTROLS_RE2}]`, js: new RegExp(`[\\s:#"'{}\\\\/${CONTROLS_JS}]`), why: 'the JSON patch path, a plain YAML scalar, would read otherwise (a space, ":", "#", a quote, a brace, a backslash, a "/" or a control character)' },
};

/**
 * A path template as segments: static tokens, and holes that are a whole segment naming an element index; with
 * `tokens` (the style of the path's scalar), also tokens holding substituted text.
 */
function pathSegments(rc: RuleCompiler, path: string, scope: RuleScope, tokens?: Style): R<Seg[]> {
  if (!path.startsWith('/')) return notYet(`the JSON patch path ${JSON.stringify(path)} (not a JSON pointer)`);
  const out: Seg[] = [];
  for (const raw of path.slice(1).split('/')) {
    if (!raw.includes('{{')) {
      if (/~(?![01])/.test(raw)) return notYet(`the JSON pointer token ${JSON.stringify(raw)}`);
      out.push({ text: raw.replaceAll('~1', '/').replaceAll('~0', '~') });
      continue;
    }
    const m = INDEX_HOLE.exec(raw);
    if (!m && tokens !== undefined && tokens !== 'block') {
      // The token as Kyverno's substitution leaves it; the patch engine decodes `~1` and `~0` in it afterwards
      // (v4 and v5 alike), so the text is the pointer's.
      const text = rc.templateText(raw, scope, { text: true, forbid: TOKEN_FORBID[tokens] });
      if (refused(text)) return text;
      out.push({ pointer: text });
      continue;
    }
    if (!m) return notYet(`the variable in the JSON patch path segment ${JSON.stringify(raw)}`);
    const cel = rc.query(m[1]!, scope);
    if (refused(cel)) return cel;
    out.push({ index: `int(${cel})` });
  }
  return out;
}

function valueCel(rc: RuleCompiler, v: JsonValue, holes: readonly string[], scope: RuleScope, json: boolean): R<Cel> {
  if (!hasPlaceholder(v)) {
    if (v === null) return 'null';
    const lit = celLiteral(v);
    return lit ?? notYet(`the value ${JSON.stringify(v)} (out of CEL's exact range)`);
  }
  if (typeof v === 'string') {
    const { style, text } = styleOf(v);
    if (style !== 'plain') {
      // A quoted or block scalar reads back as the text substituted into it (a hole alone included: Kyverno
      // substitutes into the patch's text, so every value is spliced as text), unless the text holds what
      // the scalar's syntax would read otherwise: the CEL fails there.
      if (style === 'block') return notYet('a variable in a block scalar of a JSON patch (its text sets the indentation and folding)');
      if (json && style !== 'double') return notYet(`a ${style}-quoted scalar in a JSON patch written as JSON`);
      return rc.templateText(restore(text, holes), scope, { text: true, forbid: FORBID[style] });
    }
    const whole = /^__transmute_hole_(\d+)__$/.exec(v);
    if (whole) {
      // A hole alone in a plain YAML scalar is re-read by YAML after substitution: a map or a list comes back
      // as it was (Kyverno splices its JSON, which YAML reads alike), so do numbers and booleans; a string
      // that looks like a number or a boolean would change type.
      const t = rc.templateTyped(restore(v, holes), scope);
      if (refused(t)) return t;
      if (t.type.k === 'string' && !json) return rc.templateText(restore(v, holes), scope, { text: true, plainYaml: true });
      if (['map', 'list', 'int', 'double', 'number', 'bool'].includes(t.type.k)) return t.cel;
      if (json) return notYet('a variable standing alone as a JSON patch value that may be a string (YAML re-reads the text it substitutes to)');
      // A value of a type known only at runtime: a string is read back as above, anything else as it is.
      rc.notes.add(PLAIN_NOTE);
      const x = rc.fresh.next('x');
      return `[dyn(${t.cel})].map(${x}, type(${x}) == string ? (${plainScalarReadBack(x)}) : ${x})[0]`;
    }
    // Text around a variable in a plain scalar: YAML reads the substituted text again (`{{ x }}s` is `true`
    // when x is "ye"), JSON refuses it unquoted.
    if (json) return notYet('a variable beside text in an unquoted value of a JSON patch written as JSON');
    return rc.templateText(restore(v, holes), scope, { text: true, plainYaml: true });
  }
  if (Array.isArray(v) || isJsonObject(v)) {
    return celCollection(v, (x) => valueCel(rc, x, holes, scope, json), (k) => (hasPlaceholder(k) ? notYet('a variable in a key of a JSON patch value') : undefined), refused);
  }
  return notYet('this JSON patch value');
}

function readSteps(rc: RuleCompiler, list: JsonValue, holes: readonly string[], scope: RuleScope, json = false, tokens = false): R<LoopStep[]> {
  if (!Array.isArray(list)) return notYet('a JSON patch that is not a list');
  const out: LoopStep[] = [];
  for (const s of list) {
    if (!isJsonObject(s) || typeof s.op !== 'string' || typeof s.path !== 'string') return notYet('a malformed JSON patch operation');
    if (hasPlaceholder(s.op)) return notYet('a variable JSON patch operation');
    if (s.op !== 'add' && s.op !== 'remove' && s.op !== 'replace') return notYet(`the JSON patch operation ${s.op}`);
    const segs = pathSegments(rc, restore(s.path, holes), scope, tokens ? styleOf(s.path).style : undefined);
    if (refused(segs)) return segs;
    const step: LoopStep = { op: s.op, segs };
    if (s.op !== 'remove') {
      if (!('value' in s)) return notYet(`a JSON patch ${s.op} without a value`);
      const raw = (s as JsonObject).value!;
      const v = valueCel(rc, raw, holes, scope, json);
      if (refused(v)) return v;
      step.value = v;
      if (!hasPlaceholder(raw)) step.json = raw;
      const bad = writeProblem(
        rc.env.match,
        segs.map((x) => ('index' in x ? '[]' : 'pointer' in x ? COMPUTED_KEY : /^(0|[1-9]\d*)$/.test(x.text) ? Number(x.text) : x.text === '-' || x.text === '-1' ? '-' : x.text)),
        step.json,
      );
      if (bad) return bad;
    }
    out.push(step);
  }
  return out;
}

/** A key no kind declares: a substituted key is taken below a map, refused below a struct (its fields are fixed). */
const COMPUTED_KEY = '\u0000a substituted key';

export function isIndexText(t: string): boolean {
  return /^(0|[1-9]\d*)$/.test(t);
}

/** A step's place, the CEL tests along it, and the value built for what is missing. */
interface Walked {
  /** The patches of this step. */
  patches: Cel;
}

/** The most nulls a translated `add` pads a list with: each is one index of a literal list in the CEL. */
const MAX_PADDING = 64;

/** Appends nulls to the list at `at` until it is `n` long (nothing when it is already). */
function padding(at: Place, n: number): Cel {
  if (n === 0) return NONE;
  const indices = [...Array<number>(n).keys()].join(', ');
  return `[${indices}].filter(padIndex, padIndex >= size(${at.cel})).map(padIndex, ${patch('add', [...at.ptr, '/-'], 'null')})`;
}

/**
 * What earlier steps of the same patch did, which a later step's tests (read from the object before the
 * patch) must allow for.
 */
interface EarlierSteps {
  /** Maps an earlier `add` walked through: they exist after it, created by it or already there. */
  readonly known: Set<string>;
  /** Lists an earlier step added an element to or removed one from: their indices moved. */
  readonly resized: Set<string>;
  /**
   * Lists earlier steps went through an element of, with the tests under which they found the list as the
   * object has it (else they created it, or lengthened it to reach the element).
   */
  readonly kept: Map<string, Cel[]>;
  /** Where the translation's notes go (what the CEL does not keep). */
  readonly notes: Set<string> | undefined;
  /** A computed index may be past the end of its list (kyvernoJsonPatches). */
  readonly indexMayMiss: boolean;
}

/** Why the CEL fails where a loop over joined lists writes past the end of the list its path names. */
const JOINED_INDEX_NOTE =
  'a JSON patch path that names an element of one list by the index of a loop over joined lists is translated as written; where that index is past the end of the list, or the list is missing (a Pod with init or ephemeral containers), Kyverno pads or creates the list with nulls and the CEL fails';

/** Why the CEL fails where a step goes through an element of a list an earlier step of the patch created. */
const CREATED_LIST_NOTE =
  'a JSON patch step through an element of a list that an earlier step of the same patch created or lengthened (the list was missing or too short) is not translated: the CEL fails there, where Kyverno writes into the list that step left';

/** `add` with EnsurePathExistsOnAdd (v5 ensurePathExists): missing parents created around the value. */
function addStep(step: Step, earlier: EarlierSteps): R<Walked> {
  const known = earlier.known;
  const segs = step.segs;
  const value = step.value!;
  const build = (rest: readonly FixedSeg[]): R<Cel> => {
    // The value nested in the containers the remaining segments name; a missing container whose next
    // segment is `0`, `-` or `-1` is a list holding it (ensurePathExists), a larger index would be padded.
    let v = value;
    for (let i = rest.length - 1; i >= 0; i--) {
      const s = rest[i]!;
      if ('index' in s) return notYet('a computed list index below a place that does not exist');
      if (s.text === '-' || s.text === '-1') v = `[${v}]`;
      else if (isIndexText(s.text)) {
        // ensurePathExists pads a new list with nulls up to the index.
        const n = Number(s.text);
        if (n > MAX_PADDING) return notYet(`the index ${s.text} into a list that does not exist (Kyverno pads it with ${s.text} nulls; transmute writes at most ${MAX_PADDING})`);
        v = `[${[...Array<string>(n).fill('null'), v].join(', ')}]`;
      } else if (/^-\d+$/.test(s.text)) return notYet(`the index ${s.text} into a list that does not exist (Kyverno refuses a negative index other than -1 there)`);
      else v = `{${JSON.stringify(s.text)}: ${v}}`;
    }
    return v;
  };
  // `unsure`: the presence tests of the maps on the way that an earlier step made sure of (`known`): each
  // may have been there before the patch or been created by that step, holding then only what it wrote. A
  // test of the object below one must hold of the object before the patch, so it is joined to them (CEL's
  // `&&` reads no further than a false test): where they fail, what the earlier step created lacks the
  // member too (it is not on that step's path, or `known` would hold it).
  const walk = (at: Place, i: number, key: string, unsure: readonly Cel[]): R<Cel> => {
    const s = segs[i]!;
    const last = i === segs.length - 1;
    if ('index' in s) {
      const here: Place = { cel: `${at.cel}[${s.index}]`, ptr: [...at.ptr, '/', { cel: `string(${s.index})` }] };
      if (last) return one(patch('add', here.ptr, value));
      const inner = walk(here, i + 1, `${key}/[]`, unsure);
      if (refused(inner)) return inner;
      // The element is one being iterated over: it exists (unless the index is another list's).
      if (!earlier.indexMayMiss) return inner;
      earlier.notes?.add(JOINED_INDEX_NOTE);
      return cond(and([...unsure, `size(${at.cel}) > ${s.index}`]), inner, translationLimit(JOINED_INDEX_NOTE));
    }
    const t = s.text;
    if (isIndexText(t) || t === '-' || /^-\d+$/.test(t)) {
      // On a list: `-` appends, an index inserts (v5 with SupportNegativeIndices; -1 appends too).
      if (last) return one(patch('add', [...at.ptr, `/${t}`], value));
      // Through an element: its index is read from the list before the patch, which must then be the list
      // this step finds: not one whose elements an earlier step moved, and not one an earlier step created
      // (where the maps above it were missing, which `unsure` tests: the CEL then fails, with a note).
      if (earlier.resized.has(key)) return notYet(`a JSON patch step through an element of ${key}, a list an earlier step of the patch adds to or removes from`);
      const through = t === '-1' ? throughLast(at, i, key) : isIndexText(t) ? throughIndex(at, i, key, Number(t)) : notYet(`a path through ${t}`);
      if (refused(through)) return through;
      const guard = [...unsure, ...(earlier.kept.get(key) ?? [])];
      // For the steps after this one: the list is as the object has it where this step did not lengthen it.
      const stays = t === '-1' ? `size(${at.cel}) > 0 && ${at.cel}[size(${at.cel}) - 1] != null` : `size(${at.cel}) > ${t}`;
      earlier.kept.set(key, [...guard, stays]);
      if (guard.length === 0) return through;
      earlier.notes?.add(CREATED_LIST_NOTE);
      return cond(and(guard), through, translationLimit(CREATED_LIST_NOTE));
    }
    const here: Place = { cel: `${at.cel}${/^[A-Za-z_][A-Za-z0-9_]*$/.test(t) ? `.${t}` : `[${JSON.stringify(t)}]`}`, ptr: [...at.ptr, `/${t.replaceAll('~', '~0').replaceAll('/', '~1')}`] };
    const k = `${key}/${t}`;
    if (last) return one(patch('add', here.ptr, value));
    // Above a computed index (an element of the list being iterated) every place exists.
    if (segs.slice(i + 1).some((x) => 'index' in x)) return walk(here, i + 1, k, unsure);
    if (known.has(k)) return walk(here, i + 1, k, [...unsure, has(at, t)]);
    const inner = walk(here, i + 1, k, []);
    if (refused(inner)) return inner;
    const made = build(segs.slice(i + 1));
    if (refused(made)) return made;
    return cond(and([...unsure, has(at, t)]), inner, one(patch('add', here.ptr, made)));
  };
  /** Through element `n` of the list at `at`, which the object before the patch holds. */
  const throughIndex = (at: Place, i: number, key: string, n: number): R<Cel> => {
    const t = String(n);
    const here: Place = { cel: `${at.cel}[${n}]`, ptr: [...at.ptr, `/${n}`] };
    const inner = walk(here, i + 1, `${key}/${t}`, []);
    if (refused(inner)) return inner;
    // A list too short for the index is padded with nulls up to it (ensurePathExists), and the element is
    // created in the slot after them (partialArray.add).
    if (n > MAX_PADDING) return notYet(`the index ${t} into a list that may be shorter (Kyverno pads it with nulls; transmute writes at most ${MAX_PADDING})`);
    const made = build(segs.slice(i + 1));
    if (refused(made)) return made;
    const grown = concat([padding(at, n), one(patch('add', here.ptr, made))]);
    return cond(`size(${at.cel}) > ${n}`, inner, grown);
  };
  /**
   * Through `-1`, the list's last element (SupportNegativeIndices), which ensurePathExists finds missing in an
   * empty list or where it is null: a new container for the rest of the path is then appended (partialArray.add
   * at -1, the append position), and the rest of the path is written into it.
   */
  const throughLast = (at: Place, i: number, key: string): R<Cel> => {
    const index = `(size(${at.cel}) - 1)`;
    const here: Place = { cel: `${at.cel}[${index}]`, ptr: [...at.ptr, '/', { cel: `string(${index})` }] };
    const inner = walk(here, i + 1, `${key}/-1`, []);
    if (refused(inner)) return inner;
    const made = build(segs.slice(i + 1));
    if (refused(made)) return made;
    return cond(`size(${at.cel}) > 0 && ${here.cel} != null`, inner, one(patch('add', [...at.ptr, '/-'], made)));
  };
  const r = walk(ROOT, 0, '', []);
  if (refused(r)) return r;
  // After the step every map on the path exists.
  let k = '';
  for (const s of segs.slice(0, -1)) {
    if ('index' in s) break;
    k = `${k}/${s.text}`;
    known.add(k);
  }
  return { patches: r };
}

/** The place a step names, as CEL, and the presence tests of it (for remove and replace). */
function presence(segs: readonly FixedSeg[]): R<{ tests: Cel[]; place: Place }> {
  let at: Place = ROOT;
  const tests: Cel[] = [];
  for (const s of segs) {
    if ('index' in s) {
      tests.push(`size(${at.cel}) > ${s.index}`);
      at = { cel: `${at.cel}[${s.index}]`, ptr: [...at.ptr, '/', { cel: `string(${s.index})` }] };
      continue;
    }
    if (isIndexText(s.text)) {
      tests.push(`size(${at.cel}) > ${s.text}`);
      at = { cel: `${at.cel}[${s.text}]`, ptr: [...at.ptr, `/${s.text}`] };
      continue;
    }
    if (s.text === '-' || /^-\d+$/.test(s.text)) return notYet(`the list position ${s.text} in a remove or replace`);
    tests.push(has(at, s.text));
    at = { cel: `${at.cel}${/^[A-Za-z_][A-Za-z0-9_]*$/.test(s.text) ? `.${s.text}` : `[${JSON.stringify(s.text)}]`}`, ptr: [...at.ptr, `/${s.text.replaceAll('~', '~0').replaceAll('/', '~1')}`] };
  }
  return { tests, place: at };
}

/**
 * The key (as addStep walks it) of the list whose elements the step moves, an `add` or `remove` of one of
 * its elements, or undefined.
 */
function resizedList(step: Step): string | undefined {
  if (step.op === 'replace') return undefined;
  const lastSeg = step.segs[step.segs.length - 1];
  if (lastSeg === undefined || 'index' in lastSeg || !(isIndexText(lastSeg.text) || lastSeg.text === '-' || /^-\d+$/.test(lastSeg.text))) return undefined;
  let key = '';
  for (const s of step.segs.slice(0, -1)) key = `${key}/${'index' in s ? '[]' : s.text}`;
  return key;
}

function keyOf(segs: readonly FixedSeg[]): string {
  return segs.map((s) => ('index' in s ? `[${s.index}]` : s.text)).join('/');
}

/** Whether one step's place is at or below the other's (a computed index may be any index). */
function overlaps(a: readonly FixedSeg[], b: readonly FixedSeg[]): boolean {
  const n = Math.min(a.length, b.length);
  for (let i = 0; i < n; i++) {
    const x = a[i]!;
    const y = b[i]!;
    if ('index' in x || 'index' in y) continue;
    if (x.text !== y.text) return false;
  }
  return true;
}

/** Whether two steps name one place: the same tokens, and the same CEL for each computed index. */
function samePlace(a: readonly FixedSeg[], b: readonly FixedSeg[]): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) {
    const x = a[i]!;
    const y = b[i]!;
    if ('index' in x ? !('index' in y) || x.index !== y.index : 'index' in y || x.text !== y.text) return false;
  }
  return true;
}

/**
 * The steps with each `remove` or `add` of a map member dropped where the next step adds that member again
 * (`remove` then `add` of `.../capabilities/add`, a common way to overwrite a value). Under Kyverno's options
 * the pair does what the `add` alone does, failing where it fails: AllowMissingPathOnRemove makes the remove
 * of a missing member or one below a missing or scalar parent do nothing, and where the parent is a list the
 * member's name is not an index and both steps fail (partialArray's Atoi); EnsurePathExistsOnAdd then adds the
 * member, an add replacing one that is there. Only the members' order may differ, which nothing decoding the
 * object keeps.
 */
function withoutOverwritten(steps: readonly Step[]): Step[] {
  const kept: Step[] = [];
  for (const step of steps) {
    const last = step.segs[step.segs.length - 1];
    const member = last !== undefined && !('index' in last) && !isIndexText(last.text) && last.text !== '-' && !/^-\d+$/.test(last.text);
    const before = kept[kept.length - 1];
    if (member && step.op === 'add' && before !== undefined && before.op !== 'replace' && samePlace(before.segs, step.segs)) kept.pop();
    kept.push(step);
  }
  return kept;
}

export function stepsPatches(given: readonly Step[], notes?: Set<string>, indexMayMiss = false): R<Cel> {
  const earlier: EarlierSteps = { known: new Set<string>(), resized: new Set<string>(), kept: new Map<string, Cel[]>(), notes, indexMayMiss };
  const parts: Cel[] = [];
  const steps = withoutOverwritten(given);
  for (const [i, step] of steps.entries()) {
    // The tests read the object before the patch: a step at or below another's place would test stale
    // content. Shared parents are fine, an earlier add is known to have created them.
    const clash = steps.slice(0, i).find((earlier) => overlaps(earlier.segs, step.segs));
    if (clash) return notYet(`JSON patch steps on overlapping places (/${keyOf(clash.segs)}, /${keyOf(step.segs)})`);
    const list = resizedList(step);
    if (list !== undefined) earlier.resized.add(list);
    if (step.op === 'add') {
      const w = addStep(step, earlier);
      if (refused(w)) return w;
      parts.push(w.patches);
      continue;
    }
    const p = presence(step.segs);
    if (refused(p)) return p;
    const test = p.tests.length === 0 ? undefined : p.tests.join(' && ');
    if (step.op === 'remove') parts.push(cond(test, one(patch('remove', p.place.ptr))));
    else parts.push(cond(test, one(patch('replace', p.place.ptr, step.value!)), failWith(`replace operation does not apply: doc is missing path: /${keyOf(step.segs)}`)));
  }
  return concat(parts);
}

/** The steps of a rule's (or a foreach entry's) JSON patch: literal steps, or the templated text bound to `$patch`. */
function patchSteps(rc: RuleCompiler, op: JsonPatchOp, scope: RuleScope, text: (Op & { kind: 'let' }) | undefined, tokens = false): R<LoopStep[]> {
  if (op.profile !== 'kyverno') return notYet(`a JSON patch with the ${op.profile} profile`);
  if (text) {
    if (text.value.kind !== 'templated' || typeof text.value.json !== 'string') return notYet('a computed JSON patch');
    const read = templatedSteps(text.value.json);
    if (refused(read)) return read;
    return readSteps(rc, read.steps, read.holes, scope, read.json, tokens);
  }
  if (op.stepsFrom) return notYet('a JSON patch computed by an expression');
  const list: JsonValue[] = op.steps.map((s) => {
    const o: JsonObject = { op: s.op, path: s.path };
    if (s.from !== undefined) o.from = s.from;
    if (s.value !== undefined) o.value = s.value.kind === 'literal' ? s.value.json : '__transmute_unsupported__';
    return o;
  });
  if (JSON.stringify(list).includes('__transmute_unsupported__')) return notYet('a JSON patch value that is not a literal');
  return readSteps(rc, list, [], scope);
}

/**
 * A foreach entry's JSON patch steps as read for foreach-outside-patch.ts: path tokens may hold substituted
 * text (`/metadata/annotations/example.com~1{{ element.name }}`).
 */
export function readLoopSteps(rc: RuleCompiler, op: JsonPatchOp, scope: RuleScope, text: (Op & { kind: 'let' }) | undefined): R<LoopStep[]> {
  return patchSteps(rc, op, scope, text, true);
}

/** A rule's (or a foreach entry's) JSON patch: literal steps, or the templated text bound to `$patch`. */
/**
 * `indexMayMiss`: a `{{elementIndex}}` in a path is not the index of an element being iterated over (a loop
 * over joined lists): the place is tested, and the CEL fails where the list is too short for it.
 */
export function kyvernoJsonPatches(rc: RuleCompiler, op: JsonPatchOp, scope: RuleScope, text: (Op & { kind: 'let' }) | undefined, opts: { indexMayMiss?: boolean } = {}): R<Cel> {
  const read = patchSteps(rc, op, scope, text);
  const steps = refused(read) ? read : fixedSteps(read);
  if (refused(steps)) return steps;
  return stepsPatches(steps, rc.notes, opts.indexMayMiss === true);
}

/**
 * A foreach element's JSON patch whose every step is at the element's own place (`/<list>/{{elementIndex}}`),
 * leaving the list as long as it found it. The steps act as a stack at that index: `add` inserts before what
 * is there, `remove` takes the first, `replace` overwrites it; with as many removals as additions, every
 * other element is back where it was once the steps are done. So each iteration changes only its own
 * element, whatever the loop's order: to the value on top (`value`), or not at all (`unchanged`). A patch that
 * changes the list's length, or removes past the element (reaching the next one), gives `undefined`.
 */
export function elementStackPatch(rc: RuleCompiler, op: JsonPatchOp, scope: RuleScope, text: (Op & { kind: 'let' }) | undefined): R<{ value: Cel } | 'unchanged' | undefined> {
  const read = patchSteps(rc, op, scope, text);
  const steps = refused(read) ? read : fixedSteps(read);
  if (refused(steps)) return steps;
  const stack: (Cel | typeof ORIGINAL)[] = [ORIGINAL];
  for (const step of steps) {
    if (step.op === 'add') stack.unshift(step.value!);
    else if (stack.length === 0) return undefined;
    else if (step.op === 'remove') stack.shift();
    else stack[0] = step.value!;
  }
  if (stack.length !== 1) return undefined;
  return stack[0] === ORIGINAL ? 'unchanged' : { value: stack[0]! };
}

const ORIGINAL = Symbol('the element as the loop found it');

export { NONE };
