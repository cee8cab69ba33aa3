"""The class store's operations that read and write several Redis keys, each one Lua script so that it
runs at once (no other process's command in between) and in one round trip.

Every key of a class starts with the store's prefix (ARGV[1], "speclab:"); every family has a cap
and an expiry (shell.store.redis.store lists them). A script that changes the poll publishes its event
(ARGV: the message) on the class's channel in the same step.
"""
from __future__ import annotations

# A process says it is here: its sessions, its pages' expiry; the processes gone silent (their
# `proc:` key expired) are forgotten with their pages; every class key's expiry starts again.
# ARGV: prefix, proc, sessions, server, gone_after, ttl, announce ("1"/""), message
HEARTBEAT = """
local p, me = ARGV[1], ARGV[2]
redis.call('HSET', p..'proc:'..me, 'sessions', ARGV[3], 'server', ARGV[4])
redis.call('EXPIRE', p..'proc:'..me, ARGV[5])
redis.call('EXPIRE', p..'presence:'..me, ARGV[5])
redis.call('SADD', p..'procs', me)
local gone = 0
for _, id in ipairs(redis.call('SMEMBERS', p..'procs')) do
  if redis.call('EXISTS', p..'proc:'..id) == 0 then
    redis.call('SREM', p..'procs', id)
    redis.call('DEL', p..'presence:'..id)
    gone = gone + 1
  end
end
for _, k in ipairs({'secret', 'run', 'questions', 'revealed', 'procs', 'snapshots', 'snapshot-order',
                    'values', 'versions', 'value-order', 'outcome-order', 'outcome-bytes', 'seq'}) do
  redis.call('EXPIRE', p..k, ARGV[6])
end
for _, n in ipairs(redis.call('HKEYS', p..'questions')) do
  redis.call('EXPIRE', p..'votes:'..n, ARGV[6])
end
if ARGV[7] == '1' or gone > 0 then
  redis.call('PUBLISH', p..'events', ARGV[8])
end
return gone
"""

# The other live processes' open pages. ARGV: prefix, proc
SESSIONS = """
local p, total = ARGV[1], 0
for _, id in ipairs(redis.call('SMEMBERS', p..'procs')) do
  if id ~= ARGV[2] then
    total = total + (tonumber(redis.call('HGET', p..'proc:'..id, 'sessions')) or 0)
  end
end
return total
"""

# A question's votes, the voters with a page open in a live process, revealed or not. ARGV: prefix, n
POLL_STATE = """
local p, n = ARGV[1], ARGV[2]
local present = {}
for _, id in ipairs(redis.call('SMEMBERS', p..'procs')) do
  if redis.call('EXISTS', p..'proc:'..id) == 1 then
    for _, voter in ipairs(redis.call('HVALS', p..'presence:'..id)) do
      table.insert(present, voter)
    end
  end
end
return {redis.call('HGETALL', p..'votes:'..n), present, redis.call('SISMEMBER', p..'revealed', n)}
"""

# A voter's answer (its field: the voter, or left: + the voter when left out of the histogram).
# ARGV: prefix, n, voter, answer, left ("1"/""), cap, ttl, message
VOTE = """
local p, n, voter = ARGV[1], ARGV[2], ARGV[3]
local votes = p..'votes:'..n
local key, had = voter, redis.call('HGET', votes, voter)
if not had then
  key, had = 'left:'..voter, redis.call('HGET', votes, 'left:'..voter)
end
if had and had == ARGV[4] then return 'same' end
if redis.call('SISMEMBER', p..'revealed', n) == 1 then return 'revealed' end
if not had then
  if redis.call('HLEN', votes) >= tonumber(ARGV[6]) then return 'full' end
  key = (ARGV[5] == '1') and ('left:'..voter) or voter
end
redis.call('HSET', votes, key, ARGV[4])
redis.call('EXPIRE', votes, ARGV[7])
redis.call('PUBLISH', p..'events', ARGV[8])
return 'counted'
"""

# Forget a question's votes and hide it again; n = '' for every question. ARGV: prefix, n, message
CLEAR = """
local p, n = ARGV[1], ARGV[2]
if n == '' then
  for _, q in ipairs(redis.call('HKEYS', p..'questions')) do redis.call('DEL', p..'votes:'..q) end
  redis.call('DEL', p..'revealed')
else
  redis.call('DEL', p..'votes:'..n)
  redis.call('SREM', p..'revealed', n)
end
redis.call('PUBLISH', p..'events', ARGV[3])
return 1
"""

