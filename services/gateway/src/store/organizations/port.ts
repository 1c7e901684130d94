import { AppError } from '@switchyard/shared';
import type { Organization } from '../../accounts/organization';

/** Async so the MongoDB store drops in; ids are unique (create of an existing id is a conflict). */
export interface OrganizationStore {
  /** Throws AppError conflict when the id exists. */
  create(org: Organization): Promise<void>;
  get(id: string): Promise<Organization | undefined>;
  list(): Promise<Organization[]>;
  /** Replaces the stored settings (createdAt stays); undefined when the id is unknown. */
  replace(org: Organization): Promise<Organization | undefined>;
}

export function organizationExists(id: string): AppError {
  return new AppError('conflict', `organization ${id} exists with other settings`, [
    { field: '/id', reason: 'already exists' },
  ]);
}
