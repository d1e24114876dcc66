/** Kubernetes name rules (apimachinery pkg/util/validation). */

/** IsDNS1123Subdomain: the name of a custom resource or an admissionregistration object. */
export const DNS1123_SUBDOMAIN = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$/;
