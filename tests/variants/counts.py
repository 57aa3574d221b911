"""Variants of the counts a broker reports: where the specification leaves open what a
count includes, another broker may count otherwise than RabbitMQ."""

from __future__ import annotations

from dataclasses import dataclass

from pamqp import commands as spec

from tests.frame_proxy import changed, replaced
from .base import AMQP_SPEC, Variant

QUEUES = "queues"  # Link.state: ("consumer" or "got", channel, tag) -> the queue a delivery comes from
CLOSED = "closed channels"  # Link.state: channels closed since they were opened (None: the whole connection)


@dataclass
class Held:
    """A delivery a client holds unacknowledged on an open channel, and where it came from."""
    link: object
    channel: int
    queue: str
    consumer_tag: str | None  # None: fetched with basic.get


class CountingVariant(Variant):
    """What the count variants need beyond the frame engine's Tracker, which already
    settles each delivery (ack, nack, reject, multiple, recover): the queue each consumer
    and each fetched delivery comes from, the prefetch limits, and which channels are
    closed (their deliveries went back to their queues, which count them as ready)."""

    def from_client(self, link, cmd):
        method, pending = cmd.method, link.state.setdefault(("pending", cmd.channel), [])
        if isinstance(method, spec.Basic.Qos):
            link.state[("qos", cmd.channel, method.global_)] = method.prefetch_count
        elif isinstance(method, spec.Basic.Consume):
            pending.append(("consume", method.queue, link.state.get(("qos", cmd.channel, False), 0)))
        elif isinstance(method, spec.Basic.Get):
            pending.append(("get", method.queue, 0))
        elif isinstance(method, spec.Queue.Delete) and not method.nowait:
            link.state.setdefault(("deletes", cmd.channel), []).append(method.queue)
        elif isinstance(method, spec.Channel.Open):  # a number used again: nothing of the old channel holds
            link.state.setdefault(CLOSED, set()).discard(cmd.channel)
            link.state[QUEUES] = {key: of for key, of in link.state.get(QUEUES, {}).items() if key[1] != cmd.channel}
            for key in [key for key in link.state if isinstance(key, tuple) and key[1] == cmd.channel]:
                del link.state[key]  # its pending replies, prefetch limits and deletes
        self._note_close(link, cmd)
        return None

    def from_broker(self, link, cmd):
        method, pending = cmd.method, link.state.setdefault(("pending", cmd.channel), [])
        queues = link.state.setdefault(QUEUES, {})
        kind = ("consume" if isinstance(method, spec.Basic.ConsumeOk) else
                "get" if isinstance(method, (spec.Basic.GetOk, spec.Basic.GetEmpty)) else None)
        if kind and pending and pending[0][0] == kind:
            _, queue, limit = pending.pop(0)
            if isinstance(method, spec.Basic.ConsumeOk):
                queues[("consumer", cmd.channel, method.consumer_tag)] = (queue, limit)
            elif isinstance(method, spec.Basic.GetOk):
                queues[("got", cmd.channel, method.delivery_tag)] = (queue, 0)
        self._note_close(link, cmd)
        if isinstance(method, spec.Queue.DeleteOk) and link.state.get(("deletes", cmd.channel)):
            queue = link.state[("deletes", cmd.channel)].pop(0)
            answer = self.on_delete(link, cmd, queue)
            for each in link.proxy.links if queue else ():  # its consumers and deliveries belong to no queue now
                each.state[QUEUES] = {key: of for key, of in each.state.get(QUEUES, {}).items() if of[0] != queue}
            return answer
        return self.answered(link, cmd)

    @staticmethod
    def _note_close(link, cmd) -> None:
        if isinstance(cmd.method, (spec.Channel.Close, spec.Channel.CloseOk)):
            link.state.setdefault(CLOSED, set()).add(cmd.channel)
        elif isinstance(cmd.method, (spec.Connection.Close, spec.Connection.CloseOk)):
            link.state.setdefault(CLOSED, set()).add(None)

    def answered(self, link, cmd):
        """The variant's own rewrite of what the broker answers (None: as it is)."""
        return None

    def on_delete(self, link, cmd, queue: str):
        """Its rewrite of the delete-ok of `queue` (None: as it is), before the queue's
        consumers and deliveries are forgotten."""
        return None

    @staticmethod
    def held(link, queue: str) -> list[Held]:
        """The deliveries of `queue` clients hold unacknowledged on open channels, on every
        connection through the proxy (the Tracker's outstanding ones)."""
        found = []
        for each in link.proxy.links:
            closed = each.state.get(CLOSED, set())
            if None in closed or not each.open:
                continue
            queues = each.state.get(QUEUES, {})
            for channel, state in each.tracker.channels.items():
                if channel in closed:
                    continue
                for tag in state.outstanding:
                    consumer_tag = state.deliveries[tag].consumer_tag
                    key = ("consumer", channel, consumer_tag) if consumer_tag is not None else ("got", channel, tag)
                    if queues.get(key, ("", 0))[0] == queue and queue:
                        found.append(Held(each, channel, queue, consumer_tag))
        return found


class DeleteOkCountsUnacked(CountingVariant):
    """queue.delete-ok counts, beside the ready messages RabbitMQ counts, the deliveries
    of that queue a client still holds unacknowledged on an open channel (on any
    connection): a broker that deletes those messages with their queue."""

    allowed_by = (AMQP_SPEC, "delete-ok's message-count reports the messages deleted; whether a message a "
                             "consumer holds unacknowledged is deleted with its queue, the specification "
                             "does not say (queue.delete, delete-ok message-count)")

    def on_delete(self, link, cmd, queue):
        held = self.held(link, queue)
        if held:
            return replaced(cmd, changed(cmd.method, message_count=cmd.method.message_count + len(held)))
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
        held = self.held(link, method.queue)
        idle = 0
        for each in link.proxy.links:
            closed = each.state.get(CLOSED, set())
            for (kind, channel, tag), (queue, limit) in each.state.get(QUEUES, {}).items():
                if (kind != "consumer" or queue != method.queue or not each.open or None in closed
                        or channel in closed or tag not in each.tracker.channel(channel).consumers):
                    continue  # another queue's, or a consumer gone (cancelled, its channel closed)
                mine = sum(1 for h in held if h.link is each and h.channel == channel and h.consumer_tag == tag)
                on_channel = sum(1 for h in held if h.link is each and h.channel == channel)
                shared_limit = each.state.get(("qos", channel, True), 0)
                if limit and mine >= limit or shared_limit and on_channel >= shared_limit:
                    idle += 1
        if idle:
            return replaced(cmd, changed(method, consumer_count=max(0, method.consumer_count - idle)))
        return None


VARIANTS = [DeleteOkCountsUnacked, ActiveConsumersOnly]
