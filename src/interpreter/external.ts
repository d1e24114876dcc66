import { copyObject, defineOwn, hasOwn, isJsonObject, type JsonObject, type JsonValue } from '../ir/json.js';
import type { ExternalValue } from '../ir/nodes.js';
import { evalFailure } from './failure.js';
import type { EvalState } from './state.js';

/**
 * Gatekeeper writes a placeholder, not a value, where external data is assigned (core/setter.go), and resolves
 * all placeholders only after the fix-point has converged (pkg/mutation/system_external_data.go). A placeholder
 * already at the location passes its key on, so later passes rewrite the same placeholder and the loop converges.
 */
export class ExternalPlaceholder {
  constructor(
    readonly provider: string,
    readonly key: string,
    readonly spec: ExternalValue,
  ) {}
}

export function placeholderFor(v: ExternalValue, st: EvalState, current: JsonValue | undefined): ExternalPlaceholder {
  let key: string;
  if (current instanceof ExternalPlaceholder) key = current.key;
  else if (v.source === 'Username') key = st.request.userInfo?.username ?? '';
  else if (current === undefined) key = '';
  else if (typeof current === 'string') key = current;
  else throw evalFailure('TM3004', 'external data: the value at the location is not a string', v.origin);
  return new ExternalPlaceholder(v.provider, key, v);
}

function resolve(p: ExternalPlaceholder, st: EvalState): string {
  const v = p.spec;
  const table = st.externalData?.[p.provider];
  if (!table) throw evalFailure('TM3004', `external data provider "${p.provider}" has no data: supply it with --external-data`, v.origin);
  const answer = hasOwn(table, p.key) ? table[p.key] : undefined;
  if (typeof answer === 'string') return answer;
  const why =
    answer === undefined ? `no value for key "${p.key}"` : isJsonObject(answer) && typeof answer.error === 'string' ? answer.error : 'the value is not a string';
  switch (v.failurePolicy) {
    case 'Ignore':
      return p.key;
    case 'UseDefault':
      return v.default ?? '';
    default:
      throw evalFailure('TM3004', `failed to retrieve external data item from provider "${p.provider}": ${why}`, v.origin);
  }
}

/** Replaces every placeholder in the object by its resolved value, copying only the changed branches. */
export function resolvePlaceholders(value: JsonValue, st: EvalState): JsonValue {
  if ((value as unknown) instanceof ExternalPlaceholder) return resolve(value as unknown as ExternalPlaceholder, st);
  if (Array.isArray(value)) {
    let out: JsonValue[] | undefined;
    value.forEach((el, i) => {
      const r = resolvePlaceholders(el, st);
      if (r !== el) (out ??= value.slice())[i] = r;
    });
    return out ?? value;
  }
  if (isJsonObject(value)) {
    let out: JsonObject | undefined;
    for (const k of Object.keys(value)) {
      const r = resolvePlaceholders(value[k]!, st);
      if (r !== value[k]) defineOwn((out ??= copyObject(value)), k, r);
    }
    return out ?? value;
  }
  return value;
}
