/**
 * Kyverno's `images` context root in CEL (pkg/engine/context AddImageInfos; our reproduction is
 * src/dialects/kyverno/context-images.ts and src/jmespath/functions/images.ts getImageInfo):
 * `images.<list>.<containerName>` is the parsed image reference of that container of a Pod (or of the pod
 * template of a DaemonSet, Deployment, ReplicaSet, ReplicationController, StatefulSet or Job, the job template
 * of a CronJob; other kinds have no images), `<list>` one of containers, initContainers, ephemeralContainers.
 * CEL has no map built from a list, so the root is a keyed binding: each lookup of a container name finds the
 * container and parses its image in place.
 *
 * The parse, as Kyverno does it: `docker.io/` is prepended when the reference has no `/`, or when its first
 * segment has no `.` or `:`, is not `localhost` and is lower case; the result must match the
 * distribution/reference grammar; the registry is the first segment where it is a domain; the tag defaults to
 * `latest` without a digest. The entry holds registry (when not empty), name (the last path segment), path,
 * tag and digest (when not empty), reference, referenceWithTag and jsonPointer. A container without an image
 * (or with a blank one) has no entry; one without a name, or an image that does not parse, fails the whole
 * root, as Kyverno's loader does; with two containers of one name, the last one's.
 *
 * The object read is the current one: Kyverno parses `images` once, from the object its policy context was
 * made from, so a rule must not read it after an earlier rule of the policy may have changed an image
 * (src/dialects/map/kyverno/images-order.ts).
 */
import type { Mode } from './access.js';
import type { Binding, Cx } from './context.js';
import { celString, cond, fail, frag, NULL, op, tfrag, type Frag } from './frag.js';
import { T, type Ty } from './types.js';
import { IMAGE_LISTS, POD_SPEC_FIELDS } from '../../dialects/kyverno/context-images.js';

// The distribution/reference grammar, as src/jmespath/functions/images.ts writes it (RE2-compatible).
const DOMAIN_COMPONENT = '(?:[a-zA-Z0-9]|[a-zA-Z0-9][a-zA-Z0-9-]*[a-zA-Z0-9])';
const DOMAIN = `(?:${DOMAIN_COMPONENT}(?:\\.${DOMAIN_COMPONENT})*|\\[[a-fA-F0-9:]+\\])(?::[0-9]+)?`;
const PATH_COMPONENT = '[a-z0-9]+(?:(?:[._]|__|[-]+)[a-z0-9]+)*';
const TAG = '[\\w][\\w.-]{0,127}';
const DIGEST = '[A-Za-z][A-Za-z0-9]*(?:[-_+.][A-Za-z][A-Za-z0-9]*)*:[0-9a-fA-F]{32,}';
const REFERENCE = `^(?:${DOMAIN}/)?${PATH_COMPONENT}(?:/${PATH_COMPONENT})*(?::${TAG})?(?:@${DIGEST})?$`;


/** The type of one entry: the fields Kyverno always writes, and those it leaves out when empty. */
const ENTRY_TYPE: Ty = {
  k: 'map',
  fields: { registry: T.string, name: T.string, path: T.string, tag: T.string, digest: T.string, reference: T.string, referenceWithTag: T.string, jsonPointer: T.string },
  required: ['name', 'path', 'reference', 'referenceWithTag', 'jsonPointer'],
  rest: T.dyn,
};

/**
 * The pod specs the object may hold, each with the CEL test that it is the one (a kind Kyverno extracts images
 * from, context-images.ts) and the place its lists are, as `jsonPointer` writes it: one where the rule's kinds
 * fix the kind (`kind`), none for a kind Kyverno does not extract from.
 */
function podSpecs(object: string, kind: string | undefined): { test: string; fields: readonly string[] }[] {
  const byFields = new Map<string, { fields: readonly string[]; kinds: string[] }>();
  for (const [k, fields] of POD_SPEC_FIELDS) {
    if (kind !== undefined && k !== kind) continue;
    const key = fields.join('/');
    const entry = byFields.get(key) ?? { fields, kinds: [] };
    entry.kinds.push(k);
    byFields.set(key, entry);
  }
  return [...byFields.values()].map(({ fields, kinds }) => ({
    test: kind !== undefined ? 'true' : kinds.length === 1 ? `${object}.kind == ${celString(kinds[0]!)}` : `${object}.kind in [${kinds.map(celString).join(', ')}]`,
    fields,
  }));
}

