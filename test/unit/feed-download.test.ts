/**
 * Feed downloads follow a moved feed (a redirect) but only within limits: no downgrade from https,
 * no other scheme, a bounded number of hops; the body is checked as for a direct answer.
 */
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { downloadBytes, FeedDownloadError } from '../../shared/service/corpus/feed-download';
import { startFeedServer, type FeedServer } from '../support/feed-server';

let feeds: FeedServer;
const catalog = Buffer.from('{"vulnerabilities":[]}');

beforeAll(async () => {
  feeds = await startFeedServer();
  feeds.files.set('/moved/kev.json', { body: catalog, type: 'application/json' });
  feeds.files.set('/kev.json', {
    body: Buffer.alloc(0),
    type: 'text/plain',
    behaviour: 'redirect',
    location: '/moved/kev.json',
  });
  feeds.files.set('/to-file', {
    body: Buffer.alloc(0),
    type: 'text/plain',
    behaviour: 'redirect',
    location: 'file:///etc/passwd',
  });
  feeds.files.set('/no-location', { body: Buffer.alloc(0), type: 'text/plain', behaviour: 'redirect', location: '' });
  feeds.files.set('/loop', { body: Buffer.alloc(0), type: 'text/plain', behaviour: 'redirect', location: '/loop' });
});
afterAll(async () => feeds.close());

describe('feed download redirects', () => {
  it('follows a redirect to the moved feed and checks the body it finds there', async () => {
    const downloaded = await downloadBytes(`${feeds.base}/kev.json`);
    expect(downloaded.notModified).toBe(false);
    expect(downloaded.notModified === false && downloaded.body.toString()).toBe(catalog.toString());
    expect(feeds.requests.slice(-2).map((request) => request.status)).toEqual([302, 200]);
  });

  it('refuses a redirect to another scheme', async () => {
    await expect(downloadBytes(`${feeds.base}/to-file`)).rejects.toThrow(/redirect from http: to file: refused/);
  });

  it('refuses a redirect without a Location', async () => {
    await expect(downloadBytes(`${feeds.base}/no-location`)).rejects.toThrow(FeedDownloadError);
  });

  it('gives up after five redirects', async () => {
    const before = feeds.requests.length;
    await expect(downloadBytes(`${feeds.base}/loop`)).rejects.toThrow(/more than 5 redirects/);
    expect(feeds.requests.length - before).toBe(6);
  });
});
