"""Lua scripts: each is one atomic step on Redis (no read-then-write races between
replicas). Times come from Redis's own clock (``TIME``), so replicas' clocks may differ."""

from __future__ import annotations

_NOW = "local t = redis.call('TIME'); local now = t[1] * 1000 + math.floor(t[2] / 1000)\n"

# KEYS: lease, meta, running. ARGV: turn id, lease ms, meta ttl ms, meta field/value pairs.
# Returns nil when this turn now holds the session's lease, else the running turn's id.
CLAIM = (
    _NOW
    + """
if not redis.call('SET', KEYS[1], ARGV[1], 'NX', 'PX', ARGV[2]) then
  return redis.call('GET', KEYS[1])
end
redis.call('HSET', KEYS[2], unpack(ARGV, 4))
redis.call('PEXPIRE', KEYS[2], ARGV[3])
redis.call('ZADD', KEYS[3], now + tonumber(ARGV[2]), ARGV[1])
return nil
"""
)

# KEYS: lease, running, swept, cancel. ARGV: turn id, lease ms.
# A lease that lapsed while nobody took it is taken again (Redis restarted, a slow tick);
# one another turn holds, or a turn already swept as interrupted, is lost.
RENEW = (
    _NOW
    + """
if redis.call('EXISTS', KEYS[3]) == 1 then return 'swept' end
local holder = redis.call('GET', KEYS[1])
if holder and holder ~= ARGV[1] then return 'lost' end
redis.call('SET', KEYS[1], ARGV[1], 'PX', ARGV[2])
redis.call('ZADD', KEYS[2], now + tonumber(ARGV[2]), ARGV[1])
if redis.call('EXISTS', KEYS[4]) == 1 then return 'cancel' end
return 'ok'
"""
)

# KEYS: turns' event streams. ARGV: MAXLEN (approximate), then per stream: "1" when it must
# exist already, a TTL in ms to give it (0: none), how many entries, and id/field/value for
# each. Several turns' events in one command, one reply. Returns per stream how many were
# added, -1 when it had to exist and Redis lost it (restarted), or -2 when Redis refused an
# entry (an id not after the last): that stream stops there, the others go on.
APPEND = """
local at = 2
local added = {}
for k = 1, #KEYS do
  local must_exist, ttl, n = ARGV[at], ARGV[at + 1], tonumber(ARGV[at + 2])
  local first = at + 3
  at = first + 3 * n
  local written = 0
  if must_exist == '1' and redis.call('EXISTS', KEYS[k]) == 0 then
    written = -1
  else
    for i = first, at - 1, 3 do
      local reply = redis.pcall('XADD', KEYS[k], 'MAXLEN', '~', ARGV[1],
        ARGV[i], ARGV[i + 1], ARGV[i + 2])
      if type(reply) == 'table' and reply.err then written = -2 break end
      written = written + 1
    end
    if ttl ~= '0' and written > 0 then redis.call('PEXPIRE', KEYS[k], ttl) end
  end
  added[k] = written
end
return added
"""

# KEYS: lease, running. ARGV: turn id. Frees the session only if this turn holds it.
RELEASE = """
if redis.call('GET', KEYS[1]) == ARGV[1] then redis.call('DEL', KEYS[1]) end
redis.call('ZREM', KEYS[2], ARGV[1])
return 1
"""

# KEYS: running. ARGV: how many. Turns whose lease expiry has passed.
EXPIRED = (
    _NOW
    + """
return redis.call('ZRANGEBYSCORE', KEYS[1], '-inf', now, 'LIMIT', 0, tonumber(ARGV[1]))
"""
)

# KEYS: the key's window (sorted set). ARGV: limit, window ms, a unique member.
# A sliding-window log: -1 when allowed (and counted), else the ms until a slot frees.
RATE = (
    _NOW
    + """
local window = tonumber(ARGV[2])
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', now - window)
if redis.call('ZCARD', KEYS[1]) >= tonumber(ARGV[1]) then
  local oldest = redis.call('ZRANGE', KEYS[1], 0, 0, 'WITHSCORES')
  return tonumber(oldest[2]) + window - now
end
redis.call('ZADD', KEYS[1], now, ARGV[3])
redis.call('PEXPIRE', KEYS[1], window)
return -1
"""
)
