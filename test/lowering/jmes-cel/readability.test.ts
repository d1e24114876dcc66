/**
 * Readability: the CEL written for the Kyverno forms real policies use most, pinned as text. Each row gives
 * the form, the CEL when the caller passes types (object a Pod typed from the built-in schema, element one
 * of its containers, elementIndex a small int: harness.ts TYPED_SCOPE, what the MAP generator passes),
 * and the CEL when it passes none (harness.ts SCOPE; undefined where it is too long to pin, in which case it
 * only has to be longer). The typed text is what a reviewer reads in a migrated policy: short, idiomatic,
 * and exact; the untyped one may stay defensive. Both are also run against Kyverno: typed on documents that
 * respect the types (docs.ts TYPED_DOCS), untyped on all documents (DOCS).
 *
 * Where the typed text still guards something, the guard is an assumption the types cannot settle: a
 * container name may hold `{{` (Kyverno would substitute it again), a namespace or a group may hold `*`
 * (Kyverno's AnyIn matches wildcards both ways), a name may be non-ASCII (to_upper), a list may be null.
 */
import { describe, expect, it } from 'vitest';
import { conditionsToCel, jmesToCel, templateToCel, type CelTarget, type JmesCelScope } from '../../../src/lowering/jmes-cel/index.js';
import { DOCS, TYPED_DOCS } from './docs.js';
import { conditionsDifferential, differential, SCOPE, templateDifferential, TYPED_SCOPE } from './harness.js';

type Form = { expr: string; env?: 'kyverno-mpol' } | { template: string } | { conditions: unknown };
type Row = [form: Form, typed: string, untyped: string | undefined];

