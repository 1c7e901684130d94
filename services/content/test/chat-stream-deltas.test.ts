import { expect } from 'chai';
import { ChatStreamDeltas, StreamErrorEvent } from '../src/models/openai/chat-stream-deltas';

const event = (data: object | string) =>
  `data: ${typeof data === 'string' ? data : JSON.stringify(data)}\n\n`;
const delta = (content: string) => event({ choices: [{ index: 0, delta: { content } }] });

describe('ChatStreamDeltas (a provider stream read per network chunk)', () => {
  it('gives the text of all whole events of a read at once, and keeps a split event for the next', () => {
    const reader = new ChatStreamDeltas();
    const wire = Buffer.from(delta('Trail ') + delta('shoes ') + delta('grip.'));
    const cut = wire.length - 5;
    expect(reader.push(wire.subarray(0, cut))).to.equal('Trail shoes ');
    expect(reader.push(wire.subarray(cut))).to.equal('grip.');
    expect(reader.end()).to.equal('');
  });

  it('keeps a character split across reads whole, and reads CRLF events and an unterminated last one', () => {
    const reader = new ChatStreamDeltas();
    const wire = Buffer.from(delta('Grüße ').replace('\n\n', '\r\n\r\n') + delta('😀').trimEnd());
    const inCharacter = wire.indexOf(Buffer.from('ü')) + 1;
    const texts = [
      reader.push(wire.subarray(0, inCharacter)),
      reader.push(wire.subarray(inCharacter)),
    ];
    texts.push(reader.end());
    expect(texts.join('')).to.equal('Grüße 😀');
  });

  it('keeps the usage chunk, skips [DONE] and lines that are not data', () => {
    const reader = new ChatStreamDeltas();
    const usage = { prompt_tokens: 24, completion_tokens: 3, total_tokens: 27 };
    const text = reader.push(
      Buffer.from(
        ': keep-alive\n\n' + delta('ok') + event({ choices: [], usage }) + event('[DONE]'),
      ),
    );
    expect(text).to.equal('ok');
    expect(reader.usage).to.deep.equal(usage);
  });

  it("raises a provider's error event with its message", () => {
    const reader = new ChatStreamDeltas();
    expect(() =>
      reader.push(Buffer.from(delta('par') + event({ error: { message: 'overloaded' } }))),
    )
      .to.throw(StreamErrorEvent)
      .with.property('message', 'overloaded');
  });
});
