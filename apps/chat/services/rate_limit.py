"""How many turns a person may start: one rule for every door that starts one (the
websocket, REST), applied by the turn itself (apps/chat/turn.py), so no door can skip it."""

from __future__ import annotations

import logging
import math
import time
from dataclasses import dataclass

from django.conf import settings
from django.core.cache import cache
from redis.exceptions import RedisError

logger = logging.getLogger(__name__)


@dataclass(frozen=True)
class TurnsExhausted:
    """The person has started as many turns as the window allows."""

    retry_after: int  # whole seconds until the window ends

    @property
    def message(self) -> str:
        wait = "a second" if self.retry_after == 1 else f"{self.retry_after} seconds"
        return f"Too many messages at once; wait {wait} and send it again."


def _limit() -> tuple[int, int]:
    turns, seconds = (int(part) for part in settings.CAIRN_CHAT_RATE_LIMIT.split("/"))
    return turns, seconds


def turn_rate_limit_take(*, user_id: int) -> TurnsExhausted | None:
    """Count one turn for ``user_id`` (CAIRN_CHAT_RATE_LIMIT = "turns/seconds"); None
    when it may start, else how long to wait. Fixed windows aligned on the clock, in the
    cache, so the count holds across processes when the cache is Redis."""
    turns, seconds = _limit()
    now = time.time()
    window = int(now // seconds)
    key = f"chat-rate:{user_id}:{window}"
    try:
        cache.add(key, 0, timeout=seconds + 1)
        try:
            taken = cache.incr(key)
        except ValueError:  # the key expired between add and incr: a fresh window
            cache.add(key, 1, timeout=seconds + 1)
            taken = 1
    except (RedisError, OSError) as error:
        # Redis down: a turn needs only the database, so the limit gives way (issue 26).
        logger.warning("rate limit not checked, the cache is unreachable: %s", error)
        return None
    if taken <= turns:
        return None
    return TurnsExhausted(retry_after=max(1, math.ceil((window + 1) * seconds - now)))
