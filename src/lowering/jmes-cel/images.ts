/**
 * Kyverno's `images` context root in CEL (pkg/engine/context AddImageInfos; our reproduction is
 * src/dialects/kyverno/document.ts imagesOf and src/jmespath/functions/images.ts getImageInfo):
 * `images.<list>.<containerName>` is the parsed image reference of that container of the Pod (or of the pod
 * template of a workload, the job template of a CronJob), `<list>` one of containers, initContainers,
 * ephemeralContainers. CEL has no map built from a list, so the root is a keyed binding: each lookup of a
 * container name finds the container and parses its image in place.
 *
 * The parse, as Kyverno does it: `docker.io/` is prepended when the reference has no `/`, or when its first
 * segment has no `.` or `:`, is not `localhost` and is lower case; the result must match the
 * distribution/reference grammar (else the container has no entry); the registry is the first segment where
 * it is a domain; the tag defaults to `latest` without a digest. The entry holds registry (when not empty),
 * name (the last path segment), path, tag and digest (when not empty), reference and referenceWithTag. A
 * container without a string name and image, or with an image that does not parse, has no entry; with two
 * containers of one name, the last one's.
 */
import type { Mode } from './access.js';
import type { Binding, Cx } from './context.js';
import { celString, cond, fail, frag, NULL, op, tfrag, type Frag } from './frag.js';
import { T, type Ty } from './types.js';

// The distribution/reference grammar, as src/jmespath/functions/images.ts writes it (RE2-compatible).
const DOMAIN_COMPONENT = '(?:[a-zA-Z0-9]|[a-zA-Z0-9][a-zA-Z0-9-]*[a-zA-Z0-9])';
const DOMAIN = `(?:${DOMAIN_COMPONENT}(?:\\.${DOMAIN_COMPONENT})*|\\[[a-fA-F0-9:]+\\])(?::[0-9]+)?`;
const PATH_COMPONENT = '[a-z0-9]+(?:(?:[._]|__|[-]+)[a-z0-9]+)*';
const TAG = '[\\w][\\w.-]{0,127}';
const DIGEST = '[A-Za-z][A-Za-z0-9]*(?:[-_+.][A-Za-z][A-Za-z0-9]*)*:[0-9a-fA-F]{32,}';
const REFERENCE = `^(?:${DOMAIN}/)?${PATH_COMPONENT}(?:/${PATH_COMPONENT})*(?::${TAG})?(?:@${DIGEST})?$`;

const LISTS = ['containers', 'initContainers', 'ephemeralContainers'] as const;

/** The type of one entry: the fields Kyverno always writes, and those it leaves out when empty. */
const ENTRY_TYPE: Ty = {
  k: 'map',
  fields: { registry: T.string, name: T.string, path: T.string, tag: T.string, digest: T.string, reference: T.string, referenceWithTag: T.string },
  required: ['name', 'path', 'reference', 'referenceWithTag'],
  rest: T.dyn,
};

/** The CEL of the pod spec the object holds, by its kind (`kind` when the rule's kinds fix it). */
function podSpec(object: string, kind: string | undefined): string {
  const pod = `${object}.?spec`;
  const cronJob = `${object}.?spec.?jobTemplate.?spec.?template.?spec`;
  const workload = `${object}.?spec.?template.?spec`;
  if (kind === 'Pod') return pod;
  if (kind === 'CronJob') return cronJob;
  if (kind !== undefined) return workload;
  return `(${object}.kind == "Pod" ? ${pod} : ${object}.kind == "CronJob" ? ${cronJob} : ${workload})`;
}

/**
 * The entry of the image `i` (a string variable), or null where Kyverno's parse fails (the container then has
 * no entry): the parse above, one binding per step. `n` gives fresh names.
 */
function entryCel(i: string, n: (hint: string) => string): string {
  const [f, at, rest, seg, repo, reg, path, tag, image, digest] = [n('full'), n('at'), n('rest'), n('seg'), n('repo'), n('reg'), n('path'), n('tag'), n('image'), n('digest')];
  const first = `${i}.split("/")[0]`;
  const defaulted = `!${i}.contains("/") || (!${first}.contains(".") && !${first}.contains(":") && ${first} != "localhost" && ${first} == ${first}.lowerAscii()) ? "docker.io/" + ${i} : ${i}`;
  const entry =
    `{?"registry": ${reg} != "" ? optional.of(${reg}) : optional.none(), "name": ${path}.substring(${path}.lastIndexOf("/") + 1), "path": ${path}, ` +
    `?"tag": ${tag} != "" ? optional.of(${tag}) : optional.none(), ?"digest": ${digest} != "" ? optional.of(${digest}) : optional.none(), ` +
    `"reference": ${digest} != "" ? ${image} + "@" + ${digest} : ${image} + ":" + ${tag}, "referenceWithTag": ${image} + ":" + ${tag}}`;
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
 * The policy variable every `images` lookup reads: one entry per container of the three lists with a string
 * name and an image Kyverno parses, in Kyverno's order (init containers, containers, ephemeral containers;
 * a later container of the same list and name wins). `object` is the request's object (never null), `kind`
 * its kind when the rule's kinds fix it.
 */
export function imagesVariable(object: string, kind: string | undefined): string {
  let k = 0;
  const n = (hint: string): string => `${hint}${++k}`;
  const spec = podSpec(object, kind);
  const c = n('c');
  const x = n('x');
  const tagged = ['initContainers', 'containers', 'ephemeralContainers']
    .map((list) => `${spec}.?${list}.orValue([]).map(${c}, {"list": ${celString(list)}, "container": dyn(${c})})`)
    .join(' + ');
  const named = `has(${x}.container.name) && has(${x}.container.image) && type(${x}.container.name) == string && type(${x}.container.image) == string`;
  const entries = `(${tagged}).filter(${x}, ${named}).map(${x}, {"list": ${x}.list, "name": dyn(${x}.container.name), "image": ${entryCel(`${x}.container.image`, n)}})`;
  return `${entries}.filter(${x}, ${x}.image != null)`;
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
 * The `images` root, reading the policy variable `variable()` names (imagesVariable; declared by the caller
 * on its first use).
 */
export function imagesBinding(variable: () => string): Binding {
  const fields: Record<string, Binding> = {};
  for (const list of LISTS) {
    fields[list] = { keyed: (key, mode, cx) => lookup(variable(), list, key, mode, cx), whole: (mode, cx) => wholeList(variable(), list, mode, cx), what: `images.${list}` };
  }
  return { fields };
}
