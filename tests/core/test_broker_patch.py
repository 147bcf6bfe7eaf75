"""config/broker_patch.py: a worker survives losing Redis with tasks in flight."""

from __future__ import annotations

import uuid

import pytest
from django.conf import settings
from kombu import Connection, Exchange, Queue
from kombu.transport import redis as kombu_redis

from config import broker_patch


def _channel_released_with_an_unacked_message():
    """What the worker's consumer holds when the connection drops mid-task:
    a channel with one delivered, unacknowledged message whose connection
    object was already released."""
    name = f"broker-patch-{uuid.uuid4().hex[:8]}"
    connection = Connection(settings.REDIS_URL)
    channel = connection.default_channel
    queue = Queue(name, Exchange(name), name, channel=channel)
    queue.declare()
    connection.Producer(channel).publish({"n": 1}, exchange=queue.exchange, routing_key=name)
    assert queue.get(no_ack=False) is not None
    assert len(channel.qos._delivered) == 1
    connection._do_close_transport()
    return channel, queue


def test_closing_a_released_channel_with_unacked_tasks_does_not_raise(caplog):
    assert kombu_redis.QoS.restore_unacked is broker_patch._restore_unacked_unless_released
    channel, queue = _channel_released_with_an_unacked_message()
    channel.close()  # raised AttributeError ('hostname') before the patch: the worker exited
    assert "broker connection lost with 1 unacknowledged task(s)" in caplog.text
    with Connection(settings.REDIS_URL) as cleanup:
        queue(cleanup.default_channel).delete()


def test_a_task_finishing_after_its_channel_closed_is_left_unacked(caplog):
    channel, queue = _channel_released_with_an_unacked_message()
    tag = next(iter(channel.qos._delivered))
    channel.close()
    channel.qos.ack(tag)  # raised AttributeError ('client') before the patch
    channel.qos.reject(tag)
    assert f"task {tag} is left unacknowledged" in caplog.text
    with Connection(settings.REDIS_URL) as cleanup:
        queue(cleanup.default_channel).delete()


def test_kombu_still_has_the_bug_the_patch_works_around(monkeypatch):
    """When this fails, kombu fixed it: config/broker_patch.py can go."""
    monkeypatch.setattr(kombu_redis.QoS, "restore_unacked", broker_patch._restore_unacked)
    channel, queue = _channel_released_with_an_unacked_message()
    with pytest.raises(AttributeError, match="hostname"):
        channel.close()
    with Connection(settings.REDIS_URL) as cleanup:
        queue(cleanup.default_channel).delete()
