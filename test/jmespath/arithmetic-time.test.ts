/** Kyverno's arithmetic and time functions: cases transcribed from arithmetic_test.go and time_test.go. */
import { describe, expect, it } from 'vitest';
import { expectError, run, value } from './helpers.js';

const ok: [string, unknown][] = [
  ['add(`12`, `13`)', 25],
  ["add('12Ki', '13Ki')", '25Ki'],
  ["add('12Ki', '13')", '12301'],
  ["add('12s', '13s')", '25s'],
  ["add('1Gi', '512Mi')", '1536Mi'],
  ["add('500m', '500m')", '1'],
  ["add('0.5', '0.25')", '750m'],
  ["add('1h', '30m0s')", '1h30m0s'],
  ['sum([`12`])', 12],
  ['sum([`12`, `13`, `1`, `4`])', 30],
  ['sum([`12`, `13`])', 25],
  ["sum(['12Ki'])", '12Ki'],
  ["sum(['12Ki', '13Ki', '1Ki', '4Ki'])", '30Ki'],
  ["sum(['12Ki', '13Ki'])", '25Ki'],
  ["sum(['12Ki', '13'])", '12301'],
  ["sum(['12s'])", '12s'],
  ["sum(['12s', '13s', '1s', '4s'])", '30s'],
  ["sum(['12s', '13s'])", '25s'],
  ['subtract(`12`, `13`)', -1],
  ["subtract('12Ki', '13Ki')", '-1Ki'],
  ["subtract('12Ki', '13')", '12275'],
  ["subtract('12s', '13s')", '-1s'],
  ["multiply('12Ki', `2`)", '24Ki'],
  ["multiply('12s', `2`)", '24s'],
  ['multiply(`2.5`, `2.5`)', 6.25],
  ["multiply(`2.5`, '12Ki')", '30Ki'],
  ["multiply(`2.5`, '12')", '30'],
  ["multiply(`2.5`, '40s')", '1m40s'],
  ["multiply('100m', `3`)", '300m'],
  ["divide('256M', '256M')", 1],
  ["divide('512M', '256M')", 2],
  ["divide('8', '3')", 8 / 3],
  ["divide('128M', '256M')", 0.5],
  ["divide('12Ki', `3`)", '4Ki'],
  ["divide('12Ki', '2Ki')", 6],
  ["divide('12Ki', '200')", 61.44],
  ["divide('12s', `3`)", '4s'],
  ["divide('12s', '5s')", 2.4],
  ['divide(`14`, `3`)', 4.666666666666667],
  ["divide('10', `4`)", '2'],
  ["divide('1', `3`)", '0'],
  ["modulo('12Ki', '5Ki')", '2Ki'],
  ["modulo('13s', '2s')", '1s'],
  ['modulo(`13`, `5`)', 3],
  ['modulo(`-13`, `5`)', -3],
  ['round(`3.14159`, `2`)', 3.14],
  ['round(`2.5`, `0`)', 3],
  ['round(`-2.5`, `0`)', -3],
];

