// The target forms shared by the address-check and endpoint tests, and a fake DNS for them.
import type { Resolver } from '../../services/outbound/target.js';

/** Like the suite's testResolver: names listed here resolve as listed, anything else does not resolve. */
export const DNS: Record<string, string[]> = {
  'hooks.public.example': ['93.184.215.14'],
  'v6.public.example': ['2606:2800:21f:cb07:6820:80da:af6b:8b2c'],
  'mapped-public.example': ['::ffff:93.184.215.14'],
  'loopback.example': ['127.0.0.1'],
  'loopback2.example': ['127.0.0.2'],
  'ten.example': ['10.1.2.3'],
  'seventeen.example': ['172.16.5.4'],
  'thirtyone.example': ['172.31.255.254'],
  'home-router.example': ['192.168.0.10'],
  'metadata.example': ['169.254.169.254'],
  'link-local.example': ['169.254.10.20'],
  'cgnat.example': ['100.64.0.1'],
  'cgnat-top.example': ['100.127.255.254'],
  'zero.example': ['0.0.0.0'],
  'this-network.example': ['0.1.2.3'],
  'multicast.example': ['224.0.0.251'],
  'ssdp.example': ['239.255.255.250'],
  'class-e.example': ['240.0.0.1'],
  'broadcast.example': ['255.255.255.255'],
  'benchmark.example': ['198.18.0.1'],
  'benchmark-top.example': ['198.19.255.1'],
  'documentation.example': ['192.0.2.10'],
  'v6-loopback.example': ['::1'],
  'v6-unspecified.example': ['::'],
  'v6-link-local.example': ['fe80::1'],
  'v6-link-local-top.example': ['febf::ff'],
  'ula.example': ['fc00::1'],
  'ula-fd.example': ['fd12:3456::1'],
  'aws-metadata-v6.example': ['fd00:ec2::254'],
  'mapped.example': ['::ffff:10.0.0.1'],
  'mapped-loopback.example': ['::ffff:127.0.0.1'],
  'mapped-metadata.example': ['::ffff:169.254.169.254'],
  'nat64.example': ['64:ff9b::a00:1'],
  'nat64-public.example': ['64:ff9b::808:808'],
  'sixtofour.example': ['2002:a00:1::1'],
  'teredo.example': ['2001::1'],
  'teredo-full.example': ['2001:0:4136:e378:8000:63bf:3fff:fdd2'],
  'v6-multicast.example': ['ff02::1'],
  'v4-compatible.example': ['::a00:1'],
  'v6-documentation.example': ['2001:db8::1'],
  'site-local.example': ['fec0::1'],
  'mixed.example': ['93.184.215.14', '192.168.1.20'],
  'mixed-reversed.example': ['10.0.0.9', '93.184.215.14'],
  'mixed-v6.example': ['2606:2800:21f:cb07:6820:80da:af6b:8b2c', 'fd00::1'],
  'empty.example': [],
};
export const resolver: Resolver = async (host) => {
  const found = DNS[host.toLowerCase()];
  if (!found) throw Object.assign(new Error(`fake DNS: ${host} does not resolve`), { code: 'ENOTFOUND' });
  return found;
};

/** Refused by the URL's shape alone, whatever the policy: the resolver is never asked. */
export const REFUSED_BEFORE_DNS: [string, RegExp][] = [
  ['http://hooks.public.example/h', /https/],
  ['ftp://hooks.public.example/h', /https/],
  ['file:///etc/passwd', /https/],
  ['javascript:alert(1)', /https/],
  ['hooks.public.example/h', /absolute URL/],
  ['https://', /absolute URL/],
  ['https://user:pw@hooks.public.example/h', /credentials/],
  ['https://user@hooks.public.example/h', /credentials/],
  ['https://:pw@hooks.public.example/h', /credentials/],
  ['https://10.0.0.1/h', /not an IP address/],
  ['https://8.8.8.8/h', /not an IP address/],
  ['https://93.184.215.14/h', /not an IP address/],
  ['https://[2606:4700:4700::1111]/h', /not an IP address/],
  ['https://[::1]/h', /not an IP address/],
  ['https://[::ffff:127.0.0.1]/h', /not an IP address/],
  ['https://[fe80::1]/h', /not an IP address/],
  ['https://169.254.169.254/latest/meta-data/', /not an IP address/],
  ['https://0.0.0.0/h', /not an IP address/],
  ['https://localhost./h', /not a public name/],
  ['https://api.localhost/h', /not a public name/],
  ['https://printer.local/h', /not a public name/],
  ['https://db.internal/h', /not a public name/],
  ['https://db.internal./h', /not a public name/],
  ['https://metadata.google.internal/computeMetadata/v1/', /not a public name/],
  ['https://nas.lan/h', /not a public name/],
  ['https://1.0.0.10.in-addr.arpa/h', /not a public name/],
  ['https://intranet/h', /not a public name/],
];

/** Forms of 127.0.0.1 and localhost: refused in production; with ALLOW_LOOPBACK_TARGETS they are the loopback target (below). */
export const LOOPBACK_FORMS: [string, RegExp][] = [
  ['https://127.0.0.1/h', /not an IP address/],
  ['https://2130706433/h', /not an IP address/],
  ['https://0177.0.0.1/h', /not an IP address/],
  ['https://0x7f.0.0.1/h', /not an IP address/],
  ['https://0x7f000001/h', /not an IP address/],
  ['https://127.1/h', /not an IP address/],
  ['https://localhost/h', /not a public name/],
];

/** Names whose every address must be public: each of these resolves to at least one that is not. */
export const REFUSED_BY_ADDRESS = Object.keys(DNS).filter((name) => !/public/.test(name) && name !== 'empty.example');
