/** A published model: an organization's version and its encoded bytes (see model/item-model.ts). */
export interface ModelSnapshot {
  version: number;
  blob: Buffer;
}

/**
 * Where trained models are published so every replica loads the same one. Versions only grow:
 * publishing a version that exists already fails (another replica got there first).
 */
export interface ModelSnapshotStore {
  /** The newest published version, 0 when none. */
  latestVersion(organization: string): Promise<number>;
  latest(organization: string): Promise<ModelSnapshot | undefined>;
  /** false when that version was already published. */
  publish(organization: string, snapshot: ModelSnapshot): Promise<boolean>;
  /**
   * Takes the organization's training lease for ttlMs (or renews it for its owner): scheduled
   * trainings run on one replica at a time. false when another owner holds it.
   */
  claimTraining(organization: string, owner: string, ttlMs: number): Promise<boolean>;
  releaseTraining(organization: string, owner: string): Promise<void>;
}
