import { stopMesh } from '../support/mesh';

/** Mocha root hooks: shared infrastructure is started once per run and stopped at the end. */
export const mochaHooks = {
  async afterAll(this: Mocha.Context): Promise<void> {
    this.timeout(30_000);
    await stopMesh();
  },
};
