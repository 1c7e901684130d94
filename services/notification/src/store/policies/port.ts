/** An organization's quota policy, as put by the gateway's admin API. */
export interface OrganizationPolicyRecord {
  organization: string;
  monthlyTokenQuota: number;
  /** Ascending, unique, each in (0, 10]. */
  thresholdShares: number[];
  /** Hard: calls over the quota are refused (by the gateway); soft: notify only. */
  hardQuota: boolean;
  updatedAt: string;
}

export interface PolicyStore {
  /** Replaces the organization's policy (putting the same policy again changes nothing). */
  put(policy: OrganizationPolicyRecord): Promise<void>;
  get(organization: string): Promise<OrganizationPolicyRecord | undefined>;
}
