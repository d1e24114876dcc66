/**
 * image_normalize (kyverno pkg/utils/image infos.go GetImageInfo + String) and is_external_url.
 * Image references are parsed with the distribution/reference grammar after Kyverno prepends the
 * default registry; is_external_url needs DNS, which an offline run only has through
 * JmesContext.resolveHost (IP literals are classified without it).
 */
import { isIP } from '../../util/ip.js';
import { failure, JmesFailure } from '../types.js';
import { expectString, kyvernoError, type Env, type FunctionSpec } from './registry.js';

const DOMAIN_COMPONENT = '(?:[a-zA-Z0-9]|[a-zA-Z0-9][a-zA-Z0-9-]*[a-zA-Z0-9])';
const DOMAIN = `(?:${DOMAIN_COMPONENT}(?:\\.${DOMAIN_COMPONENT})*|\\[[a-fA-F0-9:]+\\])(?::[0-9]+)?`;
const PATH_COMPONENT = '[a-z0-9]+(?:(?:[._]|__|[-]+)[a-z0-9]+)*';
const TAG = '[\\w][\\w.-]{0,127}';
const DIGEST = '[A-Za-z][A-Za-z0-9]*(?:[-_+.][A-Za-z][A-Za-z0-9]*)*:[0-9a-fA-F]{32,}';
const REFERENCE = new RegExp(`^(?:(${DOMAIN})/)?(${PATH_COMPONENT}(?:/${PATH_COMPONENT})*)(?::(${TAG}))?(?:@(${DIGEST}))?$`);

export interface ImageInfo {
  registry: string;
  path: string;
  name: string;
  tag: string;
  digest: string;
}

export function imageInfoString(i: ImageInfo): string {
  const image = i.registry !== '' ? `${i.registry}/${i.path}` : i.path;
  return i.digest !== '' ? `${image}@${i.digest}` : `${image}:${i.tag}`;
}

/** infos.go addDefaultRegistry. */
function addDefaultRegistry(name: string, registry: string): string {
  const i = name.indexOf('/');
  if (i === -1) return `${registry}/${name}`;
  const first = name.slice(0, i);
  if (!/[.:]/.test(first) && first !== 'localhost' && first.toLowerCase() === first) return `${registry}/${name}`;
  return name;
}

export function getImageInfo(image: string, env: Env): ImageInfo | string {
  const registry = env.ctx.defaultRegistry ?? 'docker.io';
  const mutate = env.ctx.enableDefaultRegistryMutation ?? true;
  const full = addDefaultRegistry(image, registry);
  const m = REFERENCE.exec(full);
  let reason: string | undefined;
  if (!m) reason = /[A-Z]/.test(full) && REFERENCE.test(full.toLowerCase()) ? 'repository name must be lowercase' : 'invalid reference format';
  else if ((m[1] ? m[1].length + 1 : 0) + m[2]!.length > 255) reason = 'repository name must not be more than 255 characters';
  if (reason !== undefined || !m) {
    return `bad image: ${full}, defaultRegistry: ${registry}, enableDefaultRegistryMutation: ${mutate}: ${reason}`;
  }
  const path = m[2]!;
  const digest = m[4] ?? '';
  let tag = m[3] ?? '';
  if (digest === '' && tag === '') tag = 'latest';
  const reg = full !== image && !mutate ? '' : (m[1] ?? '');
  return { registry: reg, path, name: path.slice(path.lastIndexOf('/') + 1), tag, digest };
}

function isInternalIp(ip: string): boolean {
  if (isIP(ip) === 4) {
    const [a, b] = ip.split('.').map(Number) as [number, number];
    return a === 10 || a === 127 || a === 0 || (a === 172 && b >= 16 && b <= 31) || (a === 192 && b === 168) || (a === 169 && b === 254);
  }
  const v6 = ip.toLowerCase();
  return v6 === '::1' || v6 === '::' || v6.startsWith('fe80:') || v6.startsWith('fc') || v6.startsWith('fd');
}

export const IMAGE_FUNCTIONS: FunctionSpec[] = [
  {
    name: 'image_normalize',
    args: [['string']],
    handler: (args, env) => {
      const image = expectString('image_normalize', args, 0);
      if (image instanceof JmesFailure) return image;
      const info = getImageInfo(image, env);
      return typeof info === 'string' ? kyvernoError('image_normalize', info) : imageInfoString(info);
    },
  },
  {
    name: 'is_external_url',
    args: [['string']],
    handler: (args, env) => {
      const s = expectString('is_external_url', args, 0);
      if (s instanceof JmesFailure) return s;
      let host: string;
      try {
        host = new URL(s).hostname.replace(/^\[|\]$/g, '');
      } catch (e) {
        return kyvernoError('is_external_url', e instanceof Error ? e.message : String(e));
      }
      const ips = isIP(host) ? [host] : env.ctx.resolveHost?.(host);
      if (ips === undefined) {
        return failure('Unsupported', `JMESPath function 'is_external_url': DNS lookup of ${JSON.stringify(host)} is not available offline; supply resolved addresses`);
      }
      return ips.length > 0 && !ips.some(isInternalIp);
    },
  },
];
