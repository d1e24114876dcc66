import { describe, expect, it } from 'vitest';
import { kyvernoAdmissionChecks } from '../../../src/dialects/kyverno/admission/index.js';
import { loadYamlText } from '../../../src/io/yaml-load.js';

/** `line:col message` of each diagnostic for the first document of `text`. */
function check(text: string): string[] {
  const docs = loadYamlText('p.yaml', text);
  if (!docs.ok) throw new Error('yaml');
  return kyvernoAdmissionChecks(docs.value[0]!).map((d) => {
    expect(d.code).toBe('TM2004');
    expect(d.phase).toBe('parse');
    expect(d.dialect).toBe('kyverno');
    return `${d.span!.line}:${d.span!.col} ${d.message}`;
  });
}

/** A ClusterPolicy whose spec is `spec` (indented by two spaces, starting on line 6). */
function cpol(spec: string, kind = 'ClusterPolicy'): string {
  return `apiVersion: kyverno.io/v1\nkind: ${kind}\nmetadata:\n  name: p\nspec:\n${spec}`;
}

const REGEX_BG = String.raw`request\.|element|elementIndex|@|images|images\.|image\.|([a-z_0-9]+\()[^{}]`;
const REGEX_NOBG = String.raw`request|serviceAccountName|serviceAccountNamespace|element|elementIndex|@|images|image|([a-z_0-9]+\()[^{}]`;

describe('kyverno admission checks: valid policies', () => {
  it('accepts a strategic merge rule with context, preconditions and request variables', () => {
    expect(
      check(
        cpol(`  rules:
  - name: r
    match:
      any:
      - resources: {kinds: [Pod]}
    context:
    - name: team
      variable: {jmesPath: request.object.metadata.labels.team, default: none}
    preconditions:
      all:
      - {key: "{{ request.operation }}", operator: AnyIn, value: [CREATE, UPDATE]}
    mutate:
      patchStrategicMerge:
        metadata:
          labels:
            team: "{{ team }}"
            name: "{{ request.object.metadata.name }}"
`),
      ),
    ).toEqual([]);
  });

  it('accepts foreach JSON patches with element variables and an escaped reference', () => {
    expect(
      check(
        cpol(`  rules:
  - name: r
    match:
      all:
      - resources: {kinds: [Pod]}
    mutate:
      foreach:
      - list: request.object.spec.containers
        preconditions:
          any:
          - {key: "{{ element.name }}", operator: NotEquals, value: sidecar}
        patchesJson6902: |-
          - op: add
            path: /spec/containers/{{elementIndex}}/env/-
            value: {name: X, value: "\\$(POD_NAME)"}
`),
      ),
    ).toEqual([]);
  });

  it('accepts mutate existing targets using target and request variables', () => {
    expect(
      check(
        cpol(`  rules:
  - name: r
    match:
      any:
      - resources: {kinds: [ConfigMap]}
    mutate:
      targets:
      - apiVersion: v1
        kind: Secret
        name: "{{ request.object.metadata.name }}"
        namespace: "{{ request.object.metadata.namespace }}"
      patchStrategicMerge:
        metadata:
          labels:
            ref: "{{ target.metadata.name }}-{{ request.object.metadata.name }}"
`),
      ),
    ).toEqual([]);
  });

  it('accepts user variables and a wildcard kind with a metadata-only patch when background is off', () => {
    expect(
      check(
        cpol(`  background: false
  rules:
  - name: r
    match:
      any:
      - resources: {kinds: ["*"]}
    mutate:
      patchStrategicMerge:
        metadata:
          annotations:
            by: "{{ request.userInfo.username }}/{{ serviceAccountName }}"
`),
      ),
    ).toEqual([]);
  });

  it('ignores documents that are not Kyverno policies', () => {
    expect(check('apiVersion: v1\nkind: ConfigMap\nmetadata: {name: x, namespace: y}\n')).toEqual([]);
    expect(check('apiVersion: kyverno.io/v1\nkind: PolicyException\nmetadata: {name: x, namespace: y}\nspec: {}\n')).toEqual([]);
  });
});

