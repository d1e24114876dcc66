/**
 * The JSON types of the admission request's fields in Kyverno's context (admission/v1 AdmissionRequest as
 * encoding/json writes it: `uid`, `kind`, `resource`, `operation` and `userInfo` always, the rest omitempty),
 * which the CEL request of MAP and MutatingPolicy holds too. The scope applies them to a request field it
 * binds without a type of its own (a binding's `type`, even dyn, takes precedence): at admission
 * `request.operation` is one of four words, so `{{ request.operation || 'BACKGROUND' }}` is just it.
 * `object` and `oldObject` are not here: their type comes from the kinds matched (schema-type.ts).
 */
import { fieldType, T, type Ty } from './types.js';

const STRING = T.string;
const GVK = T.struct({ group: STRING, version: STRING, kind: STRING }, ['group', 'version', 'kind']);
const GVR = T.struct({ group: STRING, version: STRING, resource: STRING }, ['group', 'version', 'resource']);

export const REQUEST_TYPE: Ty = T.struct(
  {
    uid: STRING,
    kind: GVK,
    resource: GVR,
    subResource: STRING,
    requestKind: GVK,
    requestResource: GVR,
    requestSubResource: STRING,
    name: STRING,
    namespace: STRING,
    operation: T.oneOf('CREATE', 'UPDATE', 'DELETE', 'CONNECT'),
    userInfo: T.struct({ username: STRING, uid: STRING, groups: T.list(STRING), extra: T.map(T.list(STRING)) }),
    dryRun: T.bool,
  },
  ['uid', 'kind', 'resource', 'operation', 'userInfo'],
);

/** The type of a Kyverno context path under `request` (`request.userInfo.groups`), dyn when not known. */
export function requestPathType(path: string): Ty {
  const [root, ...fields] = path.split('.');
  if (root !== 'request') return T.dyn;
  let t = REQUEST_TYPE;
  for (const f of fields) {
    if (t.k !== 'map') return T.dyn;
    t = fieldType(t, f).ty;
  }
  return t;
}
