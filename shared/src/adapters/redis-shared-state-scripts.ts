/**
 * Lua scripts of the Redis SharedState. Each runs atomically on the server, so replicas never
 * interleave a read with the write that depends on it. Times come from the Redis clock (TIME),
 * so replicas with skewed clocks still agree on rate-limit windows.
 */

/** KEYS[1] counter; ARGV amount, ttlSeconds (0 = none). The TTL is set only when the key is created. */
export const INCREMENT_BY = `
local existed = redis.call('EXISTS', KEYS[1]) == 1
local total = redis.call('INCRBY', KEYS[1], ARGV[1])
local ttl = tonumber(ARGV[2])
if not existed and ttl > 0 then redis.call('EXPIRE', KEYS[1], ttl) end
return total
`;

/**
 * KEYS[1] counter; ARGV amount, limit, ttlSeconds, onlyIfExists (1|0). Returns {granted 0|1, total},
 * or {-1, 0} when onlyIfExists and the counter is absent.
 */
export const RESERVE = `
if ARGV[4] == '1' and redis.call('EXISTS', KEYS[1]) == 0 then return {-1, 0} end
local current = tonumber(redis.call('GET', KEYS[1]) or '0')
local amount = tonumber(ARGV[1])
if current + amount > tonumber(ARGV[2]) then return {0, current} end
local existed = redis.call('EXISTS', KEYS[1]) == 1
local total = redis.call('INCRBY', KEYS[1], amount)
local ttl = tonumber(ARGV[3])
if not existed and ttl > 0 then redis.call('EXPIRE', KEYS[1], ttl) end
return {1, total}
`;

/** KEYS[1] counter; ARGV value, ttlSeconds. Creates the counter unless it exists; returns {created 0|1, total}. */
export const SET_IF_ABSENT = `
if redis.call('SET', KEYS[1], ARGV[1], 'NX', 'EX', ARGV[2]) then return {1, tonumber(ARGV[1])} end
return {0, tonumber(redis.call('GET', KEYS[1]))}
`;

/** KEYS[1] counter; ARGV amount. Floors at 0 and keeps the TTL; an absent counter stays absent. */
export const RELEASE = `
if redis.call('EXISTS', KEYS[1]) == 0 then return 0 end
local total = redis.call('DECRBY', KEYS[1], ARGV[1])
if total < 0 then
  redis.call('SET', KEYS[1], 0, 'KEEPTTL')
  total = 0
end
return total
`;

/**
 * KEYS[1] log (sorted set: score = time ms, member = "<nonce>:<weight>"), KEYS[2] sum of the
 * weights in the log; ARGV windowMs, limit, weight, nonce. Returns {allowed 0|1, remaining, resetMs}.
 */
export const SLIDING_WINDOW_HIT = `
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local window = tonumber(ARGV[1])
local limit = tonumber(ARGV[2])
local weight = tonumber(ARGV[3])
local function weightOf(member) return tonumber(string.match(member, ':(%d+)$')) end

local expired = redis.call('ZRANGEBYSCORE', KEYS[1], '-inf', now - window)
if #expired > 0 then
  local gone = 0
  for _, member in ipairs(expired) do gone = gone + weightOf(member) end
  redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', now - window)
  redis.call('DECRBY', KEYS[2], gone)
end
local used = tonumber(redis.call('GET', KEYS[2]) or '0')
local allowed = used + weight <= limit
if allowed then
  redis.call('ZADD', KEYS[1], now, ARGV[4] .. ':' .. weight)
  used = redis.call('INCRBY', KEYS[2], weight)
end
if used > 0 then
  redis.call('PEXPIRE', KEYS[1], window)
  redis.call('PEXPIRE', KEYS[2], window)
end

-- Only the oldest hits are read: all of them when allowed would be O(window) per call.
local reset = 0
if allowed then
  local oldest = redis.call('ZRANGE', KEYS[1], 0, 0, 'WITHSCORES')
  if #oldest > 0 then reset = tonumber(oldest[2]) + window - now end
else
  local needed = used + weight - limit
  local freed = 0
  local from = 0
  local done = false
  while not done do
    local hits = redis.call('ZRANGE', KEYS[1], from, from + 99, 'WITHSCORES')
    if #hits == 0 then break end
    if from == 0 then reset = window end -- heavier than what the window holds: it never fits
    for i = 1, #hits, 2 do
      freed = freed + weightOf(hits[i])
      if freed >= needed then
        reset = tonumber(hits[i + 1]) + window - now
        done = true
        break
      end
    end
    from = from + 100
  end
end
local remaining = limit - used
if remaining < 0 then remaining = 0 end
return {allowed and 1 or 0, remaining, reset}
`;

/** KEYS[1] lock; ARGV token. Deletes only the holder's own lock. */
export const RELEASE_LOCK = `
if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('DEL', KEYS[1]) end
return 0
`;

/** KEYS[1] lock; ARGV token, ttlMs. Renews only the holder's own lock. */
export const EXTEND_LOCK = `
if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('PEXPIRE', KEYS[1], ARGV[2]) end
return 0
`;

/** KEYS[1] key; ARGV value, ttlSeconds. Returns the existing value, or nil after storing value. */
export const REMEMBER = `
local existing = redis.call('GET', KEYS[1])
if existing then return existing end
redis.call('SET', KEYS[1], ARGV[1], 'EX', ARGV[2])
return false
`;
