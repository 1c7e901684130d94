import { api, type ApiOptions, type ApiResponse } from '../support/http';
import { mesh } from '../support/mesh';

/**
 * A running Switchyard the shared suites call through its gateway: the embedded mesh
 * (test/e2e) or a stack of separate processes on Kafka, MongoDB and Redis (test/distributed).
 * The dev API key's organization is `dev` on both.
 */
export interface MeshTarget {
  /** Goes before each suite's name: `e2e` or `stack`. */
  name: string;
  api<T = any>(path: string, options?: ApiOptions): Promise<ApiResponse<T>>;
  adminToken(): Promise<string>;
}

/** The shared embedded mesh of the test run (test/support/mesh.ts). */
export const embedded: MeshTarget = {
  name: 'e2e',
  api,
  adminToken: async () => (await mesh()).adminToken,
};
