/**
 * The package index's keys (shared/service/watch/watch-index.ts): a component is found under its
 * purl's package key, or, without a usable purl, under its name and CPE products; a corpus package
 * key concerns itself and its short name.
 */
import { describe, expect, it } from '@jest/globals';
import { packageKey } from '../../shared/service/matching/component-identity';
import type { SbomComponent } from '../../shared/service/sbom/model';
import {
  WATCH_SHARDS,
  watchIndexItems,
  watchKeysForPackage,
  watchKeysOf,
  watchShard,
} from '../../shared/service/watch/watch-index';

const component = (fields: Partial<SbomComponent> & { name: string }): SbomComponent => ({
  ref: fields.name,
  cpes: [],
  licenses: [],
  ...fields,
});

describe('watchKeysOf', () => {
  it('keys a purl component by its package key, normalised as the matcher does', () => {
    expect(watchKeysOf(component({ name: 'Django', purl: 'pkg:pypi/Django_Rest@3.0' }))).toEqual([
      packageKey('PyPI', 'django-rest'),
    ]);
    expect(
      watchKeysOf(component({ name: 'log4j-core', purl: 'pkg:maven/org.apache.logging.log4j/log4j-core@2.14.1' })),
    ).toEqual([packageKey('Maven', 'org.apache.logging.log4j:log4j-core')]);
  });

  it('keys a distro package by its source package, as advisories name it', () => {
    expect(
      watchKeysOf(
        component({ name: 'libssl3', purl: 'pkg:deb/debian/libssl3@3.0.11-1?upstream=openssl&distro=debian-12' }),
      ),
    ).toEqual([packageKey('Debian', 'openssl')]);
  });

  it('keys a component without a usable purl by its short name and its CPE products in both spellings', () => {
    expect(watchKeysOf(component({ name: 'OpenSSL', version: '3.0.1' }))).toEqual(['name:openssl']);
    expect(watchKeysOf(component({ name: 'thing', purl: 'pkg:generic/thing@1.0' }))).toEqual(['name:thing']);
    expect(
      watchKeysOf(component({ name: 'Spring Web', cpes: ['cpe:2.3:a:vmware:spring_framework:5.3.0:*:*:*:*:*:*:*'] })),
    ).toEqual(['name:spring web', 'name:spring_framework', 'name:spring-framework']);
    expect(watchKeysOf(component({ name: 'org.example:widget' }))).toEqual(['name:widget']);
  });

  it('gives a nameless component without purl or CPE no key', () => {
    expect(watchKeysOf(component({ name: '  ' }))).toEqual([]);
  });
});

describe('watchKeysForPackage', () => {
  it('is the key itself and the name key of its short name', () => {
    expect(watchKeysForPackage(packageKey('npm', '@angular/core'))).toEqual([
      packageKey('npm', '@angular/core'),
      'name:core',
    ]);
    expect(watchKeysForPackage(packageKey('Maven', 'org.apache.logging.log4j:log4j-core'))).toEqual([
      packageKey('Maven', 'org.apache.logging.log4j:log4j-core'),
      'name:log4j-core',
    ]);
  });

  it('meets the keys of the components it concerns', () => {
    const key = packageKey('npm', 'lodash');
    const concerned = watchKeysForPackage(key);
    expect(concerned).toEqual(
      expect.arrayContaining(watchKeysOf(component({ name: 'lodash', purl: 'pkg:npm/lodash@4.17.20' }))),
    );
    expect(concerned).toEqual(expect.arrayContaining(watchKeysOf(component({ name: 'Lodash', version: '4.17.20' }))));
    expect(concerned).not.toEqual(
      expect.arrayContaining(watchKeysOf(component({ name: 'lodash.merge', version: '1' }))),
    );
  });
});

describe('watchIndexItems', () => {
  it('writes one entry per key of an SBOM, in one shard, team id first in the sort key, and marks each key present', () => {
    const sbom = { teamId: 'team-1', productId: 'p', releaseId: 'r', id: 'sbom-1' };
    const items = watchIndexItems(sbom, [
      component({ name: 'lodash', version: '4.17.20', purl: 'pkg:npm/lodash@4.17.20' }),
      component({ name: 'lodash', version: '4.17.21', purl: 'pkg:npm/lodash@4.17.21', ref: 'b' }),
      component({ name: 'lodash', version: '4.17.21', purl: 'pkg:npm/lodash@4.17.21', ref: 'c' }),
      component({ name: 'zlib', version: '1.3' }),
    ]);
    const entries = items.filter((item) => item.entity === 'WatchEntry');
    expect(entries).toHaveLength(2);
    expect(items.filter((item) => item.entity === 'WatchAny')).toEqual([
      { pk: 'WATCH#ANY', sk: 'ANY', entity: 'WatchAny' },
    ]);
    const shard = watchShard('sbom-1');
    expect(items.filter((item) => item.entity === 'WatchKey')).toEqual([
      {
        pk: 'WATCH#KEY#npm#lodash',
        sk: `SHARD#${shard}`,
        entity: 'WatchKey',
        indexKey: packageKey('npm', 'lodash'),
        shard,
      },
      { pk: 'WATCH#KEY#name:zlib', sk: `SHARD#${shard}`, entity: 'WatchKey', indexKey: 'name:zlib', shard },
    ]);
    expect(shard).toBeGreaterThanOrEqual(0);
    expect(shard).toBeLessThan(WATCH_SHARDS);
    const lodash = entries.find((item) => item.indexKey === packageKey('npm', 'lodash'))!;
    expect(lodash).toMatchObject({
      pk: `WATCH#PKG#npm#lodash#${shard}`,
      sk: 'team-1#sbom-1',
      versions: ['4.17.20', '4.17.21'],
      purls: ['pkg:npm/lodash@4.17.20', 'pkg:npm/lodash@4.17.21'],
      names: ['lodash'],
    });
  });

  it('spreads SBOMs over the shards', () => {
    const used = new Set(Array.from({ length: 200 }, (_, index) => watchShard(`sbom-${index}`)));
    expect(used.size).toBe(WATCH_SHARDS);
  });

  it('bounds an entry however many versions a hostile SBOM lists', () => {
    const components = Array.from({ length: 5000 }, (_, index) =>
      component({ name: 'x', version: `${index}.${'9'.repeat(50)}`, ref: String(index) }),
    );
    const item = watchIndexItems({ teamId: 't', productId: 'p', releaseId: 'r', id: 's' }, components).find(
      (each) => each.entity === 'WatchEntry',
    );
    expect(Buffer.byteLength(JSON.stringify(item))).toBeLessThan(64 * 1024);
  });
});
