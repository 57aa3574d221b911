"""Variants of the counts a broker reports: where the specification leaves open what a
count includes, another broker may count otherwise than RabbitMQ."""

from __future__ import annotations

from pamqp import commands as spec

from tests.frame_proxy import changed, replaced
from .base import AMQP_SPEC, Variant

UNACKED = "unacked by queue"  # FrameProxy.shared: (link id, channel, delivery tag) -> queue


class DeleteOkCountsUnacked(Variant):
    """queue.delete-ok counts, beside the ready messages RabbitMQ counts, the deliveries
    of that queue a client still holds unacknowledged on an open channel (on any
    connection): a broker that deletes those messages with their queue."""

    allowed_by = (AMQP_SPEC, "delete-ok's message-count reports the messages deleted; whether a message a "
                             "consumer holds unacknowledged is deleted with its queue, the specification "
                             "does not say (queue.delete, delete-ok message-count)")

    def from_client(self, link, cmd):
        method, unacked = cmd.method, link.shared.setdefault(UNACKED, {})
        pending = link.state.setdefault(("pending", cmd.channel), [])
        if isinstance(method, spec.Basic.Consume):
            link.state.setdefault(("consumes", cmd.channel), []).append((method.queue, method.no_ack))
        elif isinstance(method, spec.Basic.Get):
            pending.append(("get", method.queue, method.no_ack))
        elif isinstance(method, spec.Queue.Delete) and not method.nowait:
            pending.append(("delete", method.queue, None))
        elif isinstance(method, (spec.Basic.Ack, spec.Basic.Reject, spec.Basic.Nack)):
            multiple = getattr(method, "multiple", False)
            for key in [key for key in unacked if key[:2] == (link.id, cmd.channel)
                        and (key[2] == method.delivery_tag or multiple and (not method.delivery_tag
                                                                            or key[2] <= method.delivery_tag))]:
                del unacked[key]
        elif isinstance(method, (spec.Basic.Recover, spec.Channel.Close, spec.Channel.CloseOk)):
            self._forget(link, cmd.channel)  # requeued: the broker counts them as ready again
        elif isinstance(method, (spec.Connection.Close, spec.Connection.CloseOk)):
            self._forget(link, None)
        return None

    def from_broker(self, link, cmd):
        method, unacked = cmd.method, link.shared.setdefault(UNACKED, {})
        pending = link.state.setdefault(("pending", cmd.channel), [])
        consumers = link.state.setdefault(("consumers", cmd.channel), {})
        if isinstance(method, spec.Basic.ConsumeOk):
            consumes = link.state.get(("consumes", cmd.channel)) or [("", True)]
            consumers[method.consumer_tag] = consumes.pop(0)
        elif isinstance(method, spec.Basic.Deliver):
            queue, no_ack = consumers.get(method.consumer_tag, ("", True))
            if queue and not no_ack:
                unacked[(link.id, cmd.channel, method.delivery_tag)] = queue
        elif isinstance(method, (spec.Basic.GetOk, spec.Basic.GetEmpty)) and pending and pending[0][0] == "get":
            _, queue, no_ack = pending.pop(0)
            if isinstance(method, spec.Basic.GetOk) and queue and not no_ack:
                unacked[(link.id, cmd.channel, method.delivery_tag)] = queue
        elif isinstance(method, spec.Queue.DeleteOk) and pending and pending[0][0] == "delete":
            _, queue, _ = pending.pop(0)
            held = [key for key, of in unacked.items() if queue and of == queue]
            for key in held:
                del unacked[key]
            if held:
                return replaced(cmd, changed(method, message_count=method.message_count + len(held)))
        elif isinstance(method, (spec.Channel.Close, spec.Channel.CloseOk)):
            self._forget(link, cmd.channel)
        elif isinstance(method, (spec.Connection.Close, spec.Connection.CloseOk)):
            self._forget(link, None)
        return None

    async def on_eof(self, link, direction):
        self._forget(link, None)

    @staticmethod
    def _forget(link, channel: int | None) -> None:
        """A closed channel's (or connection's) deliveries go back to their queues."""
        unacked = link.shared.setdefault(UNACKED, {})
        for key in [key for key in unacked if key[0] == link.id and channel in (None, key[1])]:
            del unacked[key]
        for key in [key for key in link.state if channel in (None, key[1])]:
            del link.state[key]


VARIANTS = [DeleteOkCountsUnacked]
