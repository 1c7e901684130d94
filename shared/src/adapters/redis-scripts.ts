import type { Redis } from 'ioredis';
import { nameRedisScript } from './command-metrics';
import { isRedisOutage, redisProbe } from './redis';
import { DependencyGuard } from '../resilience/dependencies';

/**
 * A Lua script: how many of its arguments are keys ('dynamic': the call's first argument says),
 * and its source.
 */
export interface RedisScript {
  keys: number | 'dynamic';
  lua: string;
}

type ScriptCall = (...args: Array<string | number>) => Promise<unknown>;

/**
 * Runs named Lua scripts through EVALSHA (ioredis falls back to EVAL when the server lacks them),
 * and every command through the Redis breaker: an outage fails with DependencyUnavailableError
 * (503 unavailable for a caller), as every Redis client here does. Scripts are counted by name
 * in the command metrics ("evalsha <name>").
 */
export class RedisScripts<Name extends string> {
  private firstConnect?: Promise<void>;
  private readonly guard: DependencyGuard;

  constructor(
    private readonly redis: Redis,
    scripts: Record<Name, RedisScript>,
  ) {
    this.guard = new DependencyGuard('redis', isRedisOutage, redisProbe(redis));
    for (const [name, script] of Object.entries<RedisScript>(scripts)) {
      if (!(name in redis))
        redis.defineCommand(name, {
          ...(script.keys !== 'dynamic' && { numberOfKeys: script.keys }),
          lua: script.lua,
        });
      nameRedisScript(name, script.lua);
    }
  }

  run<T>(name: Name, ...args: Array<string | number>): Promise<T> {
    const call = (this.redis as unknown as Record<Name, ScriptCall>)[name];
    return this.command(() => call.apply(this.redis, args) as Promise<T>);
  }

  /** A plain command through the breaker. */
  command<T>(run: (redis: Redis) => Promise<T>): Promise<T> {
    return this.guard.run(async () => {
      await this.connectedOnce();
      return run(this.redis);
    });
  }

  /**
   * A lazy client not connected yet (e.g. a duplicate()) connects on its first command, once for
   * every command waiting: without an offline queue they would fail until it is connected.
   */
  private connectedOnce(): Promise<void> | undefined {
    if (this.redis.status === 'wait')
      this.firstConnect ??= this.redis.connect().finally(() => (this.firstConnect = undefined));
    return this.firstConnect;
  }
}
