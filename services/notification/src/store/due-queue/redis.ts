import { RedisScripts, type RedisScript } from '@switchyard/shared';
import type { Redis } from 'ioredis';
import type { ClaimedEntry, ClaimRequest, DueEntry, DueQueue, LaneEntry, Settlement } from './port';

/**
 * KEYS[1] the queue (sorted set: score = due time in ms, member = "<host> <id>"); ARGV now, limit,
 * leaseUntil, postponeUntil, other hosts' room, then pairs of host and room. Returns {claimed
 * members, how many were postponed}: due entries of hosts without room move to postponeUntil.
 */
const CLAIM = `
local room = {}
for i = 6, #ARGV, 2 do room[ARGV[i]] = tonumber(ARGV[i + 1]) end
local other = tonumber(ARGV[5])
local due = redis.call('ZRANGEBYSCORE', KEYS[1], '-inf', ARGV[1], 'LIMIT', 0, tonumber(ARGV[2]))
local claimed = {}
local postponed = 0
for _, member in ipairs(due) do
  local host = string.match(member, '^(.*) [^ ]*$') or ''
  local left = room[host] or other
  if left > 0 then
    room[host] = left - 1
    redis.call('ZADD', KEYS[1], ARGV[3], member)
    claimed[#claimed + 1] = member
  else
    redis.call('ZADD', KEYS[1], ARGV[4], member)
    postponed = postponed + 1
  end
end
return {claimed, postponed}
`;

/**
 * KEYS[1] the queue, KEYS[2] the held heads, KEYS[3..] lanes; ARGV now, then per settlement its
 * member, lease ('' for none), next ('' removes) and its lane's index in KEYS ('' for none). Only
 * entries still under that lease change; a lane is advanced whatever the lease: its finished
 * delivery leaves it (found by id, its host may have changed) and the held heads, and if it was
 * the head the next member falls due now.
 */
const SETTLE = `
local function id(member) return string.match(member, ' ([^ ]*)$') end
local settled = 0
for i = 2, #ARGV, 4 do
  local member = ARGV[i]
  if ARGV[i + 1] ~= '' then
    local score = redis.call('ZSCORE', KEYS[1], member)
    if score and tonumber(score) == tonumber(ARGV[i + 1]) then
      if ARGV[i + 2] == '' then redis.call('ZREM', KEYS[1], member)
      else redis.call('ZADD', KEYS[1], ARGV[i + 2], member) end
      settled = settled + 1
    end
  end
  if ARGV[i + 3] ~= '' then
    local lane = KEYS[tonumber(ARGV[i + 3])]
    redis.call('HDEL', KEYS[2], id(member))
    local head = redis.call('LINDEX', lane, 0)
    if head and id(head) == id(member) then
      redis.call('LPOP', lane)
      local following = redis.call('LINDEX', lane, 0)
      if following then redis.call('ZADD', KEYS[1], 'NX', ARGV[1], following) end
    else
      for _, waiting in ipairs(redis.call('LRANGE', lane, 0, -1)) do
        if id(waiting) == id(member) then redis.call('LREM', lane, 1, waiting) end
      end
    end
  end
end
return settled
`;

/**
 * KEYS[1] the queue, KEYS[2..] lanes (lists of members); ARGV a member and a due time per lane
 * key. A member already in its lane stays where it is (back in the queue if it heads the lane and
 * its entry was lost); one that heads its lane goes in the queue. Returns the members that head
 * their lanes and were put in the queue.
 */
const APPEND = `
local heads = {}
for i = 2, #KEYS do
  local member = ARGV[(i - 2) * 2 + 1]
  local at = redis.call('LPOS', KEYS[i], member)
  if not at then
    if redis.call('RPUSH', KEYS[i], member) == 1 then
      redis.call('ZADD', KEYS[1], ARGV[(i - 2) * 2 + 2], member)
      heads[#heads + 1] = member
    end
  elseif at == 0 and not redis.call('ZSCORE', KEYS[1], member) then
    redis.call('ZADD', KEYS[1], ARGV[(i - 2) * 2 + 2], member)
    heads[#heads + 1] = member
  end
end
return heads
`;

