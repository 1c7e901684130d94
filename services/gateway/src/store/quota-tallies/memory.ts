import { tallyId, type QuotaTallyStore, type TallyDelta } from './port';

export class InMemoryQuotaTallyStore implements QuotaTallyStore {
  private readonly tallies = new Map<
    string,
    { organization: string; period: string; tokens: number; batch: string }
  >();

  async add(writer: string, batch: string, deltas: TallyDelta[]): Promise<void> {
    for (const { organization, period, tokens } of deltas) {
      const id = tallyId(writer, organization, period);
      const tally = this.tallies.get(id);
      if (!tally) this.tallies.set(id, { organization, period, tokens, batch });
      else if (tally.batch !== batch)
        Object.assign(tally, { tokens: tally.tokens + tokens, batch });
    }
  }

  async total(organization: string, period: string): Promise<number> {
    let sum = 0;
    for (const t of this.tallies.values())
      if (t.organization === organization && t.period === period) sum += t.tokens;
    return sum;
  }
}
