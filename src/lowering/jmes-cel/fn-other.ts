/** Kyverno functions with no CEL form here: why, per environment. */
import { both, cannot, yet, type FnDef } from './table.js';

const TIME = yet('Go time layouts and RFC 3339 text need a formatter; CEL timestamp()/duration() parse RFC 3339 but print differently');

export const OTHER: FnDef[] = [
  { name: 'time_now', ...both(cannot('non-deterministic (the current time): the CEL would not give what Kyverno gave')) },
  { name: 'time_now_utc', ...both(cannot('non-deterministic (the current time): the CEL would not give what Kyverno gave')) },
  { name: 'time_since', ...both(yet('a Go time layout and the duration text; with an empty end it reads the clock (non-deterministic)')) },
  { name: 'time_to_cron', ...both(TIME) },
  { name: 'time_add', ...both(TIME) },
  { name: 'time_parse', ...both(TIME) },
  { name: 'time_utc', ...both(TIME) },
  { name: 'time_diff', ...both(yet('Go Duration.String() text ("1h0m0s"); CEL prints durations as seconds ("3600s")')) },
  { name: 'time_before', ...both(yet('RFC 3339 comparison through timestamp(); not done yet')) },
  { name: 'time_after', ...both(yet('RFC 3339 comparison through timestamp(); not done yet')) },
  { name: 'time_between', ...both(yet('RFC 3339 comparison through timestamp(); not done yet')) },
  { name: 'time_truncate', ...both(TIME) },
  { name: 'semver_compare', ...both(yet('blang/semver ranges (">1.2.3 <2.0.0"); Kubernetes semver() compares versions, not ranges')) },
  { name: 'random', ...both(cannot('non-deterministic (a random string for a regex)')) },
  {
    name: 'x509_decode',
    map: cannot('the Kubernetes CEL environment has no X.509 decoder'),
    // kyverno/sdk extensions/cel/libs/x509: `x509.decode(string) dyn`, the same JSON of the parsed certificate or CSR.
    mpol: yet("Kyverno's CEL x509.decode() (library kyverno.x509) is not implemented by transmute's CEL engine, so the translation could not be proven"),
  },
  { name: 'image_normalize', ...both(yet("depends on Kyverno's configuration (default registry); the parsing is expressible with strings functions")) },
  { name: 'is_external_url', ...both(cannot('needs DNS lookups (network access)')) },
];
