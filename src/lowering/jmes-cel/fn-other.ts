/** Kyverno functions with no CEL form here: why, per environment. */
import { bind, cond, fail, tfrag } from './frag.js';
import { assume, both, cannot, yet, type FnDef } from './table.js';
import { T } from './types.js';

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
    // kyverno/sdk extensions/cel/libs/x509 (impl.go): `x509.decode(string) dyn` decodes as jpX509Decode does,
    // and a CSR is the same JSON; a certificate goes through its own CertificateOutput struct instead.
    mpol: assume(
      'x509.decode(s): the same parse and errors; a CERTIFICATE REQUEST decodes to the same JSON',
      "a CERTIFICATE: Kyverno's CEL renders fewer fields (no Subject, Version, SignatureAlgorithm, SubjectKeyId, URIs, ...), the serial number as an int64 and the times in whole seconds, so the CEL fails on a certificate",
    ),
    emit: ([s], { cx }) => {
      cx.notes.add("x509_decode() of a certificate fails in the CEL: Kyverno's x509.decode() renders certificates with fewer fields than x509_decode()");
      const decoded = tfrag(`x509.decode(${s!.cel})`, T.map(T.dyn), { err: true, atom: true });
      return bind(decoded, cx.names, (v) => cond(`has(${v.cel}.RawTBSCertificateRequest)`, v, fail("x509_decode of a CERTIFICATE: Kyverno's CEL x509.decode() renders fewer fields")));
    },
  },
  { name: 'image_normalize', ...both(yet("depends on Kyverno's configuration (default registry); the parsing is expressible with strings functions")) },
  { name: 'is_external_url', ...both(cannot('needs DNS lookups (network access)')) },
];
