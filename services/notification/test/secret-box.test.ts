import { SecretBox, UnreadableSecretError } from '../src/store/secret-box';
import { expect } from './chai';

describe('SecretBox (AES-256-GCM)', () => {
  const box = new SecretBox(Buffer.alloc(32, 5));

  it('round-trips and uses a fresh IV per seal', () => {
    const first = box.seal('whsec_abc', 'webhook:wh_1');
    const second = box.seal('whsec_abc', 'webhook:wh_1');
    expect(first).to.not.equal(second);
    expect(first).to.match(/^v1\./);
    expect(box.open(first, 'webhook:wh_1')).to.equal('whsec_abc');
  });

  it('refuses another context, another key, a tampered value and plaintext', () => {
    const sealed = box.seal('whsec_abc', 'webhook:wh_1');
    expect(() => box.open(sealed, 'webhook:wh_2')).to.throw(/does not decrypt/);
    expect(() => new SecretBox(Buffer.alloc(32, 6)).open(sealed, 'webhook:wh_1')).to.throw(
      /does not decrypt/,
    );
    const parts = sealed.split('.');
    parts[3] = Buffer.from('whsec_abd').toString('base64url');
    expect(() => box.open(parts.join('.'), 'webhook:wh_1')).to.throw(/does not decrypt/);
    expect(() => box.open('whsec_abc', 'webhook:wh_1')).to.throw(/not sealed/);
  });

  it('opens with any key of the ring and seals with the first (a key rotation)', () => {
    const oldBox = new SecretBox(Buffer.alloc(32, 1));
    const sealedWithOld = oldBox.seal('whsec_old', 'webhook:wh_1');
    const ring = new SecretBox(Buffer.alloc(32, 2), [Buffer.alloc(32, 1)]);
    expect(ring.openWithKey(sealedWithOld, 'webhook:wh_1')).to.deep.equal({
      plaintext: 'whsec_old',
      keyIndex: 1,
    });
    const sealedWithNew = ring.seal('whsec_new', 'webhook:wh_1');
    expect(ring.openWithKey(sealedWithNew, 'webhook:wh_1').keyIndex).to.equal(0);
    expect(() => oldBox.open(sealedWithNew, 'webhook:wh_1')).to.throw(UnreadableSecretError);
  });

  it('requires a 32-byte key', () => {
    expect(() => new SecretBox(Buffer.alloc(16))).to.throw(/32 bytes/);
    expect(() => new SecretBox(Buffer.alloc(32), [Buffer.alloc(31)])).to.throw(/32 bytes/);
  });
});