/**
 * The entry of the image `i` (a string variable) at `pointer` (its `jsonPointer`), or null where Kyverno's
 * parse fails: the parse above, one binding per step. `n` gives fresh names.
 */
function entryCel(i: string, pointer: string, n: (hint: string) => string): string {
  const [f, at, rest, seg, repo, reg, path, tag, image, digest] = [n('full'), n('at'), n('rest'), n('seg'), n('repo'), n('reg'), n('path'), n('tag'), n('image'), n('digest')];
  const first = `${i}.split("/")[0]`;
  const defaulted = `!${i}.contains("/") || (!${first}.contains(".") && !${first}.contains(":") && ${first} != "localhost" && ${first} == ${first}.lowerAscii()) ? "docker.io/" + ${i} : ${i}`;
  const entry =
    `{?"registry": ${reg} != "" ? optional.of(${reg}) : optional.none(), "name": ${path}.substring(${path}.lastIndexOf("/") + 1), "path": ${path}, ` +
    `?"tag": ${tag} != "" ? optional.of(${tag}) : optional.none(), ?"digest": ${digest} != "" ? optional.of(${digest}) : optional.none(), ` +
    `"reference": ${digest} != "" ? ${image} + "@" + ${digest} : ${image} + ":" + ${tag}, "referenceWithTag": ${image} + ":" + ${tag}, "jsonPointer": ${pointer}}`;
  const steps: [string, string][] = [
    [f, defaulted],
    [at, `${f}.indexOf("@")`],
    [rest, `${at} >= 0 ? ${f}.substring(0, ${at}) : ${f}`],
    [digest, `${at} >= 0 ? ${f}.substring(${at} + 1) : ""`],
    [seg, `${rest}.substring(${rest}.lastIndexOf("/") + 1)`],
    [repo, `${seg}.indexOf(":") >= 0 ? ${rest}.substring(0, ${rest}.lastIndexOf("/") + 1 + ${seg}.indexOf(":")) : ${rest}`],
    [reg, `${repo}.substring(0, ${repo}.indexOf("/")).matches(${celString(`^${DOMAIN}$`)}) ? ${repo}.substring(0, ${repo}.indexOf("/")) : ""`],
    [path, `${reg} != "" ? ${repo}.substring(${repo}.indexOf("/") + 1) : ${repo}`],
    [tag, `${seg}.indexOf(":") >= 0 ? ${seg}.substring(${seg}.indexOf(":") + 1) : (${digest} == "" ? "latest" : "")`],
    [image, `${reg} != "" ? ${reg} + "/" + ${path} : ${path}`],
  ];
  // The grammar and the 255 characters of repository are checked once the full reference is known.
  const valid = `${f}.matches(${celString(REFERENCE)}) && size(${repo}) <= 255`;
  let body = `${valid} ? dyn(${entry}) : null`;
  for (let k = steps.length - 1; k >= 0; k--) body = `[${steps[k]![1]}].map(${steps[k]![0]}, ${body})[0]`;
  return body;
}

/**
 * The policy variable every `images` lookup reads: one entry per container of the three lists with an image,
 * in Kyverno's order (init containers, containers, ephemeral containers; a later container of the same list
 * and name wins), each with its `jsonPointer`; none for a kind Kyverno does not extract images from. Where
 * Kyverno's extraction fails (a container without a name, an image that does not parse), so does the
 * variable, as every query reading Kyverno's `images` does. `object` is the request's object (null on DELETE:
 * no entry), `kind` its kind when the rule's kinds fix it.
 */
