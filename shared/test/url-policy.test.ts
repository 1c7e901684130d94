import { expect } from 'chai';
import ipaddr from 'ipaddr.js';
import { blockedReason } from '../src/webhooks/blocked-ranges';
import { UrlPolicy, type Resolver } from '../src/webhooks/url-policy';

const strict = { requireHttps: true, allowPrivateNetworks: false, allowlist: [] };

function fakeDns(table: Record<string, string[]>): Resolver {
  return async (hostname) => {
    const addresses = table[hostname];
    if (!addresses) throw new Error('ENOTFOUND');
    return addresses.map((address) => ({ address, family: address.includes(':') ? 6 : 4 }));
  };
}

describe('SSRF ranges', () => {
  const blocked = [
    '0.0.0.0',
    '0.1.2.3',
    '127.0.0.1',
    '127.255.0.9',
    '10.0.0.1',
    '172.16.5.4',
    '172.31.255.255',
    '192.168.1.1',
    '169.254.169.254',
    '100.64.0.1',
    '100.127.255.254',
    '224.0.0.1',
    '239.1.1.1',
    '255.255.255.255',
    '240.0.0.1',
    '198.18.0.1',
    '198.19.255.1',
    '192.0.2.10',
    '198.51.100.7',
    '203.0.113.9',
    '192.0.0.8',
    '::',
    '::1',
    'fe80::1',
    'fc00::1',
    'fd12:3456::1',
    'ff02::1',
    '::ffff:127.0.0.1',
    '::ffff:10.1.2.3',
    '::ffff:169.254.169.254',
    '64:ff9b::a00:1',
    '64:ff9b::808:808',
    '2002:7f00:1::1',
    '2001:0:4136:e378::1',
    '100::1',
    '2001:db8::1',
    '::7f00:1',
  ];
  for (const address of blocked) {
    it(`blocks ${address}`, () => {
      expect(blockedReason(ipaddr.parse(address)), address).to.be.a('string');
    });
  }

  const allowed = [
    '93.184.216.34',
    '8.8.8.8',
    '172.32.0.1',
    '100.128.0.1',
    '2606:4700::1111',
    '::ffff:8.8.8.8',
    '2a00:1450:4001::200e',
  ];
  for (const address of allowed) {
    it(`allows public ${address}`, () => {
      expect(blockedReason(ipaddr.parse(address)), address).to.equal(undefined);
    });
  }
});

describe('UrlPolicy', () => {
  const policy = new UrlPolicy(
    strict,
    fakeDns({
      localhost: ['127.0.0.1', '::1'],
      'hooks.example.com': ['93.184.216.34'],
      'mixed.example.com': ['93.184.216.34', '10.0.0.5'],
    }),
  );

  const refused: Array<[string, RegExp]> = [
    ['https://127.0.0.1/hook', /loopback/],
    ['https://10.0.0.1/hook', /private/],
    ['https://169.254.169.254/latest/meta-data', /link-local/],
    ['https://[::1]/hook', /loopback/],
    ['https://[::ffff:127.0.0.1]/hook', /IPv4-mapped loopback/],
    ['https://localhost/hook', /127\.0\.0\.1 of localhost/],
    ['https://2130706433/hook', /loopback/],
    ['https://0x7f.1/hook', /loopback/],
    ['https://mixed.example.com/hook', /10\.0\.0\.5/],
    ['http://hooks.example.com/hook', /https/],
    ['ftp://hooks.example.com/hook', /scheme/],
    ['https://user:pw@hooks.example.com/hook', /credentials/],
    ['not a url', /valid absolute URL/],
    ['https://nowhere.example.com/hook', /does not resolve/],
  ];
  for (const [url, reason] of refused) {
    it(`refuses ${url}`, async () => {
      const check = await policy.check(url);
      expect(check.allowed).to.equal(false);
      if (!check.allowed) expect(check.reason).to.match(reason);
    });
  }

  it('allows a public https URL and returns the checked addresses', async () => {
    const check = await policy.check('https://hooks.example.com/hook');
    expect(check.allowed).to.equal(true);
    if (check.allowed)
      expect(check.addresses).to.deep.equal([{ address: '93.184.216.34', family: 4 }]);
  });

  it('allows private addresses when private networks are allowed, and http when https is not required', async () => {
    const open = new UrlPolicy(
      { requireHttps: false, allowPrivateNetworks: true, allowlist: [] },
      fakeDns({ localhost: ['127.0.0.1'] }),
    );
    expect((await open.check('http://localhost:8080/hook')).allowed).to.equal(true);
    expect((await open.check('http://[::1]:8080/hook')).allowed).to.equal(true);
  });

  it('allows allowlisted CIDRs and hostnames only', async () => {
    const listed = new UrlPolicy(
      { ...strict, allowlist: ['10.1.0.0/16', '*.internal.example', '192.168.7.7'] },
      fakeDns({ 'a.internal.example': ['10.9.9.9'], 'other.example': ['10.9.9.9'] }),
    );
    expect((await listed.check('https://10.1.2.3/x')).allowed).to.equal(true);
    expect((await listed.check('https://192.168.7.7/x')).allowed).to.equal(true);
    expect((await listed.check('https://[::ffff:10.1.2.3]/x')).allowed).to.equal(true);
    expect((await listed.check('https://a.internal.example/x')).allowed).to.equal(true);
    expect((await listed.check('https://10.2.0.1/x')).allowed).to.equal(false);
    expect((await listed.check('https://other.example/x')).allowed).to.equal(false);
  });

  it('uses the real resolver for localhost', async () => {
    const real = new UrlPolicy(strict);
    const check = await real.check('https://localhost/hook');
    expect(check.allowed).to.equal(false);
  });
});
