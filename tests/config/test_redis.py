"""Redis as channel layer and job broker, as a deployment with REDIS_URL runs it."""

from __future__ import annotations

import pytest
from channels_redis.core import RedisChannelLayer
from django.conf import settings
from django_q.brokers import get_broker


@pytest.mark.asyncio
async def test_the_redis_channel_layer_delivers_group_messages(redis_url: str) -> None:
    layer = RedisChannelLayer(hosts=[redis_url], prefix="cairn-test")
    channel = await layer.new_channel()
    await layer.group_add("user.42", channel)

    await layer.group_send("user.42", {"type": "user.event", "payload": {"done": 1}})

    assert await layer.receive(channel) == {"type": "user.event", "payload": {"done": 1}}
    await layer.flush()


def test_settings_switch_to_redis_when_redis_url_is_set(redis_url: str) -> None:
    layer = settings.CHANNEL_LAYERS["default"]
    assert layer["BACKEND"] == "apps.core.channel_layer.ReconnectingRedisChannelLayer"
    # Reads outlast channels_redis's 5 s blocking read (issue 26: every idle socket died).
    host = layer["CONFIG"]["hosts"][0]
    assert host["address"] == redis_url
    assert host["socket_timeout"] > RedisChannelLayer.brpop_timeout
    assert settings.Q_CLUSTER["redis"] == redis_url


def test_the_redis_job_broker_enqueues_and_dequeues(redis_url: str) -> None:
    broker = get_broker(list_key="cairn-test-queue")
    broker.purge_queue()

    broker.enqueue("payload-1")
    assert broker.queue_size() == 1
    task_id, payload = broker.dequeue()[0]

    assert payload in ("payload-1", b"payload-1")  # redis returns bytes
    broker.acknowledge(task_id)
    broker.purge_queue()
