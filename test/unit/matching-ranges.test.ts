import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from '@jest/globals';
import type { Advisory } from '../../shared/service/corpus/parse/advisory';
import { parseOsvAdvisory } from '../../shared/service/corpus/parse/osv';
import { splitEcosystem, type Ecosystem } from '../../shared/service/matching/ecosystems';
import { evaluateAffected, evaluateRange } from '../../shared/service/matching/osv-range';
import { normalisePackageName } from '../../shared/service/matching/package-name';

const cache = new Map<string, Advisory>();
function advisory(id: string): Advisory {
  let found = cache.get(id);
  if (!found) {
    found = parseOsvAdvisory(
      JSON.parse(readFileSync(fileURLToPath(new URL(`../fixtures/corpus/osv/${id}.json`, import.meta.url)), 'utf8')),
    );
    cache.set(id, found);
  }
  return found;
}

/** IsVulnerable(pkg, v, osv) of the OSV schema, over every affected entry of the package. */
function evaluate(ecosystem: Ecosystem, name: string, version: string, id: string) {
  const entries = advisory(id).affected.filter(
    (a) =>
      splitEcosystem(a.ecosystem)?.ecosystem === ecosystem &&
      normalisePackageName(ecosystem, a.name) === normalisePackageName(ecosystem, name),
  );
  if (entries.length === 0) throw new Error(`${id} has no ${ecosystem} ${name}`);
  const results = entries.map((entry) => evaluateAffected(version, entry, ecosystem));
  return results.includes('affected') ? 'affected' : results.includes('unknown') ? 'unknown' : 'not_affected';
}

type Case = [Ecosystem, string, string, string, boolean, string];

/**
 * [ecosystem, package, version, advisory, affected?, why]. Expectations come from
 * the advisory's events read with the OSV schema semantics (introduced inclusive,
 * fixed exclusive, last_affected inclusive, "0" below everything) and the
 * ecosystem's documented ordering, not from running the matcher.
 */
