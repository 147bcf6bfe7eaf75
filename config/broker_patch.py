"""A workaround for a kombu bug that ends Celery workers when Redis goes away.

When the broker connection drops while tasks are unacknowledged, kombu
(5.7) closes the consumer's channel after the connection object was already
released; closing restores the unacknowledged tasks through a new client,
whose parameters it reads from the released connection: ``AttributeError:
'NoneType' object has no attribute 'hostname'``. Celery takes that for an
unrecoverable error and the worker exits instead of reconnecting (seen by
``tests/reliability/test_redis_restart.py``; the same family as
celery/kombu#970). A task still running then acknowledges through the same
released connection a moment later, with the same result.

With nothing left to restore them through, the tasks are left where they
are: in Redis's unacknowledged index, which hands them out again after the
visibility timeout, or gone with a Redis that restarted empty, in which case
the sweepers find their work in the database (every task claims a row).
"""

from __future__ import annotations

import logging

from kombu.transport import redis as kombu_redis

log = logging.getLogger(__name__)

_restore_unacked = kombu_redis.QoS.restore_unacked
_ack = kombu_redis.QoS.ack
_reject = kombu_redis.QoS.reject


def _released(qos) -> bool:
    transport = qos.channel.connection
    return transport is None or transport.client is None


def _restore_unacked_unless_released(self, client=None):
    if client is None and _released(self):
        log.warning(
            "broker connection lost with %d unacknowledged task(s); they are left to the "
            "visibility timeout and the sweepers",
            len(self._delivered),
        )
        self._delivered.clear()
        return None
    return _restore_unacked(self, client)


def _ack_unless_released(self, delivery_tag):
    # A task that finished after its channel was closed acknowledges through
    # the same released connection. Unacknowledged, it comes back after the
    # visibility timeout, and its claim makes the second run do nothing.
    if _released(self):
        log.warning("broker connection lost; task %s is left unacknowledged", delivery_tag)
        return None
    return _ack(self, delivery_tag)


def _reject_unless_released(self, delivery_tag, requeue=False):
    if _released(self):
        log.warning("broker connection lost; task %s is left unacknowledged", delivery_tag)
        return None
    return _reject(self, delivery_tag, requeue=requeue)


def install() -> None:
    # Replacing kombu's methods is the workaround itself (see the docstring).
    kombu_redis.QoS.restore_unacked = _restore_unacked_unless_released  # type: ignore[method-assign]
    kombu_redis.QoS.ack = _ack_unless_released  # type: ignore[method-assign]
    kombu_redis.QoS.reject = _reject_unless_released  # type: ignore[method-assign]
