// Which addresses a webhook may reach, as classified (pure: nothing here resolves or connects).
import { describe, expect, it } from 'vitest';
import { classifyAddress, isSelfAddress } from '../../server/outbox/address-policy.js';

describe('classifyAddress', () => {
  it.each([
    ['127.0.0.1', 'loopback'],
    ['127.0.0.2', 'loopback'],
    ['127.255.255.254', 'loopback'],
    ['::1', 'loopback'],
    ['::ffff:127.0.0.1', 'loopback'],
    ['::ffff:7f00:1', 'loopback'],
    ['10.0.0.1', 'private'],
    ['10.255.255.255', 'private'],
    ['172.16.0.1', 'private'],
    ['172.31.255.254', 'private'],
    ['192.168.1.1', 'private'],
    ['::ffff:10.0.0.1', 'private'],
    ['100.64.0.1', 'carrierGradeNat'],
    ['100.127.255.254', 'carrierGradeNat'],
    ['fc00::1', 'uniqueLocal'],
    ['fd00::254', 'uniqueLocal'],
    ['fd00:ec3::254', 'uniqueLocal'],
    ['100.100.100.199', 'carrierGradeNat'],
  ])('%s is %s: private, deliverable only with WEBHOOK_ALLOW_PRIVATE', (address, range) => {
    expect(classifyAddress(address)).toMatchObject({ class: 'private', range });
  });

  it.each([
    ['169.254.169.254', 'linkLocal'],
    ['169.254.0.1', 'linkLocal'],
    ['::ffff:169.254.169.254', 'linkLocal'],
    ['fe80::1', 'linkLocal'],
    ['febf::1', 'linkLocal'],
    ['0.0.0.0', 'unspecified'],
    ['0.1.2.3', 'unspecified'],
    ['::', 'unspecified'],
    ['::ffff:0.0.0.0', 'unspecified'],
    ['224.0.0.1', 'multicast'],
    ['239.255.255.250', 'multicast'],
    ['ff02::1', 'multicast'],
    ['255.255.255.255', 'broadcast'],
    ['192.0.0.1', 'reserved'],
    ['192.0.2.1', 'reserved'],
    ['198.51.100.1', 'reserved'],
    ['203.0.113.1', 'reserved'],
    ['198.18.0.1', 'reserved'],
    ['198.19.255.254', 'reserved'],
    ['240.0.0.1', 'reserved'],
    ['2001:db8::1', 'reserved'],
    ['3fff::1', 'reserved'],
    ['2001:2::1', 'benchmarking'],
    // IPv4-compatible (deprecated): what the URL parser makes of [::127.0.0.1].
    ['::7f00:1', 'reserved'],
    ['::a00:1', 'reserved'],
    ['100::1', 'discard'],
    ['fec0::1', 'deprecatedSiteLocal'],
    ['2002:7f00:1::', '6to4'],
    ['2001::1', 'teredo'],
    ['64:ff9b:1::a00:1', 'rfc6052'],
    ['::ffff:0:7f00:1', 'rfc6145'],
    ['not-an-address', 'invalid'],
  ])('%s is %s: never deliverable', (address, range) => {
    expect(classifyAddress(address)).toMatchObject({ class: 'forbidden', range });
  });

  // Metadata services outside link-local: WEBHOOK_ALLOW_PRIVATE opens the ranges they sit in (or they are public).
  it.each([
    ['fd00:ec2::254', 'AWS'],
    ['fd00:ec2::23', 'AWS'],
    ['fd00:ec2::123', 'AWS'],
    ['FD00:EC2:0::254', 'AWS'],
    ['fd00:ec2:ffff::1', 'AWS'],
    ['fd20:ce::254', 'Google Cloud'],
    ['fd00:c1::a9fe:a9fe', 'Oracle Cloud'],
    ['fd00:42::42', 'Scaleway'],
    ['100.100.100.200', 'Alibaba Cloud'],
    ['::ffff:100.100.100.200', 'Alibaba Cloud'],
    ['64:ff9b::6464:64c8', 'Alibaba Cloud'],
    ['168.63.129.16', 'Azure WireServer'],
  ])('%s is cloud metadata (%s): never deliverable', (address, owner) => {
    expect(classifyAddress(address)).toMatchObject({
      class: 'forbidden',
      range: 'cloudMetadata',
      description: expect.stringContaining(`cloud metadata (${owner})`),
    });
  });

  it("refuses Oracle's older metadata address as reserved", () => {
    expect(classifyAddress('192.0.0.192')).toMatchObject({ class: 'forbidden', range: 'reserved' });
  });

  it('reads the address inside NAT64 and IPv4-mapped forms', () => {
    expect(classifyAddress('64:ff9b::7f00:1')).toMatchObject({ class: 'private', range: 'loopback', address: '127.0.0.1' });
    expect(classifyAddress('64:ff9b::a9fe:a9fe')).toMatchObject({ class: 'forbidden', range: 'linkLocal', address: '169.254.169.254' });
    expect(classifyAddress('64:ff9b::5db8:d70e')).toMatchObject({ class: 'public', address: '93.184.215.14' });
    expect(classifyAddress('::ffff:5db8:d70e')).toMatchObject({ class: 'public', address: '93.184.215.14' });
  });

  it.each([
    '93.184.215.14',
    '8.8.8.8',
    '1.1.1.1',
    '172.15.255.255',
    '172.32.0.1',
    '100.63.255.255',
    '100.128.0.1',
    '2606:4700:4700::1111',
    '2a00:1450:4001::1',
  ])('%s is public', (address) => {
    expect(classifyAddress(address).class).toBe('public');
  });

  it('describes the range in words a merchant can act on', () => {
    expect(classifyAddress('169.254.169.254').description).toMatch(/link-local.*metadata/);
    expect(classifyAddress('::ffff:127.0.0.1').description).toBe('loopback, IPv4-mapped');
  });
});

describe('isSelfAddress', () => {
  it('is true for loopback and unspecified addresses in every form, false otherwise', () => {
    for (const address of ['127.0.0.1', '127.0.0.2', '::1', '::ffff:127.0.0.1', '0.0.0.0', '::', '64:ff9b::7f00:1'])
      expect(isSelfAddress(address), address).toBe(true);
    for (const address of ['10.0.0.1', '93.184.215.14', 'fd00::1']) expect(isSelfAddress(address), address).toBe(false);
  });
});