const bad: [string, string?][] = [
  ["add('12', '13s')", "JMESPath function 'add': Types mismatch"],
  ["add(`12`, '13Ki')"],
  ["add(`12`, '13')"],
  ["add('12Ki', '13s')"],
  ["add('12Ki', `13`)"],
  ["add('12s', `13`)"],
  ["add('12s', '13Ki')"],
  ["add('12s', '13')"],
  ["add('abc', `1`)", "JMESPath function 'add': invalid operands"],
  ['add(`null`, `1`)', "JMESPath function 'add': invalid operands"],
  ['sum(`[]`)', "JMESPath function 'sum': at least one element in the array is required"],
  ["sum(['12', '13s'])"],
  ["sum([`12`, '13Ki'])"],
  ["sum([`12`, '13'])", "JMESPath function 'sum': Types mismatch"],
  ["sum(['12Ki', '13s'])"],
  ["sum(['12Ki', `13`])"],
  ["sum(['12s', `13`])"],
  ["sum(['12s', '13Ki'])"],
  ["sum(['12s', '13'])"],
  ["subtract('12', '13s')"],
  ["subtract(`12`, '13Ki')"],
  ["subtract(`12`, '13')"],
  ["subtract('12Ki', '13s')"],
  ["subtract('12Ki', `13`)"],
  ["subtract('12s', `13`)"],
  ["subtract('12s', '13Ki')"],
  ["subtract('12s', '13')"],
  ["multiply('12Ki', '12Ki')"],
  ["multiply('12Ki', '12')"],
  ["multiply('12Ki', '12s')"],
  ["multiply('12s', '12Ki')"],
  ["multiply('12s', '12')"],
  ["multiply('12s', '12s')"],
  ["divide('12Ki', '2s')"],
  ["divide('12s', '4Ki')"],
  ["divide('12s', '4')"],
  ["divide(`14`, '5s')"],
  ["divide(`14`, '5Ki')"],
  ["divide(`14`, '5')"],
  ['divide(`14`, `0`)', "JMESPath function 'divide': Zero divisor passed"],
  ["divide('4Ki', `0`)"],
  ["divide('4Ki', '0Ki')"],
  ["divide('4', `0`)"],
  ["divide('4', '0')"],
  ["divide('4s', `0`)"],
  ["divide('4s', '0s')"],
  ["modulo('12', '13s')"],
  ["modulo('12Ki', '13s')"],
  ["modulo('12Ki', `13`)"],
  ["modulo('13s', '12')"],
  ["modulo('13s', '12Ki')"],
  ["modulo('13s', `2`)"],
  ["modulo(`13`, '12')"],
  ["modulo(`13`, '12Ki')"],
  ["modulo(`13`, '5s')"],
  ['modulo(`14`, `0`)', "JMESPath function 'modulo': Zero divisor passed"],
  ["modulo('4Ki', `0`)"],
  ["modulo('4Ki', '0Ki')"],
  ["modulo('4', `0`)"],
  ["modulo('4', '0')"],
  ["modulo('4s', `0`)"],
  ["modulo('4s', '0s')"],
  ["modulo('4', '1.5')", "JMESPath function 'modulo': Non-integer argument(s) passed for modulo"],
  ["modulo('4.5', '1')"],
  ['modulo(`14`, `1.5`)'],
  ['modulo(`14.5`, `2`)'],
  ['round(`1.5`, `1.5`)', "JMESPath function 'round': Non-integer argument(s) passed for round off"],
  ['round(`1.5`, `-1`)'],
];

describe('arithmetic', () => {
  for (const [expr, expected] of ok) {
    it(`${expr} → ${JSON.stringify(expected)}`, () => {
      expect(value(expr)).toEqual(expected);
    });
  }
  for (const [expr, message] of bad) {
    it(`${expr} fails`, () => {
      const e = expectError(expr);
      if (message !== undefined) expect(e.message).toBe(message);
    });
  }
});