const cases: Case[] = [
  // GHSA-rv95-896h-c2vc express: [0, 4.19.2) and [5.0.0-alpha.1, 5.0.0-beta.3)
  ['npm', 'express', '4.19.1', 'GHSA-rv95-896h-c2vc', true, 'below the fix'],
  ['npm', 'express', '4.19.2', 'GHSA-rv95-896h-c2vc', false, 'fixed is exclusive'],
  ['npm', 'express', '5.0.0-alpha.0', 'GHSA-rv95-896h-c2vc', false, 'pre-release below the second introduced'],
  ['npm', 'express', '5.0.0-alpha.1', 'GHSA-rv95-896h-c2vc', true, 'introduced is inclusive, pre-release'],
  ['npm', 'express', '5.0.0-alpha.8', 'GHSA-rv95-896h-c2vc', true, 'alpha.8 > alpha.1 numerically'],
  ['npm', 'express', '5.0.0-beta.3', 'GHSA-rv95-896h-c2vc', false, 'pre-release fix'],
  ['npm', 'express', '5.0.0', 'GHSA-rv95-896h-c2vc', false, 'release after the pre-release fix'],
  // GHSA-hrpp-h998-j3pp qs: nine pairs, listed newest first
  ['npm', 'qs', '6.10.0', 'GHSA-hrpp-h998-j3pp', true, 'introduced of the newest pair'],
  ['npm', 'qs', '6.10.3', 'GHSA-hrpp-h998-j3pp', false, 'fix of the newest pair'],
  ['npm', 'qs', '6.9.6', 'GHSA-hrpp-h998-j3pp', true, 'inside a middle pair'],
  ['npm', 'qs', '6.9.7', 'GHSA-hrpp-h998-j3pp', false, 'fix of a middle pair'],
  ['npm', 'qs', '6.3.0', 'GHSA-hrpp-h998-j3pp', true, 'introduced of a middle pair'],
  ['npm', 'qs', '6.3.3', 'GHSA-hrpp-h998-j3pp', false, 'fix of a middle pair'],
  ['npm', 'qs', '6.2.3', 'GHSA-hrpp-h998-j3pp', true, 'below the oldest fix'],
  ['npm', 'qs', '6.2.4', 'GHSA-hrpp-h998-j3pp', false, 'oldest fix'],
  ['npm', 'qs', '6.11.0', 'GHSA-hrpp-h998-j3pp', false, 'after every pair'],
  // GHSA-c2qf-rxjj-qqgw semver: [0, 5.7.2), [6.0.0, 6.3.1), [7.0.0, 7.5.2)
  ['npm', 'semver', '5.1.0', 'GHSA-c2qf-rxjj-qqgw', true, 'below the first fix'],
  ['npm', 'semver', '5.7.2', 'GHSA-c2qf-rxjj-qqgw', false, 'first fix'],
  ['npm', 'semver', '6.0.0', 'GHSA-c2qf-rxjj-qqgw', true, 'second introduced'],
  ['npm', 'semver', '6.3.1', 'GHSA-c2qf-rxjj-qqgw', false, 'second fix'],
  ['npm', 'semver', '7.5.1', 'GHSA-c2qf-rxjj-qqgw', true, 'below the third fix'],
  ['npm', 'semver', '7.5.2', 'GHSA-c2qf-rxjj-qqgw', false, 'third fix'],
  // GHSA-9c47-m6qq-7p4h json5: [0, 1.0.2), [2.0.0, 2.2.2)
  ['npm', 'json5', '1.0.1', 'GHSA-9c47-m6qq-7p4h', true, 'below the first fix'],
  ['npm', 'json5', '1.0.2', 'GHSA-9c47-m6qq-7p4h', false, 'first fix'],
  ['npm', 'json5', '1.5.0', 'GHSA-9c47-m6qq-7p4h', false, 'between the pairs'],
  ['npm', 'json5', '2.0.0', 'GHSA-9c47-m6qq-7p4h', true, 'second introduced'],
  ['npm', 'json5', '2.2.1', 'GHSA-9c47-m6qq-7p4h', true, 'below the second fix'],
  ['npm', 'json5', '2.2.2', 'GHSA-9c47-m6qq-7p4h', false, 'second fix'],
  // GHSA-c4w7-xm78-47vh y18n: [0, 3.2.2), [4.0.0, 4.0.1) with versions ["4.0.0"], [5.0.0, 5.0.5)
  ['npm', 'y18n', '3.2.0', 'GHSA-c4w7-xm78-47vh', true, 'below the first fix'],
  ['npm', 'y18n', '4.0.0', 'GHSA-c4w7-xm78-47vh', true, 'enumerated version'],
  ['npm', 'y18n', '4.0.1', 'GHSA-c4w7-xm78-47vh', false, 'second fix'],
  ['npm', 'y18n', '5.0.4', 'GHSA-c4w7-xm78-47vh', true, 'below the third fix'],
  ['npm', 'y18n', '5.0.5', 'GHSA-c4w7-xm78-47vh', false, 'third fix'],
  // GHSA-9wv6-86v2-598j path-to-regexp: [0,0.1.10), [0.2.0,1.9.0), [2.0.0,3.3.0), [4.0.0,6.3.0), [7.0.0,8.0.0)
  ['npm', 'path-to-regexp', '0.1.7', 'GHSA-9wv6-86v2-598j', true, 'below the first fix'],
  ['npm', 'path-to-regexp', '0.1.10', 'GHSA-9wv6-86v2-598j', false, 'first fix'],
  ['npm', 'path-to-regexp', '1.8.0', 'GHSA-9wv6-86v2-598j', true, 'second pair'],
  ['npm', 'path-to-regexp', '6.3.0', 'GHSA-9wv6-86v2-598j', false, 'fourth fix'],
  ['npm', 'path-to-regexp', '7.0.0', 'GHSA-9wv6-86v2-598j', true, 'fifth introduced'],
  ['npm', 'path-to-regexp', '8.0.0', 'GHSA-9wv6-86v2-598j', false, 'fifth fix'],
  // GHSA-xvch-5gv4-984h minimist: [0, 0.2.4), [1.0.0, 1.2.6)
  ['npm', 'minimist', '0.2.4', 'GHSA-xvch-5gv4-984h', false, 'first fix'],
  ['npm', 'minimist', '1.2.5', 'GHSA-xvch-5gv4-984h', true, 'below the second fix'],
  ['npm', 'minimist', '1.2.6', 'GHSA-xvch-5gv4-984h', false, 'second fix'],
  // GHSA-jfh8-c2jp-5v3q log4j-core (Log4Shell): [0, 2.3.1), [2.4, 2.12.2), [2.13.0, 2.15.0)
  ['Maven', 'org.apache.logging.log4j:log4j-core', '2.14.1', 'GHSA-jfh8-c2jp-5v3q', true, 'the famous one'],
  ['Maven', 'org.apache.logging.log4j:log4j-core', '2.15.0', 'GHSA-jfh8-c2jp-5v3q', false, 'fix'],
  [
    'Maven',
    'org.apache.logging.log4j:log4j-core',
    '2.15.0-rc1',
    'GHSA-jfh8-c2jp-5v3q',
    true,
    'Maven rc sorts before the release',
  ],
  [
    'Maven',
    'org.apache.logging.log4j:log4j-core',
    '2.0-beta9',
    'GHSA-jfh8-c2jp-5v3q',
    true,
    'beta qualifier below 2.3.1',
  ],
  ['Maven', 'org.apache.logging.log4j:log4j-core', '2.3.1', 'GHSA-jfh8-c2jp-5v3q', false, 'Java 6 backport fix'],
  ['Maven', 'org.apache.logging.log4j:log4j-core', '2.3.2', 'GHSA-jfh8-c2jp-5v3q', false, 'between the pairs'],
  [
    'Maven',
    'org.apache.logging.log4j:log4j-core',
    '2.4',
    'GHSA-jfh8-c2jp-5v3q',
    true,
    'introduced written with two parts',
  ],
  ['Maven', 'org.apache.logging.log4j:log4j-core', '2.12.2', 'GHSA-jfh8-c2jp-5v3q', false, 'Java 7 backport fix'],
  ['Maven', 'org.apache.logging.log4j:log4j-core', '2.13.0', 'GHSA-jfh8-c2jp-5v3q', true, 'third introduced'],
  // GHSA-36p3-wjmg-h94x Spring4Shell spring-beans: [0, 5.2.20.RELEASE), [5.3.0, 5.3.18)
  [
    'Maven',
    'org.springframework:spring-beans',
    '5.2.5.RELEASE',
    'GHSA-36p3-wjmg-h94x',
    true,
    'vuln-spring fixture version',
  ],
  ['Maven', 'org.springframework:spring-beans', '5.2.20.RELEASE', 'GHSA-36p3-wjmg-h94x', false, 'fix'],
  [
    'Maven',
    'org.springframework:spring-beans',
    '5.2.20',
    'GHSA-36p3-wjmg-h94x',
    false,
    'RELEASE qualifier equals no qualifier',
  ],
  [
    'Maven',
    'org.springframework:spring-beans',
    '5.3.0-RC1',
    'GHSA-36p3-wjmg-h94x',
    false,
    'rc of 5.3.0 is above 5.2.20 and below 5.3.0',
  ],
  ['Maven', 'org.springframework:spring-beans', '5.3.17', 'GHSA-36p3-wjmg-h94x', true, 'below the second fix'],
  ['Maven', 'org.springframework:spring-beans', '5.3.18', 'GHSA-36p3-wjmg-h94x', false, 'second fix'],
  [
    'Maven',
    'org.springframework.boot:spring-boot-starter-web',
    '2.2.6.RELEASE',
    'GHSA-36p3-wjmg-h94x',
    true,
    'below 2.5.12',
  ],
  // GHSA-jjjh-jjxp-wpff jackson-databind: [2.4.0-rc1, 2.12.7.1), [2.13.0, 2.13.4.1)
  [
    'Maven',
    'com.fasterxml.jackson.core:jackson-databind',
    '2.3.5',
    'GHSA-jjjh-jjxp-wpff',
    false,
    'below the rc introduced',
  ],
  ['Maven', 'com.fasterxml.jackson.core:jackson-databind', '2.4.0-rc1', 'GHSA-jjjh-jjxp-wpff', true, 'introduced rc'],
  [
    'Maven',
    'com.fasterxml.jackson.core:jackson-databind',
    '2.10.3',
    'GHSA-jjjh-jjxp-wpff',
    true,
    'vuln-spring fixture version',
  ],
  [
    'Maven',
    'com.fasterxml.jackson.core:jackson-databind',
    '2.12.7',
    'GHSA-jjjh-jjxp-wpff',
    true,
    'below the four-part fix',
  ],
  ['Maven', 'com.fasterxml.jackson.core:jackson-databind', '2.12.7.1', 'GHSA-jjjh-jjxp-wpff', false, 'four-part fix'],
  [
    'Maven',
    'com.fasterxml.jackson.core:jackson-databind',
    '2.13.4.1',
    'GHSA-jjjh-jjxp-wpff',
    false,
    'second four-part fix',
  ],
  ['Maven', 'com.fasterxml.jackson.core:jackson-databind', '2.13.4', 'GHSA-jjjh-jjxp-wpff', true, '2.13.4 < 2.13.4.1'],
  [
    'Maven',
    'com.fasterxml.jackson.core:jackson-databind',
    '2.14.0-rc1',
    'GHSA-jjjh-jjxp-wpff',
    false,
    'after both pairs',
  ],
  // GHSA-mjmj-j48q-9wg2 snakeyaml: [0, 2.0)
  ['Maven', 'org.yaml:snakeyaml', '1.33', 'GHSA-mjmj-j48q-9wg2', true, 'below 2.0'],
  ['Maven', 'org.yaml:snakeyaml', '2.0', 'GHSA-mjmj-j48q-9wg2', false, 'fix'],
  ['Maven', 'org.yaml:snakeyaml', '2.0-SNAPSHOT', 'GHSA-mjmj-j48q-9wg2', true, 'snapshot sorts before its release'],
  // PYSEC-2022-42969 py: introduced 0, last_affected 1.11.0 (+ enumerated versions)
  ['PyPI', 'py', '1.11.0', 'PYSEC-2022-42969', true, 'last_affected is inclusive'],
  ['PyPI', 'py', '1.11.0rc1', 'PYSEC-2022-42969', true, 'pre-release of the last affected'],
  ['PyPI', 'py', '1.11.0.post1', 'PYSEC-2022-42969', false, 'post release is above last_affected'],
  ['PyPI', 'py', '1.12.0', 'PYSEC-2022-42969', false, 'above last_affected'],
  ['PyPI', 'py', '0.8.0-alpha2', 'PYSEC-2022-42969', true, 'listed odd spelling'],
  // PYSEC-2014-19 django: [1.4,1.4.13), [1.5,1.5.8), [1.6,1.6.5), [1.7a0,1.7b4)
  ['PyPI', 'django', '1.3.9', 'PYSEC-2014-19', false, 'below every introduced'],
  ['PyPI', 'Django', '1.4', 'PYSEC-2014-19', true, 'introduced, name normalised'],
  ['PyPI', 'django', '1.4.12.post1', 'PYSEC-2014-19', true, 'post release below the fix'],
  ['PyPI', 'django', '1.4.13.dev1', 'PYSEC-2014-19', true, 'dev release sorts before its release'],
  ['PyPI', 'django', '1.4.13', 'PYSEC-2014-19', false, 'fix'],
  ['PyPI', 'django', '1.4.13.post1', 'PYSEC-2014-19', false, 'post release of the fix'],
  ['PyPI', 'django', '1.6.4', 'PYSEC-2014-19', true, 'third pair'],
  ['PyPI', 'django', '1.6.5', 'PYSEC-2014-19', false, 'third fix'],
  ['PyPI', 'django', '1.7.dev20140101', 'PYSEC-2014-19', false, 'dev release sorts before 1.7a0'],
  ['PyPI', 'django', '1.7a1', 'PYSEC-2014-19', true, 'pre-release inside the fourth pair'],
  ['PyPI', 'django', '1.7b4', 'PYSEC-2014-19', false, 'pre-release fix'],
  ['PyPI', 'django', '1!1.4.5', 'PYSEC-2014-19', false, 'epoch 1 is above every epoch-0 range'],
  ['PyPI', 'django', '0!1.4.5', 'PYSEC-2014-19', true, 'explicit epoch 0'],
  // PYSEC-2010-27 zodb3: [0, 3.10.0a1)
  ['PyPI', 'ZODB3', '3.10.0a0', 'PYSEC-2010-27', true, 'alpha below the alpha fix'],
  ['PyPI', 'zodb3', '3.10.0.dev5', 'PYSEC-2010-27', true, 'dev sorts before a1'],
  ['PyPI', 'zodb3', '3.10.0a1', 'PYSEC-2010-27', false, 'fix'],
  // PYSEC-2021-104 zope: one range listing [5.0, 5.2.1) before [4.0, 4.6.1): only a sorted walk gets 5.1.3 right
  ['PyPI', 'Zope', '3.9', 'PYSEC-2021-104', false, 'below both pairs'],
  ['PyPI', 'zope', '4.5.6', 'PYSEC-2021-104', true, 'inside the second-listed pair, not enumerated'],
  ['PyPI', 'zope', '4.6.1', 'PYSEC-2021-104', false, 'fix of the second-listed pair'],
  ['PyPI', 'zope', '5.1.3', 'PYSEC-2021-104', true, 'an unsorted walk would clear it at fixed 4.6.1'],
  ['PyPI', 'zope', '5.2.1', 'PYSEC-2021-104', false, 'fix of the first-listed pair'],
  // GO-2022-0379 github.com/docker/distribution: [0, 2.8.0+incompatible)
  ['Go', 'github.com/docker/distribution', 'v2.7.1+incompatible', 'GO-2022-0379', true, '+incompatible below the fix'],
  ['Go', 'github.com/docker/distribution', 'v2.8.0+incompatible', 'GO-2022-0379', false, 'fix'],
  ['Go', 'github.com/docker/distribution', '2.8.0', 'GO-2022-0379', false, '+incompatible is build metadata'],
  [
    'Go',
    'github.com/docker/distribution',
    'v0.0.0-20191216044856-a8371794149d',
    'GO-2022-0379',
    true,
    'pseudo-version',
  ],
  // GO-2021-0072 docker/distribution: [0, 2.7.0-rc.0+incompatible)
  ['Go', 'github.com/docker/distribution', 'v2.7.0-beta.1+incompatible', 'GO-2021-0072', true, 'beta < rc.0'],
  ['Go', 'github.com/docker/distribution', 'v2.7.0-rc.0+incompatible', 'GO-2021-0072', false, 'pre-release fix'],
  ['Go', 'github.com/docker/distribution', 'v2.7.0+incompatible', 'GO-2021-0072', false, 'release after the fix'],
  // GO-2021-0076 evanphx/json-patch: [0, 0.5.2), [3.0.0+incompatible, 3.0.1-0.20180525145409-4c9aadca8f89+incompatible)
  ['Go', 'github.com/evanphx/json-patch', 'v0.5.1', 'GO-2021-0076', true, 'below the first fix'],
  ['Go', 'github.com/evanphx/json-patch', 'v2.0.0+incompatible', 'GO-2021-0076', false, 'between the pairs'],
  ['Go', 'github.com/evanphx/json-patch', 'v3.0.0+incompatible', 'GO-2021-0076', true, 'introduced +incompatible'],
  [
    'Go',
    'github.com/evanphx/json-patch',
    'v3.0.1-0.20180525145409-4c9aadca8f89+incompatible',
    'GO-2021-0076',
    false,
    'pseudo-version fix',
  ],
  ['Go', 'github.com/evanphx/json-patch', 'v4.0.0+incompatible', 'GO-2021-0076', false, 'after the fix'],
  // GO-2020-0012 golang.org/x/crypto: [0, 0.0.0-20200220183623-bac4c82f6975)
  ['Go', 'golang.org/x/crypto', 'v0.0.0-20200219234226-1ad67e1f0ef4', 'GO-2020-0012', true, 'earlier pseudo-version'],
  ['Go', 'golang.org/x/crypto', 'v0.0.0-20200220183623-bac4c82f6975', 'GO-2020-0012', false, 'pseudo-version fix'],
  ['Go', 'golang.org/x/crypto', 'v0.1.0', 'GO-2020-0012', false, 'tagged release after the fix'],
  // GO-2022-0703 k8s.io/kubernetes: [1.0.0,1.13.12), [1.14.0,1.14.8), [1.15.0,1.15.5), [1.16.0,1.16.2)
  ['Go', 'k8s.io/kubernetes', 'v0.9.0', 'GO-2022-0703', false, 'below the first introduced'],
  ['Go', 'k8s.io/kubernetes', 'v1.13.11', 'GO-2022-0703', true, 'first pair'],
  ['Go', 'k8s.io/kubernetes', 'v1.13.12', 'GO-2022-0703', false, 'first fix'],
  ['Go', 'k8s.io/kubernetes', 'v1.14.0', 'GO-2022-0703', true, 'second introduced'],
  ['Go', 'k8s.io/kubernetes', 'v1.15.5', 'GO-2022-0703', false, 'third fix'],
  ['Go', 'k8s.io/kubernetes', 'v1.16.1', 'GO-2022-0703', true, 'fourth pair'],
  ['Go', 'k8s.io/kubernetes', 'v1.17.0', 'GO-2022-0703', false, 'after every pair'],
  // GO-2021-0066 k8s.io/kubernetes: [0, 1.20.0-alpha.1)
  ['Go', 'k8s.io/kubernetes', 'v1.20.0-alpha.0', 'GO-2021-0066', true, 'alpha.0 < alpha.1'],
  ['Go', 'k8s.io/kubernetes', 'v1.20.0-alpha.1', 'GO-2021-0066', false, 'pre-release fix'],
  // GO-2021-0347 stdlib: [0, 1.16.15), [1.17.0-0, 1.17.8)
  ['Go', 'stdlib', 'go1.16.14', 'GO-2021-0347', true, 'toolchain spelling below the fix'],
  ['Go', 'stdlib', 'go1.16.15', 'GO-2021-0347', false, 'first fix'],
  ['Go', 'stdlib', '1.17.0-rc1', 'GO-2021-0347', true, 'rc1 > the 1.17.0-0 floor'],
  ['Go', 'stdlib', 'go1.17', 'GO-2021-0347', true, 'two-part toolchain version'],
  ['Go', 'stdlib', 'go1.17.8', 'GO-2021-0347', false, 'second fix'],
  // RUSTSEC-2021-0069 lettre: [0.7.0, 0.9.6), [0.10.0-alpha.1, 0.10.0-rc.3)
  ['crates.io', 'lettre', '0.6.9', 'RUSTSEC-2021-0069', false, 'below the first introduced'],
  ['crates.io', 'lettre', '0.7.0', 'RUSTSEC-2021-0069', true, 'first introduced'],
  ['crates.io', 'lettre', '0.9.6', 'RUSTSEC-2021-0069', false, 'first fix'],
  ['crates.io', 'lettre', '0.10.0-alpha.1', 'RUSTSEC-2021-0069', true, 'pre-release introduced'],
  ['crates.io', 'lettre', '0.10.0-rc.2', 'RUSTSEC-2021-0069', true, 'rc below the rc fix'],
  ['crates.io', 'lettre', '0.10.0-rc.3', 'RUSTSEC-2021-0069', false, 'rc fix'],
  ['crates.io', 'lettre', '0.10.0', 'RUSTSEC-2021-0069', false, 'release after the rc fix'],
  // GHSA-22f2-v57c-j9cx rack: [0.4, 2.2.8.1), [3.0.0, 3.0.9.1)
  ['RubyGems', 'rack', '0.3', 'GHSA-22f2-v57c-j9cx', false, 'below 0.4'],
  ['RubyGems', 'rack', '0.4', 'GHSA-22f2-v57c-j9cx', true, 'introduced'],
  ['RubyGems', 'rack', '2.2.8', 'GHSA-22f2-v57c-j9cx', true, 'below the four-segment fix'],
  ['RubyGems', 'rack', '2.2.8.1', 'GHSA-22f2-v57c-j9cx', false, 'four-segment fix'],
  ['RubyGems', 'rack', '3.0.0.beta1', 'GHSA-22f2-v57c-j9cx', false, 'prerelease of 3.0.0 is below its introduced'],
  ['RubyGems', 'rack', '3.0.9', 'GHSA-22f2-v57c-j9cx', true, 'second pair'],
  ['RubyGems', 'rack', '3.0.9.1', 'GHSA-22f2-v57c-j9cx', false, 'second fix'],
  // GHSA-5cm2-9h8c-rvfx tzinfo: [0, 0.3.61), [1.0.0, 1.2.10)
  ['RubyGems', 'tzinfo', '0.3.60', 'GHSA-5cm2-9h8c-rvfx', true, 'below the first fix'],
  ['RubyGems', 'tzinfo', '0.3.61', 'GHSA-5cm2-9h8c-rvfx', false, 'first fix'],
  ['RubyGems', 'tzinfo', '1.2.9', 'GHSA-5cm2-9h8c-rvfx', true, 'second pair'],
  ['RubyGems', 'tzinfo', '1.2.10', 'GHSA-5cm2-9h8c-rvfx', false, '1.2.10 > 1.2.9 numerically'],
  // NuGet
  ['NuGet', 'Newtonsoft.Json', '12.0.3', 'GHSA-5crp-9r3c-p9vr', true, 'below 13.0.1'],
  ['NuGet', 'newtonsoft.json', '13.0.1', 'GHSA-5crp-9r3c-p9vr', false, 'fix, case-insensitive name'],
  ['NuGet', 'Newtonsoft.Json', '13.0.1.0', 'GHSA-5crp-9r3c-p9vr', false, 'four-part spelling of the fix'],
  ['NuGet', 'Newtonsoft.Json', '13.0.1-beta1', 'GHSA-5crp-9r3c-p9vr', true, 'pre-release of the fix'],
  ['NuGet', 'Moment.js', '2.29.1', 'GHSA-8hfj-j24r-96c4', true, 'NuGet entry of a npm+NuGet advisory'],
  ['npm', 'moment', '2.29.2', 'GHSA-8hfj-j24r-96c4', false, 'npm fix'],
];