describe('kyverno admission checks: invalid policies', () => {
  it('refuses a namespace on a ClusterPolicy', () => {
    expect(check('apiVersion: kyverno.io/v1\nkind: ClusterPolicy\nmetadata:\n  name: p\n  namespace: x\nspec:\n  rules: []\n')).toEqual([
      '5:3 A clusterpolicy should not have the namespace defined',
    ]);
  });

  it('requires kinds in a match filter (metadata-only patch)', () => {
    expect(
      check(
        cpol(`  rules:
  - name: r
    match:
      any:
      - resources:
          names: [a]
    mutate:
      patchStrategicMerge:
        metadata: {labels: {a: b}}
`),
      ),
    ).toEqual(['10:9 at least one element must be specified in a kind block, the kind attribute is mandatory when working with the resources element']);
  });

  it('requires kinds in a match filter (patch beyond metadata)', () => {
    expect(
      check(
        cpol(`  rules:
  - name: r
    match:
      resources:
        names: [a]
    mutate:
      patchStrategicMerge:
        spec: {x: 1}
`),
      ),
    ).toEqual(['9:7 policy can only deal with the metadata field of the resource if the rule does not match any kind']);
  });

  it('refuses a match filter without resources', () => {
    expect(
      check(
        cpol(`  background: false
  rules:
  - name: r
    match:
      any:
      - subjects: [{kind: User, name: bob}]
    mutate:
      patchStrategicMerge: {metadata: {labels: {a: b}}}
`),
      ),
    ).toEqual(['11:9 path: spec.rules[0].match.resources.: match resources not specified']);
  });

  it('refuses any/all together with a flat match block', () => {
    expect(
      check(
        cpol(`  rules:
  - name: r
    match:
      any:
      - resources: {kinds: [Pod]}
      resources: {kinds: [Pod]}
    mutate:
      patchStrategicMerge: {metadata: {labels: {a: b}}}
`),
      ),
    ).toEqual(['11:7 path: spec.rules[0].match.: can\'t specify any/all together with match resources']);
  });

  it('refuses any/all together with a flat exclude block', () => {
    expect(
      check(
        cpol(`  rules:
  - name: r
    match:
      any:
      - resources: {kinds: [Pod]}
    exclude:
      any:
      - resources: {namespaces: [kube-system]}
      resources: {names: [x]}
    mutate:
      patchStrategicMerge: {metadata: {labels: {a: b}}}
`),
      ),
    ).toEqual(['14:7 path: spec.rules[0].exclude.: can\'t specify any/all together with exclude resources']);
  });

  it('refuses any and all together in match (field error)', () => {
    expect(
      check(
        cpol(`  rules:
  - name: r
    match:
      any:
      - resources: {kinds: [Pod]}
      all:
      - resources: {kinds: [Pod]}
    mutate:
      patchStrategicMerge: {metadata: {labels: {a: b}}}
`),
      ),
    ).toEqual(["11:7 spec.rules[0].match: Invalid value: v1.MatchResources{…}: Can't specify any and all together"]);
  });

  it('refuses variables in match', () => {
    expect(
      check(
        cpol(`  rules:
  - name: r
    match:
      any:
      - resources:
          kinds: [Pod]
          names: ["{{ request.object.metadata.name }}"]
    mutate:
      patchStrategicMerge: {metadata: {labels: {a: b}}}
`),
      ),
    ).toEqual(['12:20 policy contains invalid variables: rule "r" should not have variables in match section']);
  });

  it('refuses variables in exclude', () => {
    expect(
      check(
        cpol(`  rules:
  - name: r
    match:
      any:
      - resources: {kinds: [Pod]}
    exclude:
      any:
      - resources:
          namespaces: ["ns-{{request.namespace}}"]
    mutate:
      patchStrategicMerge: {metadata: {labels: {a: b}}}
`),
      ),
    ).toEqual(['14:28 policy contains invalid variables: rule "r" should not have variables in exclude section']);
  });

  it('refuses variables in a JSON patch path', () => {
    expect(
      check(
        cpol(`  rules:
  - name: r
    match:
      any:
      - resources: {kinds: [Pod]}
    mutate:
      patchesJson6902: |-
        - op: add
          path: /metadata/labels/{{ request.object.metadata.name }}
          value: x
`),
      ),
    ).toEqual(['14:34 policy contains invalid variables: rule "r" should not have variables in patchesJSON6902 path section']);
  });

  it('refuses a JSON patch path without a leading slash', () => {
    expect(
      check(
        cpol(`  rules:
  - name: r
    match:
      any:
      - resources: {kinds: [Pod]}
    mutate:
      patchesJson6902: |-
        - op: add
          path: metadata/labels/a
          value: x
`),
      ),
    ).toEqual(['12:7 path must begin with a forward slash: spec.rules[0]: metadata/labels/a']);
  });

  it('refuses an unknown JSON patch operation', () => {
    expect(
      check(
        cpol(`  rules:
  - name: r
    match:
      any:
      - resources: {kinds: [Pod]}
    mutate:
      patchesJson6902: |-
        - op: merge
          path: /metadata/labels/a
          value: x
`),
      ),
    ).toEqual(['12:7 unexpected kind: spec.rules[0]: merge']);
  });

  it('refuses a JSON patch add without a value', () => {
    expect(
      check(
        cpol(`  rules:
  - name: r
    match:
      any:
      - resources: {kinds: [Pod]}
    mutate:
      patchesJson6902: |-
        - op: add
          path: /metadata/labels/a
`),
      ),
    ).toEqual(['12:7 invalid value: spec.rules[0]: operation, missing value field: missing value']);
  });

  it('refuses a precondition without a value', () => {
    expect(
      check(
        cpol(`  rules:
  - name: r
    match:
      any:
      - resources: {kinds: [Pod]}
    preconditions:
      all:
      - key: "{{ request.object.metadata.name }}"
        operator: Equals
    mutate:
      patchStrategicMerge: {metadata: {labels: {a: b}}}
`),
      ),
    ).toEqual(['13:9 path: spec.rules[0].validate.preconditions.all[0].: entered value of `key`, `value` or `operator` is missing or misspelled']);
  });

  it('refuses an unknown request.operation value', () => {
    expect(
      check(
        cpol(`  rules:
  - name: r
    match:
      any:
      - resources: {kinds: [Pod]}
    preconditions:
      any:
      - {key: "{{request.operation}}", operator: Equals, value: REMOVE}
    mutate:
      patchStrategicMerge: {metadata: {labels: {a: b}}}
`),
      ),
    ).toEqual([
      "13:65 path: spec.rules[0].validate.preconditions.any[0].value: REMOVE: unknown value 'REMOVE' found under the 'value' field. Only the following values are allowed: [CREATE, UPDATE, DELETE, CONNECT]",
    ]);
  });

  it('refuses a non-string request.operation value in a deprecated condition list', () => {
    expect(
      check(
        cpol(`  rules:
  - name: r
    match:
      any:
      - resources: {kinds: [Pod]}
    preconditions:
    - key: "{{ request.operation }}"
      operator: AnyIn
      value: [CREATE, 1]
    mutate:
      patchStrategicMerge: {metadata: {labels: {a: b}}}
`),
      ),
    ).toEqual([
      "14:23 path: spec.rules[0].validate.preconditions[0].value[1]: 'value[1]' found to be of the type float64. The provided values are expected to be strings",
    ]);
  });

  it('refuses an unknown operator in nested foreach preconditions', () => {
    const [d] = check(
      cpol(`  rules:
  - name: r
    match:
      any:
      - resources: {kinds: [Pod]}
    mutate:
      foreach:
      - list: request.object.spec.containers
        foreach:
        - list: element.env
          preconditions:
            all:
            - {key: "{{ element.name }}", operator: Matches, value: X}
          patchStrategicMerge: {metadata: {labels: {a: b}}}
`),
    );
    expect(d).toMatch(
      /^18:53 path: spec\.rules\[0\]\.mutate\.foreach\.mutate\.foreach\.conditions\.any\[0\]\.: entered value of `operator` is invalid\. valid values: \["Equal" "Equals" /,
    );
  });

  it('refuses a context entry named after a predefined variable', () => {
    expect(
      check(
        cpol(`  rules:
  - name: r
    match:
      any:
      - resources: {kinds: [Pod]}
    context:
    - name: request.x
      variable: {value: 1}
    mutate:
      patchStrategicMerge: {metadata: {labels: {a: b}}}
`),
      ),
    ).toEqual(['12:13 path: spec.rules[0]: entry name request.x is invalid as it conflicts with a pre-defined variable request']);
  });

  it('refuses a context entry with two sources', () => {
    expect(
      check(
        cpol(`  rules:
  - name: r
    match:
      any:
      - resources: {kinds: [Pod]}
    context:
    - name: cm
      configMap: {name: a, namespace: b}
      variable: {value: 1}
    mutate:
      patchStrategicMerge: {metadata: {labels: {a: b}}}
`),
      ),
    ).toEqual(['14:7 path: spec.rules[0]: exactly one of configMap or apiCall or imageRegistry or variable is required for context entries']);
  });

  it('refuses a context variable with neither value nor jmesPath', () => {
    expect(
      check(
        cpol(`  rules:
  - name: r
    match:
      any:
      - resources: {kinds: [Pod]}
    context:
    - name: v
      variable: {default: x}
    mutate:
      patchStrategicMerge: {metadata: {labels: {a: b}}}
`),
      ),
    ).toEqual(['13:7 path: spec.rules[0]: a variable must define a value or a jmesPath expression']);
  });

  it('refuses a context variable default without a jmesPath', () => {
    expect(
      check(
        cpol(`  rules:
  - name: r
    match:
      any:
      - resources: {kinds: [Pod]}
    context:
    - name: v
      variable:
        value: 1
        default: 2
    mutate:
      patchStrategicMerge: {metadata: {labels: {a: b}}}
`),
      ),
    ).toEqual(['15:9 path: spec.rules[0]: a variable must define a default value only when a jmesPath expression is defined']);
  });

  it('refuses a configMap context entry without a namespace', () => {
    expect(
      check(
        cpol(`  rules:
  - name: r
    match:
      any:
      - resources: {kinds: [Pod]}
    context:
    - name: cm
      configMap: {name: a}
    mutate:
      patchStrategicMerge: {metadata: {labels: {a: b}}}
`),
      ),
    ).toEqual(['13:7 path: spec.rules[0]: a namespace is required for configMap context entry']);
  });

  it('refuses an undeclared variable, listing the context patterns', () => {
    expect(
      check(
        cpol(`  rules:
  - name: r
    match:
      any:
      - resources: {kinds: [Pod]}
    context:
    - name: team
      variable: {value: a}
    mutate:
      patchStrategicMerge:
        metadata:
          labels:
            owner: "x-{{ owner.name }}"
`),
      ),
    ).toEqual([`18:23 policy contains invalid variables: variable substitution failed for rule r: variable owner.name must match regex "${REGEX_BG}" or patterns [team*]`]);
  });

  it('refuses an undeclared variable with the non-background allow list', () => {
    expect(
      check(
        cpol(`  background: false
  rules:
  - name: r
    match:
      any:
      - resources: {kinds: [Pod]}
    mutate:
      patchStrategicMerge:
        metadata:
          labels:
            "{{ foo }}": x
`),
      ),
    ).toEqual([`16:13 policy contains invalid variables: variable substitution failed for rule r: variable foo must match regex "${REGEX_NOBG}" or patterns []`]);
  });

  it('refuses user variables in background mode', () => {
    expect(
      check(
        cpol(`  rules:
  - name: r
    match:
      any:
      - resources: {kinds: [Pod]}
    mutate:
      patchStrategicMerge:
        metadata:
          annotations:
            by: "{{ request.userInfo.username }}"
`),
      ),
    ).toEqual([
      '15:18 only select variables are allowed in background mode. Set spec.background=false to disable background mode for this policy rule: variable {{ request.userInfo.username }} is not allowed ',
    ]);
  });

  it('refuses roles in match in background mode', () => {
    expect(
      check(
        cpol(`  rules:
  - name: r
    match:
      any:
      - resources: {kinds: [Pod]}
        clusterRoles: [admin]
    mutate:
      patchStrategicMerge: {metadata: {labels: {a: b}}}
`),
      ),
    ).toEqual([
      '11:9 only select variables are allowed in background mode. Set spec.background=false to disable background mode for this policy rule: invalid variable used at path: spec/rules[0]/match/any[0]/clusterRoles ',
    ]);
  });

  it('refuses the wildcard kind in background mode', () => {
    expect(
      check(
        cpol(`  rules:
  - name: r
    match:
      any:
      - resources: {kinds: ["*"]}
    mutate:
      patchStrategicMerge: {metadata: {labels: {a: b}}}
`),
      ),
    ).toEqual([
      '10:28 path: spec.rules[0].match.any[0].kinds: wildcard policy not allowed in background mode. Set spec.background=false to disable background mode for this policy rule ',
    ]);
  });

  it('refuses the wildcard kind with a patch beyond metadata', () => {
    expect(
      check(
        cpol(`  background: false
  rules:
  - name: r
    match:
      resources: {kinds: ["*"]}
    mutate:
      patchStrategicMerge: {spec: {a: b}}
`),
      ),
    ).toEqual(['10:26 path: spec.rules[0].match.kinds: policy can only deal with the metadata field of the resource if the rule does not match any kind']);
  });

  it('refuses the wildcard kind among other kinds', () => {
    expect(
      check(
        cpol(`  background: false
  rules:
  - name: r
    match:
      any:
      - resources: {kinds: [Pod]}
    exclude:
      all:
      - resources: {kinds: ["*", Pod]}
    mutate:
      patchStrategicMerge: {metadata: {labels: {a: b}}}
`),
      ),
    ).toEqual(['14:28 path: spec.rules[0].exclude.all[0].kinds: wildcard policy can not deal with more than one kind']);
  });

  it('refuses non-string label values in a patch', () => {
    expect(
      check(
        cpol(`  rules:
  - name: r
    match:
      any:
      - resources: {kinds: [Pod]}
    mutate:
      patchStrategicMerge:
        metadata:
          labels:
            replicas: 3
`),
      ),
    ).toEqual(['15:23 labels and annotations supports only string values, "use double quotes around the non string values"']);
  });

  it('refuses namespaces and cluster-wide kinds in a namespaced Policy (aggregated)', () => {
    expect(
      check(
        `apiVersion: kyverno.io/v1
kind: Policy
metadata:
  name: p
  namespace: team
spec:
  rules:
  - name: r
    match:
      any:
      - resources:
          kinds: [Pod, Namespace]
          namespaces: [other]
    mutate:
      patchStrategicMerge: {metadata: {labels: {a: b}}}
`,
      ),
    ).toEqual([
      "13:11 [spec.rules[0].match.any[0].namespaces: Forbidden: Filtering namespaces not allowed in namespaced policies, spec.rules[0].match.any[0].kinds[1]: Forbidden: Cluster wide resource 'Namespace' not allowed in namespaced policy]",
    ]);
  });

  it('refuses foreach together with a rule-level patch', () => {
    expect(
      check(
        cpol(`  rules:
  - name: r
    match:
      any:
      - resources: {kinds: [Pod]}
    mutate:
      patchStrategicMerge: {metadata: {labels: {a: b}}}
      foreach:
      - list: request.object.spec.containers
        patchStrategicMerge: {metadata: {labels: {a: b}}}
`),
      ),
    ).toEqual(['12:7 path: spec.rules[0].mutate.foreach.: only one of `foreach`, `patchStrategicMerge`, or `patchesJson6902` is allowed']);
  });

  it('refuses both patches at rule level', () => {
    expect(
      check(
        cpol(`  rules:
  - name: r
    match:
      any:
      - resources: {kinds: [Pod]}
    mutate:
      patchStrategicMerge: {metadata: {labels: {a: b}}}
      patchesJson6902: '[{"op": "add", "path": "/metadata/labels/c", "value": "d"}]'
`),
      ),
    ).toEqual(['13:7 path: spec.rules[0].mutate.foreach.: only one of `patchStrategicMerge` or `patchesJson6902` is allowed']);
  });

  it('refuses a foreach entry without a patch, with upstream\'s accumulated tag', () => {
    expect(
      check(
        cpol(`  rules:
  - name: r
    match:
      any:
      - resources: {kinds: [Pod]}
    mutate:
      foreach:
      - list: request.object.spec.containers
        patchStrategicMerge: {metadata: {labels: {a: b}}}
      - list: request.object.spec.initContainers
`),
      ),
    ).toEqual(['15:9 path: spec.rules[0].mutate.foreach[0]foreach[1].: only one of `patchStrategicMerge` or `patchesJson6902` is allowed']);
  });

  it('refuses a nested foreach entry with its own context', () => {
    expect(
      check(
        cpol(`  rules:
  - name: r
    match:
      any:
      - resources: {kinds: [Pod]}
    mutate:
      foreach:
      - list: request.object.spec.containers
        context:
        - {name: x, variable: {value: 1}}
        foreach:
        - list: element.env
          patchStrategicMerge: {metadata: {labels: {a: b}}}
`),
      ),
    ).toEqual(['14:9 path: spec.rules[0].mutate.foreach[0].: a nested foreach cannot contain other declarations']);
  });

  it('refuses element variables outside foreach', () => {
    expect(
      check(
        cpol(`  rules:
  - name: r
    match:
      any:
      - resources: {kinds: [Pod]}
    mutate:
      patchStrategicMerge:
        metadata:
          labels:
            c: "{{ element.name }}"
`),
      ),
    ).toEqual(["15:17 variable 'element.name' present outside of foreach at path /mutate/patchStrategicMerge/metadata/labels/c"]);
  });

  it('refuses mutateExistingOnPolicyUpdate without targets', () => {
    expect(
      check(
        cpol(`  rules:
  - name: r
    match:
      any:
      - resources: {kinds: [Pod]}
    mutate:
      mutateExistingOnPolicyUpdate: true
      patchStrategicMerge: {metadata: {labels: {a: b}}}
`),
      ),
    ).toEqual(['12:7 spec.mutateExistingOnPolicyUpdate: Forbidden: rules[0].mutate.targets has to be specified when mutateExistingOnPolicyUpdate is set']);
  });

  it('aggregates rule field errors: duplicate name and a rule without operation', () => {
    expect(
      check(
        cpol(`  rules:
  - name: r
    match:
      any:
      - resources: {kinds: [Pod]}
    mutate:
      patchStrategicMerge: {metadata: {labels: {a: b}}}
  - name: r
    match:
      any:
      - resources: {kinds: [Pod]}
`),
      ),
    ).toEqual([
      "13:11 [spec.rules[1].name: Invalid value: v1.Rule{…}: Duplicate rule name: 'r', spec.rules[1]: Invalid value: v1.Rule{…}: No operation defined in the rule 'r'.(supported operations: mutate,validate,generate,verifyImages)]",
    ]);
  });

  it('refuses disabling admission for a mutate policy', () => {
    expect(
      check(
        cpol(`  admission: false
  rules:
  - name: r
    match:
      any:
      - resources: {kinds: [Pod]}
    mutate:
      patchStrategicMerge: {metadata: {labels: {a: b}}}
`),
      ),
    ).toEqual(['6:3 disabling admission processing is only allowed with validation policies']);
  });

  it('refuses an unresolvable $( ) reference', () => {
    expect(
      check(
        cpol(`  rules:
  - name: r
    match:
      any:
      - resources: {kinds: [Pod]}
    mutate:
      patchStrategicMerge:
        spec:
          containers:
          - (name): app
            args: ["--name=$(POD_NAME)"]
`),
      ),
    ).toEqual([
      '16:28 policy contains invalid variables: variable substitution failed for rule r: got nil resolved variable $(POD_NAME) at path /mutate/patchStrategicMerge/spec/containers/0/args/0: <nil>',
    ]);
  });

  it('refuses celPreconditions on a mutate rule', () => {
    expect(
      check(
        cpol(`  rules:
  - name: r
    match:
      any:
      - resources: {kinds: [Pod]}
    celPreconditions:
    - {name: a, expression: "true"}
    mutate:
      patchStrategicMerge: {metadata: {labels: {a: b}}}
`),
      ),
    ).toEqual(['11:5 path: spec.rules[0].mutate..: celPrecondition can only be used with validate.cel']);
  });

  it('refuses a subject of an unknown kind and a malformed role (background off)', () => {
    expect(
      check(
        cpol(`  background: false
  rules:
  - name: r
    match:
      any:
      - resources: {kinds: [Pod]}
        subjects: [{kind: Robot, name: r2}]
        roles: [admin]
    mutate:
      patchStrategicMerge: {metadata: {labels: {a: b}}}
`),
      ),
    ).toEqual([
      '12:27 [spec.rules[0].match.any[0].subjects[0].kind: Invalid value: "Robot": kind must be \'User\', \'Group\', or \'ServiceAccount\', spec.rules[0].match.any[0].roles[0]: Invalid value: "admin": Role is expected to be in namespace:name format]',
    ]);
  });

  it('refuses an exclude block identical to the match block', () => {
    expect(
      check(
        cpol(`  rules:
  - name: r
    match:
      any:
      - resources: {kinds: [Pod]}
    exclude:
      any:
      - resources: {kinds: [Pod]}
    mutate:
      patchStrategicMerge: {metadata: {labels: {a: b}}}
`),
      ),
    ).toEqual(['11:5 spec.rules[0]: Invalid value: v1.Rule{…}: Rule is matching an empty set']);
  });
});
