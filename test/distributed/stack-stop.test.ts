import { expect } from 'chai';
import { captureLog } from '../support/log-capture';
import { isAlive, realInfrastructure, startStack, type RunningStack } from '../support/stack';

const COMPONENTS = ['gateway', 'content', 'assistant', 'recommendation', 'notification'] as const;

/**
 * Ctrl-C in a terminal signals the whole process group: every component gets SIGINT at the same
 * moment as the supervisor, and may exit before the supervisor's own stop reaches it. A stop
 * must never restart anything (issue 37: three services were "restarted" while stopping).
 */
describe('distributed: stopping a supervised stack (Ctrl-C) restarts nothing', function () {
  this.timeout(120_000);
  let run: RunningStack | undefined;

  before(function () {
    if (!realInfrastructure()) this.skip();
  });

  after(async () => {
    await run?.stack.stopAll('SIGKILL');
  });

  it('every component gets SIGINT with the supervisor: all exit, none is restarted', async () => {
    const log = captureLog('stack');
    run = await startStack({}, { supervise: { logger: log.logger, initialDelayMs: 50 } });
    const pids = COMPONENTS.map((name) => run!.stack.pidOf(name)!);
    expect(pids.every((pid) => pid > 0 && isAlive(pid))).to.equal(true);
    // What the terminal does: the signal reaches each child, and the supervisor's handler stops all.
    for (const pid of pids) process.kill(pid, 'SIGINT');
    await run.stack.stopAll();
    // Longer than any restart delay the supervisor could have scheduled.
    await new Promise((resolve) => setTimeout(resolve, 1500));
    expect(log.text()).not.to.include('restarting it');
    expect(pids.filter(isAlive)).to.deep.equal([]);
    expect(COMPONENTS.map((name) => run!.stack.pidOf(name)).filter(Boolean)).to.deep.equal([]);
  });
});
