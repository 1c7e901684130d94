import { expect } from './chai';
import { capHistory, mergeHistory } from '../src/conversation/history';
import type { ChatMessage } from '../src/store/sessions/port';

const u = (content: string): ChatMessage => ({ role: 'user', content });
const a = (content: string): ChatMessage => ({ role: 'assistant', content });
const s = (content: string): ChatMessage => ({ role: 'system', content });

describe('history merge', () => {
  it('starts a session with the client messages', () => {
    const merged = mergeHistory([], [s('be brief'), u('hi')]);
    expect(merged.messages).to.deep.equal([s('be brief'), u('hi')]);
    expect(merged.added).to.deep.equal([s('be brief'), u('hi')]);
  });

  it('appends only what follows the stored tail when the client resends recent history', () => {
    const stored = [u('q1'), a('r1')];
    const merged = mergeHistory(stored, [u('q1'), a('r1'), u('q2')]);
    expect(merged.messages).to.deep.equal([u('q1'), a('r1'), u('q2')]);
    expect(merged.added).to.deep.equal([u('q2')]);
  });

  it('appends a lone new message to the stored history', () => {
    expect(mergeHistory([u('q1'), a('r1')], [u('q2')]).messages).to.deep.equal([
      u('q1'),
      a('r1'),
      u('q2'),
    ]);
  });

  it('does not duplicate on a replay of the last turn; the old reply is superseded', () => {
    const stored = [u('q1'), a('r1'), u('q2'), a('r2')];
    const merged = mergeHistory(stored, [u('q1'), a('r1'), u('q2')]);
    expect(merged.replay).to.equal(true);
    expect(merged.added).to.deep.equal([]);
    expect(merged.messages).to.deep.equal([u('q1'), a('r1'), u('q2')]);
  });

  it('compares without assistant messages when the client sends only its own', () => {
    const stored = [u('q1'), a('r1')];
    expect(mergeHistory(stored, [u('q1'), u('q2')]).messages).to.deep.equal([
      u('q1'),
      a('r1'),
      u('q2'),
    ]);
  });

  it('recognises a replay from a client that omits assistant messages', () => {
    const merged = mergeHistory([u('q1'), a('r1')], [u('q1')]);
    expect(merged).to.deep.equal({ messages: [u('q1')], added: [], replay: true });
  });

  it('aligns a client history longer than the capped store', () => {
    const full = [u('q1'), a('r1'), u('q2'), a('r2'), u('q3'), a('r3')];
    const stored = capHistory(full, 4);
    expect(stored).to.deep.equal([u('q2'), a('r2'), u('q3'), a('r3')]);
    const merged = mergeHistory(stored, [...full, u('q4')]);
    expect(merged.added).to.deep.equal([u('q4')]);
    expect(merged.messages).to.deep.equal([...stored, u('q4')]);
  });

  it('keeps repeated words as new messages when they follow the stored tail', () => {
    const merged = mergeHistory([u('yes'), a('ok')], [u('yes'), a('ok'), u('yes')]);
    expect(merged.messages).to.deep.equal([u('yes'), a('ok'), u('yes')]);
  });
});