export const ROWS: Row[] = [
  // metadata: names, labels and annotations, with defaults
  [{ expr: 'request.object.metadata.name' },
    'object.metadata.name',
    'type(object) != map ? null : type(object.metadata) != map ? null : object.metadata.name'],
  [{ expr: 'request.object.metadata.namespace' },
    'object.metadata.namespace',
    'type(object) != map ? null : type(object.metadata) != map ? null : object.metadata.namespace'],
  [{ expr: 'request.object.metadata.labels.app' },
    'object.metadata.labels.app',
    'type(object) != map ? null : type(object.metadata) != map ? null : type(object.metadata.labels) != map ? null : object.metadata.labels.app'],
  [{ expr: `request.object.metadata.labels.app || 'none'` },
    'object.metadata.?labels.?app.orValue("") != "" ? object.metadata.labels.app : "none"',
    '[type(object) != map ? null : type(object.?metadata.orValue(null)) != map ? null : type(object.?metadata.orValue(null).?labels.orValue(null)) != map ? null : object.?metadata.orValue(null).?labels.orValue(null).?app.orValue(null)].map(v, !(v in [dyn(null), dyn(false), dyn(""), dyn([]), dyn({})]) ? v : "none")[0]'],
  [{ expr: `request.object.metadata.labels.app || ''` },
    'object.metadata.?labels.?app.orValue("")',
    '[type(object) != map ? null : type(object.?metadata.orValue(null)) != map ? null : type(object.?metadata.orValue(null).?labels.orValue(null)) != map ? null : object.?metadata.orValue(null).?labels.orValue(null).?app.orValue(null)].map(v, !(v in [dyn(null), dyn(false), dyn(""), dyn([]), dyn({})]) ? v : "")[0]'],
  [{ expr: `request.object.metadata.labels."app.kubernetes.io/name" || ''` },
    'object.metadata.?labels[?"app.kubernetes.io/name"].orValue("")',
    '[type(object) != map ? null : type(object.?metadata.orValue(null)) != map ? null : type(object.?metadata.orValue(null).?labels.orValue(null)) != map ? null : object.?metadata.orValue(null).?labels.orValue(null)[?"app.kubernetes.io/name"].orValue(null)].map(v, !(v in [dyn(null), dyn(false), dyn(""), dyn([]), dyn({})]) ? v : "")[0]'],
  [{ expr: `request.object.metadata.annotations."sidecar.istio.io/inject" || 'false'` },
    'object.metadata.?annotations[?"sidecar.istio.io/inject"].orValue("") != "" ? object.metadata.annotations["sidecar.istio.io/inject"] : "false"',
    '[type(object) != map ? null : type(object.?metadata.orValue(null)) != map ? null : type(object.?metadata.orValue(null).?annotations.orValue(null)) != map ? null : object.?metadata.orValue(null).?annotations.orValue(null)[?"sidecar.istio.io/inject"].orValue(null)].map(v, !(v in [dyn(null), dyn(false), dyn(""), dyn([]), dyn({})]) ? v : "false")[0]'],
  [{ expr: 'request.object.metadata.labels || `{}`' },
    'object.metadata.?labels.orValue({})',
    '[type(object) != map ? null : type(object.?metadata.orValue(null)) != map ? null : object.?metadata.orValue(null).?labels.orValue(null)].map(v, !(v in [dyn(null), dyn(false), dyn(""), dyn([]), dyn({})]) ? v : {})[0]'],
  [{ expr: 'keys(request.object.metadata.labels || `{}`)' },
    'object.metadata.?labels.orValue({}).map(k, k)',
    '[[type(object) != map ? null : type(object.?metadata.orValue(null)) != map ? null : object.?metadata.orValue(null).?labels.orValue(null)].map(v, !(v in [dyn(null), dyn(false), dyn(""), dyn([]), dyn({})]) ? v : {})[0]].map(v2, type(v2) == map ? v2.map(k, k) : dyn({})["transmute: keys(): invalid type of argument"])[0]'],
  [{ expr: 'length(request.object.metadata.annotations || `{}`)' },
    'size(object.metadata.?annotations.orValue({}))',
    '[[type(object) != map ? null : type(object.?metadata.orValue(null)) != map ? null : object.?metadata.orValue(null).?annotations.orValue(null)].map(v, !(v in [dyn(null), dyn(false), dyn(""), dyn([]), dyn({})]) ? v : {})[0]].map(v2, (type(v2) == string || type(v2) == list || type(v2) == map) ? size(v2) : dyn({})["transmute: length(): invalid type of argument"])[0]'],
  [{ expr: '!(request.object.metadata.labels.app)' },
    'object.metadata.?labels.?app.orValue("") == ""',
    '!(!((type(object) != map ? null : type(object.?metadata.orValue(null)) != map ? null : type(object.?metadata.orValue(null).?labels.orValue(null)) != map ? null : object.?metadata.orValue(null).?labels.orValue(null).?app.orValue(null)) in [dyn(null), dyn(false), dyn(""), dyn([]), dyn({})]))'],
  // the object's containers and pod fields (lists may be null: the API server writes a nil list as null)
  [{ expr: 'request.object.spec.containers' },
    'object.spec.containers',
    'type(object) != map ? null : type(object.spec) != map ? null : object.spec.containers'],
  [{ expr: 'request.object.spec.initContainers || `[]`' },
    'has(object.spec.initContainers) && type(object.spec.initContainers) == list ? object.spec.initContainers : []',
    '[type(object) != map ? null : type(object.?spec.orValue(null)) != map ? null : object.?spec.orValue(null).?initContainers.orValue(null)].map(v, !(v in [dyn(null), dyn(false), dyn(""), dyn([]), dyn({})]) ? v : [])[0]'],
  [{ expr: 'length(request.object.spec.containers)' },
    'size(object.spec.containers)',
    '[type(object) != map ? null : type(object.?spec.orValue(null)) != map ? null : object.?spec.orValue(null).?containers.orValue(null)].map(v, (type(v) == string || type(v) == list || type(v) == map) ? size(v) : dyn({})["transmute: length(): invalid type of argument"])[0]'],
  [{ expr: 'request.object.spec.containers[*].image' },
    'has(object.spec.containers) && type(object.spec.containers) == list ? dyn(object.spec.containers.map(x, has(x.image), x.image)) : null',
    '[type(object) != map ? null : object.spec].map(v, [type(v) != map ? null : v.?containers.orValue(null)].map(v2, type(v2) == list ? dyn(v2.map(x, type(x) != map ? null : x.?image.orValue(null)).filter(y, type(y) != null_type)) : null)[0])[0]'],
  [{ expr: `request.object.spec.containers[?name=='nginx'].image` },
    'has(object.spec.containers) && type(object.spec.containers) == list ? dyn(object.spec.containers.filter(x, x.?name.orValue("") == "nginx").map(x2, has(x2.image), x2.image)) : null',
    '[type(object) != map ? null : type(object.?spec.orValue(null)) != map ? null : object.?spec.orValue(null).?containers.orValue(null)].map(v, type(v) == list ? dyn(v.filter(x, (type(x) != map ? null : x.?name.orValue(null)) == dyn("nginx")).map(x2, type(x2) != map ? null : x2.?image.orValue(null)).filter(y, type(y) != null_type)) : null)[0]'],
  [{ expr: `contains(request.object.spec.containers[*].name, 'istio-proxy')` },
    '"istio-proxy" in object.spec.containers.map(x, has(x.name), x.name)',
    '[type(object) != map ? null : object.?spec.orValue(null)].map(v, [type(v) != map ? null : v.?containers.orValue(null)].map(v2, type(v2) == list ? dyn(v2.map(x, type(x) != map ? null : x.?name.orValue(null)).filter(y, type(y) != null_type)) : null)[0])[0].exists(e, dyn(e) == dyn("istio-proxy"))'],
  [{ expr: 'request.object.spec.containers[0].image' },
    'type(object.spec.containers) != list || size(object.spec.containers) == 0 ? null : object.spec.containers[0].image',
    'type(object) != map ? null : type(object.spec) != map ? null : type(object.spec.containers) != list || size(object.spec.containers) <= 0 ? null : type(object.spec.containers[0]) != map ? null : object.spec.containers[0].image'],
  [{ expr: 'request.object.spec.hostNetwork || `false`' },
    'object.spec.?hostNetwork.orValue(false)',
    '[type(object) != map ? null : type(object.?spec.orValue(null)) != map ? null : object.?spec.orValue(null).?hostNetwork.orValue(null)].map(v, !(v in [dyn(null), dyn(false), dyn(""), dyn([]), dyn({})]) ? v : false)[0]'],
  [{ expr: 'request.object.spec.securityContext.runAsNonRoot' },
    'object.spec.securityContext.runAsNonRoot',
    'type(object) != map ? null : type(object.spec) != map ? null : type(object.spec.securityContext) != map ? null : object.spec.securityContext.runAsNonRoot'],
  // the admission request (types Kyverno guarantees)
  [{ expr: 'request.operation' },
    'request.operation',
    'request.operation'],
  [{ expr: `request.operation || 'BACKGROUND'` },
    'request.operation',
    'request.operation'],
  [{ expr: `request.operation == 'CREATE'` },
    'request.operation == "CREATE"',
    'request.operation == "CREATE"'],
  [{ expr: 'request.userInfo.username' },
    'request.userInfo.username',
    'request.userInfo.username'],
  [{ expr: 'request.kind.kind' },
    'request.kind.kind',
    'request.kind.kind'],
  // a foreach element (a container)
  [{ expr: 'element.name' },
    'e.name',
    'type(e) != map ? null : e.name'],
  [{ expr: `element.name == 'istio-proxy'` },
    'e.?name.orValue("") == "istio-proxy"',
    '(type(e) != map ? null : e.?name.orValue(null)) == dyn("istio-proxy")'],
  [{ expr: `element.imagePullPolicy || 'IfNotPresent'` },
    'e.?imagePullPolicy.orValue("") != "" ? e.imagePullPolicy : "IfNotPresent"',
    '[type(e) != map ? null : e.?imagePullPolicy.orValue(null)].map(v, !(v in [dyn(null), dyn(false), dyn(""), dyn([]), dyn({})]) ? v : "IfNotPresent")[0]'],
  [{ expr: 'element.securityContext.privileged || `false`' },
    'e.?securityContext.?privileged.orValue(false)',
    '[type(e) != map ? null : type(e.?securityContext.orValue(null)) != map ? null : e.?securityContext.orValue(null).?privileged.orValue(null)].map(v, !(v in [dyn(null), dyn(false), dyn(""), dyn([]), dyn({})]) ? v : false)[0]'],
  [{ expr: `starts_with(element.image, 'docker.io/')` },
    'e.image.startsWith("docker.io/")',
    '[type(e) != map ? null : e.?image.orValue(null)].map(v, type(v) == string ? v.startsWith("docker.io/") : dyn({})["transmute: starts_with(): invalid type of argument"])[0]'],
  [{ expr: `contains(element.image, ':latest')` },
    'e.image.contains(":latest")',
    '[type(e) != map ? null : e.?image.orValue(null)].map(v, (type(v) == list || type(v) == string) ? (type(v) == string ? (v.contains(":latest")) : v.exists(e2, dyn(e2) == dyn(":latest"))) : dyn({})["transmute: contains(): invalid type of argument"])[0]'],
  [{ expr: `split(element.image, ':')[0]` },
    'e.image.split(":")[0]',
    '[type(e) != map ? null : e.?image.orValue(null)].map(v, type(v) == string ? v.split(":") : dyn({})["transmute: split(): invalid type of argument"])[0][0]'],
  [{ expr: 'to_upper(element.name)' },
    'e.name.matches("^[\\\\x00-\\\\x7f]*$") ? e.name.upperAscii() : dyn({})["transmute: to_upper() of non-ASCII text"]',
    '[type(e) != map ? null : e.?name.orValue(null)].map(v, type(v) == string ? (v.matches("^[\\\\x00-\\\\x7f]*$") ? v.upperAscii() : dyn({})["transmute: to_upper() of non-ASCII text"]) : dyn({})["transmute: to_upper(): invalid type of argument"])[0]'],
  [{ expr: `join('-', [request.namespace, element.name])` },
    '[request.namespace, e.name].join("-")',
    '[[dyn(request.namespace), (type(e) != map ? null : e.?name.orValue(null))]].map(v, v.all(_t, type(_t) == string) ? v.join("-") : dyn({})["transmute: join(): invalid type of argument"])[0]'],
  [{ expr: 'element.ports[?containerPort == `80`] | length(@)' },
    'size(e.ports.filter(x, has(x.containerPort) && x.containerPort == 80))',
    'size([type(e) != map ? null : e.?ports.orValue(null)].map(v, type(v) == list ? dyn(v.filter(x, (type(x) != map ? null : x.?containerPort.orValue(null)) == dyn(80)).filter(y, type(y) != null_type)) : null)[0])'],
  [{ expr: 'length(element.ports || `[]`)' },
    'size(has(e.ports) && type(e.ports) == list ? e.ports : [])',
    '[[type(e) != map ? null : e.?ports.orValue(null)].map(v, !(v in [dyn(null), dyn(false), dyn(""), dyn([]), dyn({})]) ? v : [])[0]].map(v2, (type(v2) == string || type(v2) == list || type(v2) == map) ? size(v2) : dyn({})["transmute: length(): invalid type of argument"])[0]'],
  [{ expr: `element.env[?name=='DEBUG'].value | [0]` },
    'has(e.env) && type(e.env) == list ? e.env.filter(x, x.?name.orValue("") == "DEBUG").map(x2, has(x2.value), x2.value)[?0].orValue(null) : null',
    '[[type(e) != map ? null : e.?env.orValue(null)].map(v, type(v) == list ? dyn(v.filter(x, (type(x) != map ? null : x.?name.orValue(null)) == dyn("DEBUG")).map(x2, type(x2) != map ? null : x2.?value.orValue(null)).filter(y, type(y) != null_type)) : null)[0]].map(v2, type(v2) != list || size(v2) == 0 ? null : v2[0])[0]'],
  [{ expr: 'to_string(elementIndex)' },
    'string(i)',
    undefined],
  // templates
  [{ template: '{{ element.name }}-x' },
    'e.name.contains("{{") ? dyn({})["transmute: a spliced value holds \\"{{\\", \\"}}\\" or a trailing backslash"] : e.name + "-x"',
    undefined],
  [{ template: '{{ element.image }}' },
    'e.image',
    'type(e) != map ? null : e.image'],
  [{ template: '/spec/containers/{{elementIndex}}/image' },
    '"/spec/containers/" + string(i) + "/image"',
    undefined],
  [{ template: `{{ request.object.metadata.labels.app || 'default' }}` },
    'object.metadata.?labels.?app.orValue("") != "" ? object.metadata.labels.app : "default"',
    '[type(object) != map ? null : type(object.?metadata.orValue(null)) != map ? null : type(object.?metadata.orValue(null).?labels.orValue(null)) != map ? null : object.?metadata.orValue(null).?labels.orValue(null).?app.orValue(null)].map(v, !(v in [dyn(null), dyn(false), dyn(""), dyn([]), dyn({})]) ? v : "default")[0]'],
  [{ template: '{{ request.object.metadata.name }}-{{ request.namespace }}' },
    'object.metadata.name.contains("{{") || request.namespace.contains("{{") ? dyn({})["transmute: a spliced value holds \\"{{\\", \\"}}\\" or a trailing backslash"] : object.metadata.name + "-" + request.namespace',
    undefined],
  // preconditions
  [{ conditions: {"any":[{"key":"{{ request.operation || 'BACKGROUND' }}","operator":"AnyIn","value":["CREATE","UPDATE"]}]} },
    'request.operation in ["CREATE", "UPDATE"]',
    'request.operation in ["CREATE", "UPDATE"]'],
  [{ conditions: {"all":[{"key":"{{ request.operation }}","operator":"Equals","value":"CREATE"}]} },
    'request.operation == "CREATE"',
    'request.operation == "CREATE"'],
  [{ conditions: {"all":[{"key":"{{ request.operation }}","operator":"NotEquals","value":"DELETE"}]} },
    'request.operation != "DELETE"',
    'request.operation != "DELETE"'],
  [{ conditions: {"all":[{"key":"{{ request.namespace }}","operator":"AnyNotIn","value":["kube-system","kyverno"]}]} },
    '!(request.namespace in ["kube-system", "kyverno"] || ["kube-system", "kyverno"].exists(s, s.matches("^(?s:\\\\Q" + request.namespace.replace("\\\\E", "\\\\E\\\\\\\\E\\\\Q").replace("*", "\\\\E.*\\\\Q").replace("?", "\\\\E.\\\\Q") + "\\\\E)$")))',
    '!(request.namespace in ["kube-system", "kyverno"] || ["kube-system", "kyverno"].exists(s, s.matches("^(?s:\\\\Q" + request.namespace.replace("\\\\E", "\\\\E\\\\\\\\E\\\\Q").replace("*", "\\\\E.*\\\\Q").replace("?", "\\\\E.\\\\Q") + "\\\\E)$")))'],
  [{ conditions: {"all":[{"key":"{{ element.name }}","operator":"Equals","value":"istio-proxy"}]} },
    'e.name == "istio-proxy"',
    '[type(e) != map ? null : e.name].map(v, type(v) == string && v == "istio-proxy")[0]'],
  [{ conditions: {"all":[{"key":"{{ element.image }}","operator":"Equals","value":"*:latest"}]} },
    'e.image.matches("^(?s:.*:latest)$")',
    '[type(e) != map ? null : e.image].map(v, type(v) == string && v.matches("^(?s:.*:latest)$"))[0]'],
  [{ conditions: {"all":[{"key":"{{ request.object.metadata.labels.app || '' }}","operator":"NotEquals","value":""}]} },
    'object.metadata.?labels.?app.orValue("") != ""',
    '[[type(object) != map ? null : type(object.?metadata.orValue(null)) != map ? null : type(object.?metadata.orValue(null).?labels.orValue(null)) != map ? null : object.?metadata.orValue(null).?labels.orValue(null).?app.orValue(null)].map(v, !(v in [dyn(null), dyn(false), dyn(""), dyn([]), dyn({})]) ? v : "")[0]].map(v2, type(v2) != null_type && !(type(v2) == string && v2 == ""))[0]'],
  [{ conditions: {"all":[{"key":"{{ length(request.object.spec.containers) }}","operator":"GreaterThan","value":1}]} },
    'size(object.spec.containers) > 1',
    '[type(object) != map ? null : type(object.?spec.orValue(null)) != map ? null : object.?spec.orValue(null).?containers.orValue(null)].map(v, (type(v) == string || type(v) == list || type(v) == map) ? size(v) : dyn({})["transmute: length(): invalid type of argument"])[0] > 1'],
  [{ conditions: {"any":[{"key":"{{ request.userInfo.groups }}","operator":"AnyIn","value":["system:masters"]}]} },
    'request.userInfo.groups.exists(x, x == "system:masters" || "system:masters".matches("^(?s:\\\\Q" + x.replace("\\\\E", "\\\\E\\\\\\\\E\\\\Q").replace("*", "\\\\E.*\\\\Q").replace("?", "\\\\E.\\\\Q") + "\\\\E)$"))',
    'request.userInfo.groups.exists(x, x == "system:masters" || "system:masters".matches("^(?s:\\\\Q" + x.replace("\\\\E", "\\\\E\\\\\\\\E\\\\Q").replace("*", "\\\\E.*\\\\Q").replace("?", "\\\\E.\\\\Q") + "\\\\E)$"))'],
  [{ conditions: {"all":[{"key":"{{ keys(request.object.metadata.labels || `{}`) }}","operator":"AllIn","value":["app","team"]}]} },
    'object.metadata.?labels.orValue({}).map(k, k).all(x, x in ["app", "team"] || ["app", "team"].exists(s, s.matches("^(?s:\\\\Q" + x.replace("\\\\E", "\\\\E\\\\\\\\E\\\\Q").replace("*", "\\\\E.*\\\\Q").replace("?", "\\\\E.\\\\Q") + "\\\\E)$")))',
    undefined],
  [{ conditions: {"all":[{"key":"{{ element.securityContext.privileged || `false` }}","operator":"Equals","value":true}]} },
    'e.?securityContext.?privileged.orValue(false)',
    '[[type(e) != map ? null : type(e.?securityContext.orValue(null)) != map ? null : e.?securityContext.orValue(null).?privileged.orValue(null)].map(v, !(v in [dyn(null), dyn(false), dyn(""), dyn([]), dyn({})]) ? v : false)[0]].map(v2, type(v2) == bool && dyn(v2) == dyn(true))[0]'],
  [{ conditions: {"all":[{"key":"{{ request.object.metadata.annotations.\"policy.example.com/skip\" || '' }}","operator":"NotEquals","value":"true"}]} },
    'object.metadata.?annotations[?"policy.example.com/skip"].orValue("") != "true"',
    undefined],
  // Kyverno MutatingPolicy (regex_replace_all needs ext.Regex)
  [{ expr: `regex_replace_all('^docker.io/', element.image, 'registry.local/')`, env: 'kyverno-mpol' },
    'regex.replace(e.image, "^docker.io/", "registry.local/")',
    undefined],
  [{ expr: 'regex_replace_all(\'(.*):latest\', element.image, \'${1}:stable\')', env: 'kyverno-mpol' },
    'regex.replace(e.image, "(.*):latest", "\\\\1:stable")',
    undefined],
];

