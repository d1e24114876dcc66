/**
 * Kyverno's time functions (pkg/engine/jmespath/time.go). Every "now" comes from JmesContext.clock
 * so runs are reproducible; `time_now` formats in UTC (Kyverno runs with the container's local
 * zone, which is UTC in its images).
 */
import { failure, JmesFailure } from '../types.js';
import { formatDuration, parseDuration } from './duration.js';
import { fields, formatRFC3339, fromDate, parseTime, RFC3339, truncateTime, type GoTime } from './gotime.js';
import { expectString, expectStrings, type Env, type FunctionSpec } from './registry.js';

function now(env: Env): GoTime {
  return fromDate(env.ctx.clock ? env.ctx.clock() : new Date());
}

/** time.go getTimeArg: a string parsed as RFC 3339; parse errors are returned as Go reports them. */
function timeArg(fn: string, args: unknown[], i: number): GoTime | JmesFailure {
  const s = expectString(fn, args, i);
  if (s instanceof JmesFailure) return s;
  const r = parseTime(RFC3339, s);
  return r.ok ? r.time : failure('Runtime', r.message);
}

function durationArg(fn: string, args: unknown[], i: number): bigint | JmesFailure {
  const s = expectString(fn, args, i);
  if (s instanceof JmesFailure) return s;
  const r = parseDuration(s);
  return r.ok ? r.ns : failure('Runtime', r.message);
}

function sub(a: GoTime, b: GoTime): string {
  const max = (1n << 63n) - 1n;
  let d = a.ns - b.ns;
  if (d > max) d = max;
  if (d < -max - 1n) d = -max - 1n;
  return formatDuration(d);
}

type TimeHandler = (args: unknown[], env: Env) => unknown;

function fn(name: string, arity: number, handler: TimeHandler): FunctionSpec {
  return { name, args: Array.from({ length: arity }, () => ['string']), handler };
}

export const TIME_FUNCTIONS: FunctionSpec[] = [
  fn('time_since', 3, (args, env) => {
    const strs = expectStrings('time_since', args, 3);
    if (strs instanceof JmesFailure) return strs;
    const [layout, s1, s2] = strs as [string, string, string];
    const l = layout === '' ? RFC3339 : layout;
    const t1 = parseTime(l, s1);
    if (!t1.ok) return failure('Runtime', t1.message);
    let t2 = now(env);
    if (s2 !== '') {
      const p = parseTime(l, s2);
      if (!p.ok) return failure('Runtime', p.message);
      t2 = p.time;
    }
    return sub(t2, t1.time);
  }),
  { name: 'time_now', args: [], handler: (_args, env) => formatRFC3339(now(env)) },
  { name: 'time_now_utc', args: [], handler: (_args, env) => formatRFC3339(now(env)) },
  fn('time_to_cron', 1, (args) => {
    const t = timeArg('time_to_cron', args, 0);
    if (t instanceof JmesFailure) return t;
    const f = fields(t);
    return `${f.minute} ${f.hour} ${f.day} ${f.month} ${f.weekday}`;
  }),
  fn('time_add', 2, (args) => {
    // Upstream validates both arguments under the name time_to_cron (time.go jpTimeAdd).
    const t = timeArg('time_to_cron', args, 0);
    if (t instanceof JmesFailure) return t;
    const d = durationArg('time_to_cron', args, 1);
    if (d instanceof JmesFailure) return d;
    return formatRFC3339({ ns: t.ns + d, offsetSec: t.offsetSec });
  }),
  fn('time_parse', 2, (args) => {
    const layout = expectString('time_parse', args, 0);
    if (layout instanceof JmesFailure) return layout;
    const value = expectString('time_parse', args, 1);
    if (value instanceof JmesFailure) return value;
    // A layout that is an integer means "value is a Unix epoch in seconds".
    if (/^[+-]?\d+$/.test(layout)) {
      if (!/^[+-]?\d+$/.test(value)) return failure('Runtime', `strconv.ParseInt: parsing ${JSON.stringify(value)}: invalid syntax`);
      return formatRFC3339({ ns: BigInt(value) * 1000000000n, offsetSec: 0 });
    }
    const r = parseTime(layout, value);
    return r.ok ? formatRFC3339(r.time) : failure('Runtime', r.message);
  }),
  fn('time_utc', 1, (args) => {
    const t = timeArg('time_utc', args, 0);
    if (t instanceof JmesFailure) return t;
    return formatRFC3339({ ns: t.ns, offsetSec: 0 });
  }),
  fn('time_diff', 2, (args) => {
    const t1 = timeArg('time_diff', args, 0);
    if (t1 instanceof JmesFailure) return t1;
    const t2 = timeArg('time_diff', args, 1);
    if (t2 instanceof JmesFailure) return t2;
    return sub(t2, t1);
  }),
  fn('time_before', 2, (args) => {
    const t1 = timeArg('time_before', args, 0);
    if (t1 instanceof JmesFailure) return t1;
    const t2 = timeArg('time_before', args, 1);
    if (t2 instanceof JmesFailure) return t2;
    return t1.ns < t2.ns;
  }),
  fn('time_after', 2, (args) => {
    const t1 = timeArg('time_after', args, 0);
    if (t1 instanceof JmesFailure) return t1;
    const t2 = timeArg('time_after', args, 1);
    if (t2 instanceof JmesFailure) return t2;
    return t1.ns > t2.ns;
  }),
  fn('time_between', 3, (args) => {
    const t = timeArg('time_between', args, 0);
    if (t instanceof JmesFailure) return t;
    const start = timeArg('time_between', args, 1);
    if (start instanceof JmesFailure) return start;
    const end = timeArg('time_between', args, 2);
    if (end instanceof JmesFailure) return end;
    return t.ns > start.ns && t.ns < end.ns;
  }),
  fn('time_truncate', 2, (args) => {
    const t = timeArg('time_truncate', args, 0);
    if (t instanceof JmesFailure) return t;
    const d = durationArg('time_truncate', args, 1);
    if (d instanceof JmesFailure) return d;
    return formatRFC3339(truncateTime(t, d));
  }),
];
