import { setUpInfrastructure, tearDownInfrastructure } from './infra';
import { closeBrowser } from '../support/browser';
import { stopMesh } from '../support/mesh';

/** Runs once before every suite: real Kafka/MongoDB/Redis endpoints for the whole run. */
export async function mochaGlobalSetup(): Promise<void> {
  const source = await setUpInfrastructure();
  process.stdout.write(`\n  infrastructure: ${source}\n`);
}

export async function mochaGlobalTeardown(): Promise<void> {
  await tearDownInfrastructure();
}

/** Mocha root hooks: the shared embedded mesh and browser are stopped at the end. */
export const mochaHooks = {
  async afterAll(this: Mocha.Context): Promise<void> {
    this.timeout(30_000);
    await closeBrowser();
    await stopMesh();
  },
};
