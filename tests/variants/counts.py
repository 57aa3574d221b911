"""Variants of the counts a broker reports: where the specification leaves open what a
count includes, another broker may count otherwise than RabbitMQ."""

from __future__ import annotations

from dataclasses import dataclass

from pamqp import commands as spec

from tests.frame_proxy import changed, replaced
from .base import AMQP_SPEC, Variant

UNACKED = "unacked by queue"  # FrameProxy.shared: (link id, channel, delivery tag) -> queue
CONSUMERS = "consumers by key"  # FrameProxy.shared: (link id, channel, consumer tag) -> Consumer


@dataclass
class Consumer:
    queue: str
    no_ack: bool
    limit: int  # its own prefetch limit when it started (basic.qos global=false before it), 0: none


class CountingVariant(Variant):
    """The bookkeeping both count variants need, kept across the proxy's connections: each
    consumer's queue, each delivery a client holds unacknowledged and the queue it came
    from; a closed channel's or connection's are forgotten (the broker requeues them and
    counts them as ready again, and its consumers are gone)."""

    def from_client(self, link, cmd):
        method, unacked = cmd.method, link.shared.setdefault(UNACKED, {})
        if isinstance(method, spec.Basic.Qos):
            link.state[("qos", cmd.channel, method.global_)] = method.prefetch_count
        elif isinstance(method, spec.Basic.Consume):
            limit = link.state.get(("qos", cmd.channel, False), 0)
            link.state.setdefault(("consumes", cmd.channel), []).append(Consumer(method.queue, method.no_ack, limit))
        elif isinstance(method, spec.Basic.Get):
            link.state.setdefault(("gets", cmd.channel), []).append((method.queue, method.no_ack))
        elif isinstance(method, (spec.Basic.Ack, spec.Basic.Reject, spec.Basic.Nack)):
            multiple = getattr(method, "multiple", False)
            for key in [key for key in unacked if key[:2] == (link.id, cmd.channel)
                        and (key[2] == method.delivery_tag or multiple and (not method.delivery_tag
                                                                            or key[2] <= method.delivery_tag))]:
                del unacked[key]
        elif isinstance(method, (spec.Basic.Recover, spec.Channel.Close, spec.Channel.CloseOk)):
            self._forget(link, cmd.channel)
        elif isinstance(method, (spec.Connection.Close, spec.Connection.CloseOk)):
            self._forget(link, None)
        return self.asked(link, cmd)

    def from_broker(self, link, cmd):
        method, unacked = cmd.method, link.shared.setdefault(UNACKED, {})
        consumers = link.shared.setdefault(CONSUMERS, {})
        if isinstance(method, spec.Basic.ConsumeOk):
            started = link.state.get(("consumes", cmd.channel)) or [Consumer("", True, 0)]
            consumers[(link.id, cmd.channel, method.consumer_tag)] = started.pop(0)
        elif isinstance(method, (spec.Basic.CancelOk, spec.Basic.Cancel)):
            consumers.pop((link.id, cmd.channel, method.consumer_tag), None)
        elif isinstance(method, spec.Basic.Deliver):
            consumer = consumers.get((link.id, cmd.channel, method.consumer_tag))
            if consumer and consumer.queue and not consumer.no_ack:
                unacked[(link.id, cmd.channel, method.delivery_tag)] = consumer.queue
        elif isinstance(method, (spec.Basic.GetOk, spec.Basic.GetEmpty)) and link.state.get(("gets", cmd.channel)):
            queue, no_ack = link.state[("gets", cmd.channel)].pop(0)
            if isinstance(method, spec.Basic.GetOk) and queue and not no_ack:
                unacked[(link.id, cmd.channel, method.delivery_tag)] = queue
        elif isinstance(method, (spec.Channel.Close, spec.Channel.CloseOk)):
            self._forget(link, cmd.channel)
        elif isinstance(method, (spec.Connection.Close, spec.Connection.CloseOk)):
            self._forget(link, None)
        return self.answered(link, cmd)

    def asked(self, link, cmd):
        """The variant's own look at what the client sends (None: it goes on as it is)."""
        return None

    def answered(self, link, cmd):
        """The variant's own rewrite of what the broker answers (None: as it is)."""
        return None

    async def on_eof(self, link, direction):
        self._forget(link, None)

    @staticmethod
    def _forget(link, channel: int | None) -> None:
        for book in (link.shared.setdefault(UNACKED, {}), link.shared.setdefault(CONSUMERS, {})):
            for key in [key for key in book if key[0] == link.id and channel in (None, key[1])]:
                del book[key]
        for key in [key for key in link.state if channel in (None, key[1])]:
            del link.state[key]


class DeleteOkCountsUnacked(CountingVariant):
    """queue.delete-ok counts, beside the ready messages RabbitMQ counts, the deliveries
    of that queue a client still holds unacknowledged on an open channel (on any
    connection): a broker that deletes those messages with their queue."""

    allowed_by = (AMQP_SPEC, "delete-ok's message-count reports the messages deleted; whether a message a "
                             "consumer holds unacknowledged is deleted with its queue, the specification "
                             "does not say (queue.delete, delete-ok message-count)")

    def asked(self, link, cmd):
        if isinstance(cmd.method, spec.Queue.Delete) and not cmd.method.nowait:
            link.state.setdefault(("deletes", cmd.channel), []).append(cmd.method.queue)
        return None

    def answered(self, link, cmd):
        method, unacked = cmd.method, link.shared.setdefault(UNACKED, {})
        if isinstance(method, spec.Queue.DeleteOk) and link.state.get(("deletes", cmd.channel)):
            queue = link.state[("deletes", cmd.channel)].pop(0)
            held = [key for key, of in unacked.items() if queue and of == queue]
            for key in held:
                del unacked[key]
            if held:
                return replaced(cmd, changed(method, message_count=method.message_count + len(held)))
        return None


class ActiveConsumersOnly(CountingVariant):
    """queue.declare-ok's consumer-count leaves out the consumers that cannot take a message
    now: those holding as many unacknowledged deliveries as their prefetch limit allows (a
    per-consumer limit, or their channel's global one). RabbitMQ counts every consumer (D16)."""

    allowed_by = (AMQP_SPEC, "consumer-count reports the number of active consumers of the queue, and a "
                             "consumer that has suspended activity is not counted (queue.declare-ok "
                             "consumer-count): which consumers are active the specification leaves to the "
                             "server, and a consumer at its prefetch limit takes no message")

    def answered(self, link, cmd):
        method = cmd.method
        if not isinstance(method, spec.Queue.DeclareOk) or not method.consumer_count:
            return None
        unacked = link.shared.setdefault(UNACKED, {})
        links = {each.id: each for each in link.proxy.links}
        idle = 0
        for (link_id, channel, tag), consumer in link.shared.setdefault(CONSUMERS, {}).items():
            if consumer.queue != method.queue or consumer.no_ack or link_id not in links:
                continue
            held = [key for key in unacked if key[:2] == (link_id, channel)]
            own = links[link_id].tracker.channel(channel).deliveries
            mine = sum(1 for key in held if own.get(key[2]) is not None and own[key[2]].consumer_tag == tag)
            shared_limit = links[link_id].state.get(("qos", channel, True), 0)
            if consumer.limit and mine >= consumer.limit or shared_limit and len(held) >= shared_limit:
                idle += 1
        if idle:
            return replaced(cmd, changed(method, consumer_count=max(0, method.consumer_count - idle)))
        return None


VARIANTS = [DeleteOkCountsUnacked, ActiveConsumersOnly]