# The browsers' snapshots, the `keep` newest. ARGV: prefix, keep, ttl, browser, blob, browser, blob …
SNAPSHOTS = """
local p = ARGV[1]
for i = 4, #ARGV, 2 do
  redis.call('HSET', p..'snapshots', ARGV[i], ARGV[i + 1])
  redis.call('ZADD', p..'snapshot-order', redis.call('INCR', p..'seq'), ARGV[i])
end
local extra = redis.call('ZCARD', p..'snapshot-order') - tonumber(ARGV[2])
if extra > 0 then
  for _, old in ipairs(redis.call('ZRANGE', p..'snapshot-order', 0, extra - 1)) do
    redis.call('HDEL', p..'snapshots', old)
  end
  redis.call('ZREMRANGEBYRANK', p..'snapshot-order', 0, extra - 1)
end
redis.call('EXPIRE', p..'snapshots', ARGV[3])
redis.call('EXPIRE', p..'snapshot-order', ARGV[3])
return 1
"""

# A shared value and its version; the newest outcomes kept by count and by bytes, the newest other
# values by count. ARGV: prefix, key, value, keep outcomes, keep bytes, keep values, ttl
PUT = """
local p, key, value = ARGV[1], ARGV[2], ARGV[3]
local version = redis.call('HINCRBY', p..'versions', key, 1)
redis.call('HSET', p..'values', key, value)
local seq = redis.call('INCR', p..'seq')
local function forget(k)
  redis.call('HDEL', p..'values', k)
  redis.call('HDEL', p..'versions', k)
  redis.call('HDEL', p..'outcome-bytes', k)
  redis.call('ZREM', p..'outcome-order', k)
  redis.call('ZREM', p..'value-order', k)
end
if string.sub(key, 1, 8) == 'outcome:' then
  redis.call('ZADD', p..'outcome-order', seq, key)
  redis.call('HSET', p..'outcome-bytes', key, string.len(value))
  local total = 0
  for _, size in ipairs(redis.call('HVALS', p..'outcome-bytes')) do total = total + tonumber(size) end
  while redis.call('ZCARD', p..'outcome-order') > tonumber(ARGV[4])
        or (total > tonumber(ARGV[5]) and redis.call('ZCARD', p..'outcome-order') > 1) do
    local oldest = redis.call('ZRANGE', p..'outcome-order', 0, 0)[1]
    total = total - (tonumber(redis.call('HGET', p..'outcome-bytes', oldest)) or 0)
    forget(oldest)
  end
else
  redis.call('ZADD', p..'value-order', seq, key)
  local extra = redis.call('ZCARD', p..'value-order') - tonumber(ARGV[6])
  if extra > 0 then
    for _, old in ipairs(redis.call('ZRANGE', p..'value-order', 0, extra - 1)) do forget(old) end
  end
end
for _, k in ipairs({'values', 'versions', 'value-order', 'outcome-order', 'outcome-bytes', 'seq'}) do
  redis.call('EXPIRE', p..k, ARGV[7])
end
return version
"""

# Forget every shared value whose key starts with the prefix ARGV[2].
DROP = """
local p, start = ARGV[1], ARGV[2]
for _, k in ipairs(redis.call('HKEYS', p..'values')) do
  if string.sub(k, 1, string.len(start)) == start then
    redis.call('HDEL', p..'values', k)
    redis.call('HDEL', p..'versions', k)
    redis.call('HDEL', p..'outcome-bytes', k)
    redis.call('ZREM', p..'outcome-order', k)
    redis.call('ZREM', p..'value-order', k)
  end
end
return 1
"""

# One field set if new (a question's spec, a reveal), its event published if so.
# ARGV: prefix, command ('HSETNX' questions n spec | 'SADD' revealed n), key, field, value, ttl, message
ADD = """
local p = ARGV[1]
local new
if ARGV[2] == 'HSETNX' then
  new = redis.call('HSETNX', p..ARGV[3], ARGV[4], ARGV[5])
else
  new = redis.call('SADD', p..ARGV[3], ARGV[4])
end
redis.call('EXPIRE', p..ARGV[3], ARGV[6])
if new == 1 then redis.call('PUBLISH', p..'events', ARGV[7]) end
return new
"""

# A page of this process opens (ARGV: prefix, proc, session, voter, cap, gone_after, message) …
JOIN = """
local p, me = ARGV[1], ARGV[2]
local here = p..'presence:'..me
if redis.call('HEXISTS', here, ARGV[3]) == 0 and redis.call('HLEN', here) >= tonumber(ARGV[5]) then
  return 0
end
redis.call('HSET', here, ARGV[3], ARGV[4])
redis.call('EXPIRE', here, ARGV[6])
redis.call('SADD', p..'procs', me)
redis.call('PUBLISH', p..'events', ARGV[7])
return 1
"""

# … and closes (ARGV: prefix, proc, session, message).
LEAVE = """
local gone = redis.call('HDEL', ARGV[1]..'presence:'..ARGV[2], ARGV[3])
if gone == 1 then redis.call('PUBLISH', ARGV[1]..'events', ARGV[4]) end
return gone
"""
