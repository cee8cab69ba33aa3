"""The class store on a Redis server, for a class served from several machines.

    store      RedisStore: the connection, its faults and rejoining, processes, pub/sub events
    rows       the poll, the snapshots and the shared values as Redis keys
    scripts    the Lua scripts that change several keys in one step

Needs the `redis` client package (requirements.txt) and a Redis server (Debian's redis-server).
"""