/**
 * KEYS[1] the queue, KEYS[2] the held heads (hash: id -> lane), KEYS[3..] lanes; ARGV a member,
 * a due time and a lane name per lane key. A member whose lane is empty becomes its head, goes in
 * the queue and is held; the others are left out. Returns the members that became heads.
 */
const HEAD = `
local heads = {}
for i = 3, #KEYS do
  if redis.call('EXISTS', KEYS[i]) == 0 then
    local member = ARGV[(i - 3) * 3 + 1]
    redis.call('RPUSH', KEYS[i], member)
    redis.call('ZADD', KEYS[1], ARGV[(i - 3) * 3 + 2], member)
    redis.call('HSET', KEYS[2], string.match(member, ' ([^ ]*)$'), ARGV[(i - 3) * 3 + 3])
    heads[#heads + 1] = member
  end
end
return heads
`;

type ScriptName = 'syDueClaim' | 'syDueSettle' | 'syDueAppend' | 'syDueHead';
const SCRIPTS: Record<ScriptName, RedisScript> = {
  syDueClaim: { keys: 1, lua: CLAIM },
  syDueSettle: { keys: 'dynamic', lua: SETTLE },
  syDueAppend: { keys: 'dynamic', lua: APPEND },
  syDueHead: { keys: 'dynamic', lua: HEAD },
};

/** Marks a held head a claim found not logged (lane names start with a webhook id). */
const UNLOGGED = '!';

/** Entries per ZADD or settle command: a long schedule goes in several. */
const CHUNK = 500;

function member(host: string, id: string): string {
  return `${host} ${id}`;
}

function parse(text: string, lease: number): ClaimedEntry {
  const space = text.lastIndexOf(' ');
  return { host: text.slice(0, space), id: text.slice(space + 1), lease };
}

function chunks<T>(items: T[]): T[][] {
  const out: T[][] = [];
  for (let i = 0; i < items.length; i += CHUNK) out.push(items.slice(i, i + CHUNK));
  return out;
}

/**
 * The due queue in Redis, shared by the replicas: one sorted set, claimed and settled by Lua
 * scripts (atomic, so two replicas never claim one entry under live leases). Its keys share a
 * hash tag (one Redis Cluster slot).
 */
export class RedisDueQueue implements DueQueue {
  private readonly scripts: RedisScripts<ScriptName>;
  private readonly key: string;
  private readonly completeKey: string;
  private readonly rebuildKey: string;
  /** Heads made by headEmptyLanes until their lanes move on: id -> lane, UNLOGGED-marked once a claim found no record. */
  private readonly heldKey: string;

  constructor(
    private readonly redis: Redis,
    prefix: string,
    private readonly ownsConnection = false,
  ) {
    this.scripts = new RedisScripts(redis, SCRIPTS);
    this.key = `${prefix}{due}`;
    this.completeKey = `${prefix}{due}:complete`;
    this.rebuildKey = `${prefix}{due}:rebuild`;
    this.heldKey = `${prefix}{due}:held`;
  }

  async schedule(entries: DueEntry[], options: { keepExisting?: boolean } = {}): Promise<void> {
    await Promise.all(
      chunks(entries).map((chunk) => {
        const args = chunk.flatMap((e) => [e.dueAt, member(e.host, e.id)]);
        return this.scripts.command((redis) =>
          options.keepExisting
            ? redis.zadd(this.key, 'NX', ...args)
            : redis.zadd(this.key, ...args),
        );
      }),
    );
  }

  async claim(request: ClaimRequest): Promise<{ claimed: ClaimedEntry[]; postponed: number }> {
    const rooms = [...request.room.hosts].flatMap(([host, room]) => [host, room]);
    const [claimed, postponed] = await this.scripts.run<[string[], number]>(
      'syDueClaim',
      this.key,
      request.now,
      request.limit,
      request.leaseUntil,
      request.postponeUntil,
      request.room.other,
      ...rooms,
    );
    return { claimed: claimed.map((text) => parse(text, request.leaseUntil)), postponed };
  }

  async settle(settlements: Settlement[], now = Date.now()): Promise<void> {
    await Promise.all(chunks(settlements).map((chunk) => this.runSettle(chunk, now)));
  }

