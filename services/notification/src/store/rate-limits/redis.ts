import { RedisScripts, type RedisScript } from '@switchyard/shared';
import type { Redis } from 'ioredis';
import type { RateLimits } from './port';

/**
 * KEYS[1] the key's next free slot (ms), KEYS[2] the delivery's reservation; ARGV now, interval
 * (ms), how long a reservation outlives its slot (ms). Returns 0 (send now) or the reserved slot.
 */
const TAKE = `
local now = tonumber(ARGV[1])
local reserved = redis.call('GET', KEYS[2])
if reserved then
  if tonumber(reserved) > now then return tonumber(reserved) end
  redis.call('DEL', KEYS[2])
  return 0
end
local free = tonumber(redis.call('GET', KEYS[1]) or '0')
if free < now then free = now end
local after = free + tonumber(ARGV[2])
redis.call('SET', KEYS[1], tostring(after), 'PX', math.ceil(after - now) + 1000)
if free <= now then return 0 end
redis.call('SET', KEYS[2], tostring(free), 'PX', math.ceil(free - now) + tonumber(ARGV[3]))
return math.ceil(free)
`;

type ScriptName = 'syRateTake';
const SCRIPTS: Record<ScriptName, RedisScript> = { syRateTake: { keys: 2, lua: TAKE } };
/** A reservation not taken this long after its slot is forgotten (its delivery is gone). */
const RESERVATION_GRACE_MS = 60_000;

/**
 * Send slots in Redis, shared by the replicas: one Lua script per take (atomic, one round trip).
 * A key's slot and its reservations share a hash tag (one Redis Cluster slot).
 */
export class RedisRateLimits implements RateLimits {
  private readonly scripts: RedisScripts<ScriptName>;

  constructor(
    redis: Redis,
    private readonly prefix: string,
  ) {
    this.scripts = new RedisScripts(redis, SCRIPTS);
  }

  take(key: string, id: string, perSecond: number, now: number): Promise<number> {
    const tag = `${this.prefix}{rate:${key}}`;
    return this.scripts.run<number>(
      'syRateTake',
      tag,
      `${tag}:${id}`,
      now,
      1000 / perSecond,
      RESERVATION_GRACE_MS,
    );
  }
}
