import type { ModelSnapshot, ModelSnapshotStore } from './port';

export class InMemoryModelSnapshotStore implements ModelSnapshotStore {
  private readonly snapshots = new Map<string, ModelSnapshot>();
  private readonly leases = new Map<string, { owner: string; expiresAt: number }>();

  async latestVersion(organization: string): Promise<number> {
    return this.snapshots.get(organization)?.version ?? 0;
  }

  async latest(organization: string): Promise<ModelSnapshot | undefined> {
    return this.snapshots.get(organization);
  }

  async publish(organization: string, snapshot: ModelSnapshot): Promise<boolean> {
    // Checked and set without an await between: concurrent publishers cannot both win.
    if (snapshot.version <= (this.snapshots.get(organization)?.version ?? 0)) return false;
    this.snapshots.set(organization, snapshot);
    return true;
  }

  async claimTraining(organization: string, owner: string, ttlMs: number): Promise<boolean> {
    const lease = this.leases.get(organization);
    if (lease && lease.owner !== owner && lease.expiresAt > Date.now()) return false;
    this.leases.set(organization, { owner, expiresAt: Date.now() + ttlMs });
    return true;
  }

  async releaseTraining(organization: string, owner: string): Promise<void> {
    if (this.leases.get(organization)?.owner === owner) this.leases.delete(organization);
  }
}
