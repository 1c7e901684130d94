import { expect } from 'chai';
import { AppError } from '../src/errors/app-error';
import type { EventPublisher } from '../src/adapters/outbox';
import { validateEvent, type AnyEvent } from '../src/events/envelope';
import { UsagePublisher, type UsageFact } from '../src/events/usage-publisher';
import { silentLogger, waitFor } from '../src/testing';

class RecordingBus implements EventPublisher {
  readonly published: AnyEvent[] = [];
  down = false;

  async publish(event: AnyEvent): Promise<void> {
    if (this.down) throw new Error('neither published nor stored');
    this.published.push(validateEvent(JSON.parse(JSON.stringify(event))));
  }
}

const fact: UsageFact = {
  organization: 'org_a',
  keyId: 'key_1',
  requestId: 'req_1',
  route: 'assistant.chat',
  agent: 'support',
  model: 'builtin',
  tokensInput: 12,
  tokensOutput: 30,
  cost: 0.002,
  outcome: 'succeeded',
  eventId: 'evt_usage_1',
};

describe('UsagePublisher', () => {
  it('publishes a usage fact as usage.recorded of its source, by route, with the id given', async () => {
    const bus = new RecordingBus();
    await new UsagePublisher(bus, 'assistant', silentLogger()).record(fact);
    expect(bus.published).to.have.length(1);
    expect(bus.published[0]).to.deep.include({
      id: 'evt_usage_1',
      type: 'usage.recorded',
      source: 'assistant',
      organization: 'org_a',
    });
    // The envelope carries the organization and the id; the data is the rest of the fact.
    const { organization: _organization, eventId: _eventId, ...data } = fact;
    expect(bus.published[0]!.data).to.deep.equal(data);
  });

  it('fails the call with unavailable when the usage can be neither published nor stored', async () => {
    const bus = new RecordingBus();
    bus.down = true;
    const error = await new UsagePublisher(bus, 'content', silentLogger()).record(fact).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(error).to.be.instanceOf(AppError);
    expect((error as AppError).code).to.equal('unavailable');
  });

  it('records in the background without failing the caller, logging what it could not keep', async () => {
    const bus = new RecordingBus();
    bus.down = true;
    const logged: unknown[] = [];
    const logger = silentLogger();
    logger.error = ((fields: unknown) => void logged.push(fields)) as typeof logger.error;
    new UsagePublisher(bus, 'content', logger).recordInBackground(fact);
    await waitFor(() => logged.length === 1);
    expect(logged[0]).to.deep.include({ organization: 'org_a', eventId: 'evt_usage_1' });
  });

  it('accepts events recorded before routes (a path, no route); refuses unknown routes and assistant usage without its agent', () => {
    const event = (data: object) => ({
      id: 'evt_1',
      type: 'usage.recorded',
      source: 'content',
      time: new Date().toISOString(),
      organization: 'org_a',
      data: {
        requestId: 'req_1',
        keyId: 'key_1',
        model: 'builtin',
        tokensInput: 1,
        tokensOutput: 1,
        cost: 0,
        outcome: 'succeeded',
        ...data,
      },
    });
    expect(validateEvent(event({ endpoint: '/api/v2/ai/content/generate' })).data).to.include({
      endpoint: '/api/v2/ai/content/generate',
    });
    expect(() => validateEvent(event({}))).to.throw(AppError);
    expect(() => validateEvent(event({ route: 'content.unknown' }))).to.throw(AppError);
    expect(() => validateEvent(event({ route: 'assistant.chat' }))).to.throw(AppError);
    expect(validateEvent(event({ route: 'assistant.chat', agent: 'support' })).data).to.include({
      agent: 'support',
    });
  });
});
