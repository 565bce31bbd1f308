"""The Redis channel layer as a deployment needs it: Redis may restart, and the process's
websockets must not die with it (issue 26).

channels_redis's core layer reads each process's messages in a loop of 5-second blocking
``BZPOPMIN`` calls, and Channels runs that read beside every consumer's socket: an error
there ends the consumer, so one Redis restart closed every socket of the process, chat
sockets included (they join no group). Here a failed read is a quiet empty read after a
back-off, and when Redis answers again the groups this process's consumers joined are
joined again (a restarted Redis without persistence has forgotten them). Messages sent
while Redis was down are lost, as the pages expect: they replay from the database.
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections import defaultdict
from typing import Any

from channels_redis.core import RedisChannelLayer
from redis.exceptions import ConnectionError as RedisConnectionError
from redis.exceptions import TimeoutError as RedisTimeoutError

logger = logging.getLogger(__name__)

# What Redis going away looks like from a client: refused, reset, or no answer in time.
REDIS_UNREACHABLE = (RedisConnectionError, RedisTimeoutError, OSError)


class ReconnectingRedisChannelLayer(RedisChannelLayer):  # type: ignore[misc]  # untyped base
    def __init__(
        self,
        *args: Any,
        reconnect_first_delay: float = 0.25,
        reconnect_max_delay: float = 5.0,
        **kwargs: Any,
    ) -> None:
        super().__init__(*args, **kwargs)
        self.reconnect_first_delay = reconnect_first_delay
        self.reconnect_max_delay = reconnect_max_delay
        # channel -> the groups it joined, kept in this process to join them again.
        self.memberships: defaultdict[str, set[str]] = defaultdict(set)
        self.rejoin_needed = False
        self.failures = 0
        self.down_since: float | None = None

    async def group_add(self, group: str, channel: str) -> None:
        self.memberships[channel].add(group)
        try:
            await super().group_add(group, channel)
        except REDIS_UNREACHABLE as error:
            # The socket stays: the receive loop joins the group once Redis answers.
            logger.warning("channel layer: could not join %s (%s); joining later", group, error)
            self.rejoin_needed = True

    async def group_discard(self, group: str, channel: str) -> None:
        groups = self.memberships.get(channel)
        if groups is not None:
            groups.discard(group)
            if not groups:
                del self.memberships[channel]
        try:
            await super().group_discard(group, channel)
        except REDIS_UNREACHABLE as error:
            # A stale membership expires (group_expiry); messages to a gone channel too.
            logger.warning("channel layer: could not leave %s (%s)", group, error)

    async def _rejoin(self) -> None:
        for channel, groups in list(self.memberships.items()):
            for group in list(groups):
                await super().group_add(group, channel)
        self.rejoin_needed = False

    async def _brpop_with_clean(self, index: int, channel: str, timeout: float) -> Any:
        """One blocking read of the process's messages. A Redis that cannot be reached
        reads as nothing, after a back-off; the caller (``receive_single``) reads again."""
        try:
            if self.rejoin_needed:
                await self._rejoin()
            member = await super()._brpop_with_clean(index, channel, timeout)
        except REDIS_UNREACHABLE as error:
            await self._wait_after(error)
            return None
        finally:
            _raise_a_swallowed_cancel()
        if self.down_since is not None:
            logger.warning(
                "channel layer: Redis answers again after %.1f s",
                time.monotonic() - self.down_since,
            )
        self.failures = 0
        self.down_since = None
        return member

    async def _wait_after(self, error: Exception) -> None:
        if self.down_since is None:
            self.down_since = time.monotonic()
            logger.warning("channel layer: Redis unreachable (%s); reconnecting", error)
        self.rejoin_needed = True
        delay = min(self.reconnect_max_delay, self.reconnect_first_delay * 2**self.failures)
        self.failures += 1
        await asyncio.sleep(delay)


def _raise_a_swallowed_cancel() -> None:
    """End a read whose task was cancelled but carried on. On Python 3.11, redis-py sends
    each command inside ``asyncio.wait_for``, which returns the send's result and drops the
    cancel when both land in the same loop turn (CPython gh-86296, fixed in 3.12): the
    read of a socket that closed then looped forever, keeping its consumer, a pooled Redis
    connection and uvicorn's shutdown waiting ("Waiting for background tasks"). Checked
    after a whole read, so no reply is left unread on the connection; a message already
    taken stays in its backup queue and is read again (channels_redis)."""
    task = asyncio.current_task()
    if task is not None and task.cancelling():
        raise asyncio.CancelledError
