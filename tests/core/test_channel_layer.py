"""The Redis channel layer across a Redis restart (apps/core/channel_layer.py), against a
Redis of the test's own: a read never fails its consumer, and the groups joined before the
restart (or while Redis was down) are joined again once it answers."""

from __future__ import annotations

import asyncio
import contextlib
import subprocess
from typing import Any

import pytest

from apps.core.channel_layer import REDIS_UNREACHABLE, ReconnectingRedisChannelLayer
from tests.processes import start_redis


async def _delivered(
    layer: ReconnectingRedisChannelLayer, group: str, reading: asyncio.Future[Any]
) -> Any:
    """Publish to ``group`` until the pending ``reading`` gets it: the layer joins its
    groups again on its next read after Redis is back, a moment after the restart."""
    for _ in range(100):
        with contextlib.suppress(*REDIS_UNREACHABLE):  # Redis may still be starting
            await layer.group_send(group, {"type": "user.event", "group": group})
        done, _ = await asyncio.wait({reading}, timeout=0.3)
        if done:
            return reading.result()
    raise AssertionError(f"nothing reached {group} after Redis came back")


@pytest.mark.redis
@pytest.mark.asyncio
async def test_a_redis_restart_neither_fails_the_read_nor_loses_the_groups(
    own_redis: tuple[int, list[subprocess.Popen[bytes]]],
) -> None:
    port, servers = own_redis
    layer = ReconnectingRedisChannelLayer(
        hosts=[{"address": f"redis://127.0.0.1:{port}/0", "socket_timeout": 15}],
        reconnect_first_delay=0.05,
        reconnect_max_delay=0.2,
    )
    joined_before = await layer.new_channel()
    joined_during = await layer.new_channel()
    await layer.group_add("user.1", joined_before)
    reading = asyncio.ensure_future(layer.receive(joined_before))

    servers[0].terminate()
    servers[0].wait(timeout=10)
    await layer.group_add("user.2", joined_during)  # accepted; joined once Redis is back
    await asyncio.sleep(0.5)
    assert not reading.done()  # the read waits out the outage instead of failing

    servers.append(start_redis(port))  # without persistence: Redis forgot the groups
    assert (await _delivered(layer, "user.1", reading))["group"] == "user.1"
    later = asyncio.ensure_future(layer.receive(joined_during))
    assert (await _delivered(layer, "user.2", later))["group"] == "user.2"
    await layer.group_discard("user.1", joined_before)
    assert joined_before not in layer.memberships
    await layer.flush()


@pytest.mark.redis
@pytest.mark.asyncio
async def test_a_read_whose_cancel_was_swallowed_still_ends(redis_url: str) -> None:
    """On Python 3.11, redis-py's ``asyncio.wait_for`` around each send drops a cancel
    that lands as the send completes: a closed socket's read then went on for ever, and
    uvicorn waited for it at every stop. Here the cancel is dropped the same way (caught,
    never ``uncancel()``-ed), and the read must still end."""
    layer = ReconnectingRedisChannelLayer(hosts=[{"address": redis_url, "socket_timeout": 15}])
    layer.brpop_timeout = 1  # the read notices at the end of its current blocking read
    channel = await layer.new_channel()

    async def read_after_a_dropped_cancel() -> Any:
        asyncio.current_task().cancel()  # type: ignore[union-attr]
        with contextlib.suppress(asyncio.CancelledError):  # as wait_for drops it
            await asyncio.sleep(0)
        return await layer.receive(channel)

    reading = asyncio.ensure_future(read_after_a_dropped_cancel())
    await asyncio.wait({reading}, timeout=30)  # a bound for the failure only
    assert reading.cancelled()