export function imagesVariable(object: string, kind: string | undefined): string {
  let k = 0;
  const n = (hint: string): string => `${hint}${++k}`;
  const [i, c, x, a] = [n('i'), n('c'), n('x'), n('all')];
  const lists = podSpecs(object, kind).map(({ test, fields }) => {
    const spec = `${object}${fields.map((f) => `.?${f}`).join('')}`;
    const tagged = IMAGE_LISTS.map(
      (list) =>
        `${spec}.?${list}.orValue([]).transformList(${i}, ${c}, {"list": ${celString(list)}, "pointer": ${celString(`/${[...fields, list].join('/')}/`)} + string(${i}) + "/image", "container": dyn(${c})})`,
    ).join(' + ');
    return { test, tagged };
  });
  // Another kind: no entry at all.
  let all = '[]';
  for (let j = lists.length - 1; j >= 0; j--) all = lists[j]!.test === 'true' ? lists[j]!.tagged : `(${lists[j]!.test} ? ${lists[j]!.tagged} : ${all})`;
  // A DELETE's request has no object: Kyverno's webhook parses none (policycontext NewPolicyContextFromAdmissionRequest).
  all = `(${object} == null ? [] : ${all})`;
  const imaged = `has(${x}.container.image) && type(${x}.container.image) == string && ${x}.container.image.trim() != ""`;
  const entries = `${a}.filter(${x}, ${imaged}).map(${x}, {"list": ${x}.list, "name": dyn(${x}.container.name), "image": ${entryCel(`${x}.container.image`, `${x}.pointer`, n)}})`;
  // Kyverno's first failure, in its order: the container's name is read before its image.
  const e = n('e');
  const unnamed = `${a}.exists(${x}, !has(${x}.container.name) || type(${x}.container.name) != string)`;
  const unparsed = `${e}.exists(${x}, ${x}.image == null)`;
  const failed = fail("Kyverno's `images` fail to load: a container has no name or an image Kyverno cannot parse").cel;
  const checked = `[${entries}].map(${e}, ${unnamed} || ${unparsed} ? ${failed} : ${e})[0]`;
  return `[${all}].map(${a}, ${checked})[0]`;
}

/** `images.<list>[key]`: the entry, or Kyverno's NotFound (strict: an error; lenient: null). */
function lookup(variable: string, list: string, key: Frag, mode: Mode, cx: Cx): Frag {
  const x = cx.names.fresh('x');
  const e = cx.names.fresh('e');
  const missing = mode === 'strict' ? fail(`Unknown key: no container of images.${list} has that name and an image Kyverno parses`) : NULL;
  const found = tfrag(`${e}[size(${e}) - 1].image`, ENTRY_TYPE);
  const body = cond(`size(${e}) > 0`, found, missing);
  const entries = `${variable}.filter(${x}, ${x}.list == ${celString(list)} && ${x}.name == ${op(key)})`;
  return { ...frag(`[${entries}].map(${e}, ${body.cel})[0]`, body.t, { err: body.err || key.err, atom: true }), ty: body.ty ?? ENTRY_TYPE };
}

/**
 * `images.<list>` as a whole: the map of container name to entry, keys in the order of each name's first
 * container and the last one's entry (src/dialects/kyverno/document.ts imagesOf writes it so), or the
 * missing key where no container of the list has an entry (Kyverno leaves the list out of `images`).
 */
function wholeList(variable: string, list: string, mode: Mode, cx: Cx): Frag {
  const [es, i, x, j, y, n, f] = ['es', 'i', 'x', 'j', 'y', 'n', 'f'].map((h) => cx.names.fresh(h));
  const missing = mode === 'strict' ? fail(`Unknown key "${list}" in path: no container of the list has an image Kyverno parses`) : NULL;
  const names = `${es}.transformList(${i}, ${x}, !${es}.exists(${j}, ${y}, ${j} < ${i} && ${y}.name == ${x}.name), ${x}.name)`;
  const last = `[${es}.filter(${y}, ${y}.name == ${n})].map(${f}, ${f}[size(${f}) - 1].image)[0]`;
  const map = tfrag(`${names}.transformMapEntry(${i}, ${n}, {${n}: ${last}})`, { k: 'map', fields: {}, required: [], rest: ENTRY_TYPE });
  const body = cond(`size(${es}) > 0`, map, missing);
  const entries = `${variable}.filter(${x}, ${x}.list == ${celString(list)})`;
  return { ...frag(`[${entries}].map(${es}, ${body.cel})[0]`, body.t, { err: body.err, atom: true }), ty: body.ty };
}

/**
 * The `images` root, reading the policy variable `variable(list)` names for a read of `images.<list>`
 * (imagesVariable; declared by the caller on its first use).
 */
export function imagesBinding(variable: (list: string) => string): Binding {
  const fields: Record<string, Binding> = {};
  for (const list of IMAGE_LISTS) {
    fields[list] = { keyed: (key, mode, cx) => lookup(variable(list), list, key, mode, cx), whole: (mode, cx) => wholeList(variable(list), list, mode, cx), what: `images.${list}` };
  }
  return { fields };
}