describe('OSV range evaluation against the shared corpus slice', () => {
  it('has a substantial table', () => {
    expect(cases.length).toBeGreaterThanOrEqual(60);
  });

  it.each(cases)('%s %s@%s vs %s -> affected=%s (%s)', (ecosystem, name, version, id, affected) => {
    expect(evaluate(ecosystem, name, version, id)).toBe(affected ? 'affected' : 'not_affected');
  });
});

describe('OSV evaluation algorithm details', () => {
  const go0703 = () => advisory('GO-2022-0703').affected[0];

  it('sorts events before walking them, so listing order does not matter', () => {
    const entry = go0703();
    if (!entry) throw new Error('fixture');
    const shuffled = { ...entry, ranges: entry.ranges.map((r) => ({ ...r, events: [...r.events].reverse() })) };

    for (const [version, expected] of [
      ['1.13.11', 'affected'],
      ['1.13.12', 'not_affected'],
      ['1.16.1', 'affected'],
      ['1.17.0', 'not_affected'],
    ] as const) {
      expect(evaluateAffected(version, shuffled, 'Go')).toBe(expected);
    }
  });

  it('applies limit events: only versions below some limit can be affected; "*" is infinity', () => {
    const range = {
      type: 'SEMVER' as const,
      events: [
        { kind: 'introduced' as const, version: '1.0.0' },
        { kind: 'limit' as const, version: '2.0.0' },
      ],
    };

    expect(evaluateRange('1.5.0', range, 'npm')).toBe('affected');
    expect(evaluateRange('2.0.0', range, 'npm')).toBe('not_affected');
    expect(
      evaluateRange('3.0.0', { ...range, events: [...range.events, { kind: 'limit', version: '*' }] }, 'npm'),
    ).toBe('affected');
  });

  it('treats introduced "0" as below every version, even unparsable ones', () => {
    const range = { type: 'ECOSYSTEM' as const, events: [{ kind: 'introduced' as const, version: '0' }] };

    expect(evaluateRange('0.0.0-alpha', range, 'npm')).toBe('affected');
    expect(evaluateRange('latest', range, 'npm')).toBe('affected');
  });

  it('answers unknown when the version cannot be ordered, instead of guessing', () => {
    expect(evaluate('Go', 'k8s.io/kubernetes', '(devel)', 'GO-2022-0703')).toBe('unknown');
    expect(evaluate('npm', 'express', 'latest', 'GHSA-rv95-896h-c2vc')).toBe('unknown');
  });

  it('matches enumerated versions exactly, or equal under the ecosystem ordering', () => {
    const entry = { ecosystem: 'PyPI', name: 'demo', ranges: [], versions: ['1.0', '2.0.post1'] };

    expect(evaluateAffected('1.0', entry, 'PyPI')).toBe('affected');
    expect(evaluateAffected('1.0.0', entry, 'PyPI')).toBe('affected');
    expect(evaluateAffected('2.0-post1', entry, 'PyPI')).toBe('affected');
    expect(evaluateAffected('2.0', entry, 'PyPI')).toBe('not_affected');
  });
});