  private runSettle(
    settlements: Array<Omit<Settlement, 'lease'> & { lease?: number }>,
    now: number,
  ) {
    const lanes = new Map<string, number>();
    for (const { lane } of settlements)
      if (lane !== undefined && !lanes.has(lane)) lanes.set(lane, lanes.size + 3);
    return this.scripts.run(
      'syDueSettle',
      lanes.size + 2,
      this.key,
      this.heldKey,
      ...[...lanes.keys()].map((lane) => this.laneKey(lane)),
      now,
      ...settlements.flatMap((s) => [
        member(s.host, s.id),
        s.lease ?? '',
        s.next ?? '',
        s.lane === undefined ? '' : lanes.get(s.lane)!,
      ]),
    );
  }

  appendToLanes(entries: LaneEntry[]): Promise<string[]> {
    return this.runLanes('syDueAppend', [], entries, (e) => [member(e.host, e.id), e.dueAt]);
  }

  headEmptyLanes(entries: LaneEntry[]): Promise<string[]> {
    return this.runLanes('syDueHead', [this.heldKey], entries, (e) => [
      member(e.host, e.id),
      e.dueAt,
      e.lane,
    ]);
  }

  /** A lane script over the entries: the queue, `keys`, then a lane key per entry with its args. */
  private async runLanes(
    script: 'syDueAppend' | 'syDueHead',
    keys: string[],
    entries: LaneEntry[],
    args: (entry: LaneEntry) => Array<string | number>,
  ): Promise<string[]> {
    const heads: string[] = [];
    // In order, one chunk after the other: a lane's later entries must not pass earlier ones.
    for (const chunk of chunks(entries)) {
      const members = await this.scripts.run<string[]>(
        script,
        chunk.length + keys.length + 1,
        this.key,
        ...keys,
        ...chunk.map((e) => this.laneKey(e.lane)),
        ...chunk.flatMap(args),
      );
      heads.push(...members.map((text) => parse(text, 0).id));
    }
    return heads;
  }

  async releaseUnlogged(claims: ClaimedEntry[], retryAt: number, now = Date.now()): Promise<void> {
    if (claims.length === 0) return;
    const lanes = await this.scripts.command((redis) =>
      redis.hmget(this.heldKey, ...claims.map((c) => c.id)),
    );
    const settlements: Settlement[] = [];
    const marked: string[] = [];
    claims.forEach((claim, i) => {
      const held = lanes[i];
      if (!held) settlements.push(claim);
      else if (held.startsWith(UNLOGGED)) settlements.push({ ...claim, lane: held.slice(1) });
      else {
        marked.push(claim.id, UNLOGGED + held);
        settlements.push({ ...claim, next: retryAt });
      }
    });
    if (marked.length > 0)
      await this.scripts.command((redis) => redis.hset(this.heldKey, ...marked));
    await this.settle(settlements, now);
  }

  async advanceLane(lane: string, id: string, now: number): Promise<void> {
    await this.runSettle([{ id, host: '', lane }], now);
  }

  /** A lane's list: in the queue's hash tag, so one script may change both. */
  private laneKey(lane: string): string {
    return `${this.key}:lane:${lane}`;
  }

  size(): Promise<number> {
    return this.scripts.command((redis) => redis.zcard(this.key));
  }

  async complete(): Promise<boolean> {
    return (await this.scripts.command((redis) => redis.exists(this.completeKey))) === 1;
  }

  async startRebuild(ttlMs: number): Promise<boolean> {
    const taken = await this.scripts.command((redis) =>
      redis.set(this.rebuildKey, String(process.pid), 'PX', ttlMs, 'NX'),
    );
    return taken === 'OK';
  }

  async finishRebuild(): Promise<void> {
    await this.scripts.command((redis) =>
      redis.multi().set(this.completeKey, '1').del(this.rebuildKey).exec(),
    );
  }

  async close(): Promise<void> {
    if (!this.ownsConnection) return;
    // quit() is a command: without a connection it cannot be sent, so the client just stops.
    if (this.redis.status === 'ready') await this.redis.quit().catch(() => this.redis.disconnect());
    else this.redis.disconnect();
  }
}