function targetOf(form: Form): CelTarget {
  return 'env' in form && form.env === 'kyverno-mpol' ? { env: 'kyverno-mpol' } : { env: 'map' };
}

function compileForm(form: Form, scope: JmesCelScope): string {
  const target = targetOf(form);
  const r = 'expr' in form ? jmesToCel(form.expr, scope, target) : 'template' in form ? templateToCel(form.template, scope, target) : conditionsToCel(form.conditions, scope, target);
  if (!r.ok) throw new Error(`refused (${r.class}): ${r.why}`);
  return r.cel;
}

function runForm(form: Form, scope: JmesCelScope, docs: typeof DOCS): void {
  const target = targetOf(form);
  if ('expr' in form) differential(form.expr, scope, target, docs);
  else if ('template' in form) templateDifferential(form.template, scope, target, docs);
  else conditionsDifferential(form.conditions, scope, target, docs);
}

function title(form: Form): string {
  return 'expr' in form ? form.expr : 'template' in form ? JSON.stringify(form.template) : JSON.stringify(form.conditions);
}

describe('readability: the CEL of common Kyverno forms', () => {
  it('has at least 40 forms', () => expect(ROWS.length).toBeGreaterThanOrEqual(40));

  for (const [form, typed, untyped] of ROWS) {
    describe(title(form), () => {
      it('typed: exact text, and agrees with Kyverno on typed documents', () => {
        expect(compileForm(form, TYPED_SCOPE)).toBe(typed);
        runForm(form, TYPED_SCOPE, TYPED_DOCS);
      });
      it('untyped: defensive, and agrees with Kyverno on every document', () => {
        const cel = compileForm(form, SCOPE);
        if (untyped !== undefined) expect(cel).toBe(untyped);
        else expect(cel.length).toBeGreaterThan(typed.length);
        runForm(form, SCOPE, DOCS);
      });
    });
  }
});