const times: [string, unknown][] = [
  ["time_since('', '2021-01-02T15:04:05-07:00', '2021-01-10T03:14:05-07:00')", '180h10m0s'],
  ["time_since('Mon Jan _2 15:04:05 MST 2006', 'Mon Jan 02 15:04:05 MST 2021', 'Mon Jan 10 03:14:16 MST 2021')", '180h10m11s'],
  ["time_to_cron('2023-02-02T15:04:05Z')", '4 15 2 2 4'],
  ["time_to_cron(time_utc('2023-02-02T15:04:05-07:00'))", '4 22 2 2 4'],
  ["time_add('2021-01-02T15:04:05-07:00', '3h')", '2021-01-02T18:04:05-07:00'],
  ["time_add(time_parse('Mon Jan 02 15:04:05 MST 2006', 'Sat Jan 02 15:04:05 MST 2021'), '5h30m40s')", '2021-01-02T20:34:45Z'],
  ["time_parse('2006-01-02T15:04:05Z07:00', '2021-01-02T15:04:05-07:00')", '2021-01-02T15:04:05-07:00'],
  ["time_parse('Mon Jan 02 15:04:05 MST 2006', 'Sat Jan 02 15:04:05 MST 2021')", '2021-01-02T15:04:05Z'],
  ["time_parse('1136239445', '1609459200')", '2021-01-01T00:00:00Z'],
  ["time_parse('2006-01-02', '2024-02-29')", '2024-02-29T00:00:00Z'],
  ["time_parse('02 Jan 06 15:04 -0700', '05 Mar 24 08:30 +0130')", '2024-03-05T08:30:00+01:30'],
  ["time_utc('2023-02-02T15:04:05Z')", '2023-02-02T15:04:05Z'],
  ["time_utc('2023-02-02T15:04:05-07:00')", '2023-02-02T22:04:05Z'],
  ["time_diff('2021-01-02T15:04:05-07:00', '2021-01-10T03:14:05-07:00')", '180h10m0s'],
  ["time_diff('2021-01-02T15:04:05Z', '2021-01-02T15:04:05.5Z')", '500ms'],
  ["time_before('2021-01-02T15:04:05-07:00', '2021-01-02T16:04:05-07:00')", true],
  ["time_before('2021-01-02T15:04:05-07:00', '2021-01-02T15:04:05-07:00')", false],
  ["time_before('2021-01-02T16:04:05-07:00', '2021-01-02T15:04:05-07:00')", false],
  ["time_after('2021-01-02T15:04:05-07:00', '2021-01-02T16:04:05-07:00')", false],
  ["time_after('2021-01-02T15:04:05-07:00', '2021-01-02T15:04:05-07:00')", false],
  ["time_after('2021-01-02T16:04:05-07:00', '2021-01-02T15:04:05-07:00')", true],
  ["time_between('2021-01-02T17:04:05-07:00', '2021-01-02T15:04:05-07:00', '2021-01-02T18:04:05-07:00')", true],
  ["time_between('2021-01-02T15:04:05-07:00', '2021-01-02T15:04:05-07:00', '2021-01-02T18:04:05-07:00')", false],
  ["time_between('2021-01-02T18:04:05-07:00', '2021-01-02T15:04:05-07:00', '2021-01-02T18:04:05-07:00')", false],
  ["time_truncate('2023-02-02T15:04:05Z', '1h')", '2023-02-02T15:00:00Z'],
  // Truncate works on absolute time (since 0001-01-01 UTC), not on the wall clock of the offset.
  ["time_truncate('2023-02-02T15:04:05-07:00', '24h')", '2023-02-01T17:00:00-07:00'],
];

describe('time', () => {
  for (const [expr, expected] of times) {
    it(`${expr} → ${JSON.stringify(expected)}`, () => {
      expect(value(expr)).toEqual(expected);
    });
  }

  it('reads "now" from the supplied clock', () => {
    const clock = () => new Date('2024-05-06T07:08:09.500Z');
    expect(value('time_now_utc()', null, { clock })).toBe('2024-05-06T07:08:09Z');
    expect(value('time_now()', null, { clock })).toBe('2024-05-06T07:08:09Z');
    expect(value("time_since('', '2024-05-06T07:00:00Z', '')", null, { clock })).toBe('8m9.5s');
  });

  it('time_now takes any number of arguments, like every zero-argument function upstream', () => {
    expect(run('time_now(`1`)', null, { clock: () => new Date(0) })).toEqual({ ok: true, value: '1970-01-01T00:00:00Z' });
  });

  for (const expr of ["time_utc('')", "time_utc('2021-13-01T00:00:00Z')", "time_add('2021-01-02T15:04:05Z', '3x')", "time_before(`1`, '2021-01-02T15:04:05Z')"]) {
    it(`${expr} fails`, () => {
      expectError(expr);
    });
  }

  it("reports Go's duration errors", () => {
    expect(expectError("time_add('2021-01-02T15:04:05Z', '3x')").message).toBe('time: unknown unit "x" in duration "3x"');
    expect(expectError("time_truncate('2021-01-02T15:04:05Z', '')").message).toBe('time: invalid duration ""');
  });
});
