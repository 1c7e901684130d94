import { expect } from './chai';
import { parseDuration, parseRetrySchedule } from '../src/duration';
import {
  classifyResponse,
  nextAttemptTime,
  parseRetryAfter,
  withJitter,
} from '../src/delivery/outcome';
import { loadNotificationConfig } from '../src/config';

describe('delivery rules', () => {
  it('parses durations and the default retry schedule', () => {
    expect(parseDuration('50ms')).to.equal(50);
    expect(parseDuration('5s')).to.equal(5000);
    expect(parseDuration('2h')).to.equal(7_200_000);
    expect(parseDuration('5d')).to.equal(432_000_000);
    expect(parseRetrySchedule('0,5s,5m,30m,2h,5h,10h,10h')).to.deep.equal([
      0, 5000, 300000, 1800000, 7200000, 18000000, 36000000, 36000000,
    ]);
    expect(() => parseDuration('soon')).to.throw(/invalid duration/);
  });

  it('jitters by at most 20%', () => {
    expect(withJitter(1000, () => 0)).to.equal(800);
    expect(withJitter(1000, () => 1)).to.equal(1200);
    expect(withJitter(0, () => 1)).to.equal(0);
  });

  it('stops after the schedule and lets Retry-After only delay', () => {
    expect(nextAttemptTime([0, 1000], 2, 0)).to.equal(undefined);
    const next = nextAttemptTime([0, 1000], 1, 0)!;
    expect(next).to.be.within(800, 1200);
    expect(nextAttemptTime([0, 1000], 1, 0, 60_000)).to.equal(60_000);
    expect(nextAttemptTime([0, 1000], 1, 0, 10)).to.be.within(800, 1200);
  });

  it('reads Retry-After as seconds or an HTTP date', () => {
    expect(parseRetryAfter('3')).to.equal(3000);
    expect(parseRetryAfter(new Date(10_000).toUTCString(), 4_000)).to.equal(6000);
    expect(parseRetryAfter('whenever')).to.equal(undefined);
  });

  it('classifies responses', () => {
    expect(classifyResponse(204, {}).kind).to.equal('success');
    expect(classifyResponse(410, {}).kind).to.equal('gone');
    expect(classifyResponse(302, {})).to.include({ kind: 'failure', reason: 'redirect' });
    expect(classifyResponse(500, {})).to.include({ kind: 'failure', reason: 'http_5xx' });
    expect(classifyResponse(429, { 'retry-after': '2' })).to.include({ retryAfterMs: 2000 });
    expect(classifyResponse(503, { 'retry-after': '1' })).to.include({ retryAfterMs: 1000 });
  });
});

describe('config', () => {
  it('is strict by default in distributed mode and relaxed in embedded mode', () => {
    const distributed = loadNotificationConfig({});
    expect(distributed.grpcPort).to.equal(50054);
    expect(distributed.urlPolicy).to.include({ requireHttps: true, allowPrivateNetworks: false });
    expect(distributed.delivery.retrySchedule).to.have.length(8);
    expect(distributed.usage).to.deep.equal({
      monthlyTokenQuota: 1_000_000,
      thresholdShares: [0.9, 1],
      ledgerSweepMs: 60_000,
    });
    const embedded = loadNotificationConfig({ SWITCHYARD_MODE: 'embedded' });
    expect(embedded.urlPolicy).to.include({ requireHttps: false, allowPrivateNetworks: true });
    expect(
      loadNotificationConfig({
        SWITCHYARD_MODE: 'embedded',
        WEBHOOK_ALLOW_PRIVATE_NETWORKS: 'false',
      }).urlPolicy.allowPrivateNetworks,
    ).to.equal(false);
  });

  it('fails fast on invalid values', () => {
    expect(() => loadNotificationConfig({ WEBHOOK_RETRY_SCHEDULE: '0,soon' })).to.throw(
      /invalid duration/,
    );
    expect(() => loadNotificationConfig({ DEV_SIGNING_SECRET: 'secret' })).to.throw(
      /DEV_SIGNING_SECRET/,
    );
    expect(() => loadNotificationConfig({ USAGE_THRESHOLD_SHARES: '0.9,x' })).to.throw(
      /USAGE_THRESHOLD_SHARES/,
    );
    expect(() => loadNotificationConfig({ SWITCHYARD_MODE: 'cloud' })).to.throw(/SWITCHYARD_MODE/);
  });
});
