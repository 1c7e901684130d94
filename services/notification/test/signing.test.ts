import { expect } from './chai';
import { Webhook } from 'standardwebhooks';
import { activeSecrets, generateSecret, isValidSecret, rotate } from '../src/signing/secrets';
import { signatureFor, signatureHeaders } from '../src/signing/sign';
import { verifyWebhook } from '../src/signing/verify';

// The Standard Webhooks / Svix reference vector.
const VECTOR = {
  secret: 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw',
  id: 'msg_p5jXN8AQM9LWM0D4loKWxJek',
  timestamp: 1614265330,
  body: '{"test": 2432232314}',
  signature: 'v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE=',
};

describe('signing', () => {
  it('matches the Standard Webhooks reference vector', () => {
    expect(
      signatureFor(VECTOR.secret, VECTOR.id, VECTOR.timestamp, Buffer.from(VECTOR.body)),
    ).to.equal(VECTOR.signature);
  });

  it('agrees with the standardwebhooks library for a generated secret', () => {
    const secret = generateSecret();
    const body = Buffer.from('{"event":"data_updated","count":3}');
    const at = new Date(1_700_000_000_000);
    const ours = signatureFor(secret, 'msg_1', 1_700_000_000, body);
    expect(ours).to.equal(new Webhook(secret).sign('msg_1', at, body));
  });

  it('sends the same value in webhook-signature and X-Service-Signature, two signatures during rotation', () => {
    const [oldSecret, newSecret] = [generateSecret(), generateSecret()];
    const body = Buffer.from('{"a":1}');
    const headers = signatureHeaders([newSecret, oldSecret], 'msg_2', 1_700_000_000, body);
    expect(headers['X-Service-Signature']).to.equal(headers['webhook-signature']);
    const parts = headers['webhook-signature'].split(' ');
    expect(parts).to.have.length(2);
    expect(parts[0]).to.equal(signatureFor(newSecret, 'msg_2', 1_700_000_000, body));
    expect(parts[1]).to.equal(signatureFor(oldSecret, 'msg_2', 1_700_000_000, body));
  });

  describe('verifyWebhook', () => {
    const headers = {
      'webhook-id': VECTOR.id,
      'webhook-timestamp': String(VECTOR.timestamp),
      'webhook-signature': VECTOR.signature,
    };

    it('accepts the reference vector within the tolerance', () => {
      expect(
        verifyWebhook(VECTOR.secret, headers, VECTOR.body, 300, VECTOR.timestamp + 10),
      ).to.equal(true);
    });

    it('rejects a changed body, a wrong secret and a stale timestamp', () => {
      expect(
        verifyWebhook(VECTOR.secret, headers, '{"test": 2432232315}', 300, VECTOR.timestamp),
      ).to.equal(false);
      expect(verifyWebhook(generateSecret(), headers, VECTOR.body, 300, VECTOR.timestamp)).to.equal(
        false,
      );
      expect(
        verifyWebhook(VECTOR.secret, headers, VECTOR.body, 300, VECTOR.timestamp + 301),
      ).to.equal(false);
    });

    it('accepts any one of several signatures and reads headers case-insensitively', () => {
      const other = signatureFor(
        generateSecret(),
        VECTOR.id,
        VECTOR.timestamp,
        Buffer.from(VECTOR.body),
      );
      const mixed = {
        'Webhook-Id': VECTOR.id,
        'Webhook-Timestamp': String(VECTOR.timestamp),
        'X-Service-Signature': `${other} ${VECTOR.signature}`,
      };
      expect(
        verifyWebhook(VECTOR.secret, mixed, Buffer.from(VECTOR.body), 300, VECTOR.timestamp),
      ).to.equal(true);
    });

    it('verifies what signatureHeaders produced with the current time', () => {
      const secret = generateSecret();
      const body = Buffer.from('{"x":"ü"}');
      const signed = signatureHeaders([secret], 'msg_3', Math.floor(Date.now() / 1000), body);
      expect(verifyWebhook(secret, { ...signed }, body)).to.equal(true);
    });
  });

  describe('secrets', () => {
    it('generates whsec_ secrets that pass validation', () => {
      const secret = generateSecret();
      expect(secret).to.match(/^whsec_/);
      expect(isValidSecret(secret)).to.equal(true);
    });

    it('accepts 24 to 32 byte keys and refuses other forms', () => {
      expect(isValidSecret(`whsec_${Buffer.alloc(24, 7).toString('base64')}`)).to.equal(true);
      expect(isValidSecret(`whsec_${Buffer.alloc(16, 7).toString('base64')}`)).to.equal(false);
      expect(isValidSecret(`whsec_${Buffer.alloc(40, 7).toString('base64')}`)).to.equal(false);
      expect(isValidSecret(Buffer.alloc(32, 7).toString('base64'))).to.equal(false);
      expect(isValidSecret('whsec_not base64!!')).to.equal(false);
      expect(isValidSecret('')).to.equal(false);
    });

    it('keeps the previous secret active only during the overlap', () => {
      const original = { secret: generateSecret() };
      const now = Date.now();
      const rotated = rotate(original, 60, now);
      expect(activeSecrets(rotated, now)).to.deep.equal([rotated.secret, original.secret]);
      expect(activeSecrets(rotated, now + 61_000)).to.deep.equal([rotated.secret]);
      expect(activeSecrets(rotate(original, 0, now), now)).to.have.length(1);
    });
  });
});
