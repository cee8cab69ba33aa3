import asyncio
import threading
import time

import pytest

from lab.service import ModelService, QueueFull
from lab.tiny import tiny_pair


@pytest.fixture
def service():
    pair = tiny_pair()
    return ModelService(lambda: pair, cache_size=4, max_pending=3)


def test_round_robin_between_owners(service):
    gate = threading.Event()
    order = []
    service.submit(gate.wait, owner="blocker")              # holds the worker while we queue
    futures = [service.submit(order.append, f"A{i}", owner="A") for i in range(3)]
    futures += [service.submit(order.append, "B0", owner="B")]
    gate.set()
    for f in futures:
        f.result(timeout=10)
    assert order == ["A0", "B0", "A1", "A2"]                # B did not wait behind all of A


def test_per_owner_limit_and_forget(service):
    gate = threading.Event()
    service.submit(gate.wait, owner="blocker")
    time.sleep(0.05)
    waiting = [service.submit(time.sleep, 0, owner="A") for _ in range(3)]
    with pytest.raises(QueueFull, match="wait for them to finish"):
        service.submit(time.sleep, 0, owner="A")
    assert service.submit(time.sleep, 0, owner="B").result is not None   # others unaffected
    assert service.forget("A") == 3 and all(f.cancelled() for f in waiting)
    gate.set()


def test_errors_reach_the_caller(service):
    async def go():
        return await service.run_as("A", lambda: 1 / 0)
    with pytest.raises(ZeroDivisionError):
        asyncio.run(go())


def test_identical_requests_computed_once_and_cache_bounded(service):
    ids = service.pair.tokenizer.encode("the cat sat")
    a = service.submit(service.generation, ids, max_new_tokens=5).result(10)
    b = service.submit(service.generation, ids, max_new_tokens=5).result(10)
    assert a is b
    for n in range(6, 12):
        service.submit(service.generation, ids, max_new_tokens=n).result(10)
    assert len(service._cache) == 4
    c = service.submit(service.generation, ids, max_new_tokens=5).result(10)
    assert c is not a and c.new_ids == a.new_ids             # evicted, recomputed, same answer
