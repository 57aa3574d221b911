"""Mutants of the CON rules (consumers)."""

from __future__ import annotations

import asyncio
import re

from pamqp import commands as spec
from pamqp.body import ContentBody
from pamqp.header import ContentHeader

from amqp_conformance.fixtures.core import timeouts
from tests.mutation.mutant_proxy import TO_BROKER, TO_CLIENT, Command
from .base import Mutant, changed, replaced, without_argument, SETTLES


class ConsumeFromMissingQueueAccepted(Mutant):
    """Consuming from a queue that does not exist is answered consume-ok."""

    breaks = ("CON-01",)

    def from_broker(self, link, cmd):
        m = cmd.method
        if isinstance(m, spec.Channel.Close) and m.reply_code == 404 and (m.class_id, m.method_id) == (60, 20):
            link.hide_channel_close(cmd.channel)
            link.to_client(cmd.channel, spec.Basic.ConsumeOk(consumer_tag="amq.ctag-mutant"))
            return []
        return None


class CancelRequeuesUnacked(Mutant):
    """basic.cancel requeues the consumer's unacked deliveries (they are no longer ackable)."""

    breaks = ("CON-02",)

    def from_client(self, link, cmd):
        if isinstance(cmd.method, spec.Basic.Cancel) and link.tracker.channel(cmd.channel).outstanding:
            link.to_broker(cmd.channel, spec.Basic.Nack(delivery_tag=0, multiple=True, requeue=True))
        return None


class CancelOfUnknownTagFails(Mutant):
    """Cancelling an unknown consumer tag closes the channel (404) instead of cancel-ok."""

    breaks = ("CON-03",)

    def from_client(self, link, cmd):
        if isinstance(cmd.method, spec.Basic.Cancel) and \
                cmd.method.consumer_tag not in link.tracker.channel(cmd.channel).consumers:
            link.fake_channel_close(cmd.channel, 404, f"NOT_FOUND - no consumer '{cmd.method.consumer_tag}'")
            return []
        return None


class ConsumerTagReuseAccepted(Mutant):
    """A consume with a tag already in use on the channel is answered consume-ok."""

    breaks = ("CON-04",)

    def from_client(self, link, cmd):
        m = cmd.method
        if isinstance(m, spec.Basic.Consume) and m.consumer_tag in link.tracker.channel(cmd.channel).consumers:
            if not m.nowait:
                link.to_client(cmd.channel, spec.Basic.ConsumeOk(consumer_tag=m.consumer_tag))
            return []
        return None


class ExclusiveIgnored(Mutant):
    """The exclusive flag of basic.consume is ignored."""

    breaks = ("CON-05", "CON-07")

    def from_client(self, link, cmd):
        if isinstance(cmd.method, spec.Basic.Consume) and cmd.method.exclusive:
            return replaced(cmd, changed(cmd.method, exclusive=False))
        return None


class SingleActiveConsumerIgnored(Mutant):
    """x-single-active-consumer is ignored: every consumer of the queue receives."""

    breaks = ("CON-06", "CON-26")

    def from_client(self, link, cmd):
        return without_argument(cmd, spec.Queue.Declare, "x-single-active-consumer")


class SecondConsumerActivatedFirst(Mutant):
    """On a single-active-consumer queue the second consumer registered becomes the active
    one: the proxy answers the first consume-ok itself and holds that basic.consume until
    the broker has answered the next consume on the same queue (from any connection)."""

    breaks = ("CON-20", "CON-26")

    def from_client(self, link, cmd):
        m, shared = cmd.method, link.shared
        if isinstance(m, spec.Queue.Declare) and (m.arguments or {}).get("x-single-active-consumer"):
            shared.setdefault("single active queues", set()).add(m.queue)
        elif isinstance(m, spec.Basic.Consume) and m.queue in shared.get("single active queues", set()):
            if m.queue not in shared.setdefault("held first consume", {}):
                shared["held first consume"][m.queue] = (link, cmd)
                link.to_client(cmd.channel, spec.Basic.ConsumeOk(consumer_tag=m.consumer_tag))
                link.swallow(TO_CLIENT, cmd.channel, spec.Basic.ConsumeOk)
                return []
            shared.setdefault("released by", {})[m.consumer_tag] = m.queue
        return None

    def from_broker(self, link, cmd):
        if isinstance(cmd.method, spec.Basic.ConsumeOk):
            queue = link.shared.get("released by", {}).pop(cmd.method.consumer_tag, None)
            held = link.shared.get("held first consume", {}).get(queue)
            if held is not None and held[1] is not None:
                first_link, first = held
                link.shared["held first consume"][queue] = (first_link, None)  # released once
                first_link.send(TO_BROKER, first, raw=True)
        return None


class CancelNotificationsDropped(Mutant):
    """The broker never tells a consumer that its queue was deleted (no basic.cancel)."""

    breaks = ("CON-09",)

    def from_broker(self, link, cmd):
        return [] if isinstance(cmd.method, spec.Basic.Cancel) else None


class ConsumerTimeoutHidden(Mutant):
    """The consumer-timeout channel close never reaches the client; the channel stays open."""

    breaks = ("CON-10", "CON-11", "CON-12")

    def from_broker(self, link, cmd):
        m = cmd.method
        if isinstance(m, spec.Channel.Close) and "timed out" in str(m.reply_text) and m.reply_code == 406:
            link.hide_channel_close(cmd.channel)
            return []
        return None


class ConsumerTimeoutArgumentStripped(Mutant):
    """queue.declare loses its x-consumer-timeout argument: the queue's own consumer
    timeout never reaches the broker, whose long global timeout applies instead."""

    breaks = ("CON-10", "CON-18")
    judged_on = "rabbitmq-4.0"

    def from_client(self, link, cmd):
        m = cmd.method
        if isinstance(m, spec.Queue.Declare) and "x-consumer-timeout" in (m.arguments or {}):
            arguments = {k: v for k, v in m.arguments.items() if k != "x-consumer-timeout"}
            return replaced(cmd, changed(m, arguments=arguments))
        return None


class TimeoutRequeuesOnlyTheLateConsumer(Mutant):
    """A consumer timeout returns only the late consumer's deliveries: every delivery to
    a channel's second and later consumers is acked to the broker by the proxy as it
    passes (the client still holds it; its own ack of such a tag is dropped)."""

    breaks = ("CON-23",)

    def from_broker(self, link, cmd):
        m = cmd.method
        if isinstance(m, spec.Basic.Deliver):
            first = link.state.setdefault(("first consumer", cmd.channel), m.consumer_tag)
            if m.consumer_tag != first:
                link.state.setdefault(("settled", cmd.channel), set()).add(m.delivery_tag)
                link.to_broker(cmd.channel, spec.Basic.Ack(delivery_tag=m.delivery_tag))
        return None

    def from_client(self, link, cmd):
        m = cmd.method
        if isinstance(m, SETTLES) and m.delivery_tag in link.state.get(("settled", cmd.channel), ()):
            return []
        return None


class TimeoutNeverOff(Mutant):
    """A consumer timeout turned off still fires: the proxy closes a consumer's channel
    (406, as a timeout does) once it has held a delivery unacked as long as the global
    timeout the suite's other nodes run (a node that ignores "off" and keeps the timeout it
    would otherwise have). Judged only on a node the suite configures (CON-24 needs
    consumer_timeout = undefined): tests/mutation/test_node_mutants.py."""

    breaks = ("CON-24",)
    HELD_S = timeouts.CONSUMER_TIMEOUT_MS / 1000

    def from_broker(self, link, cmd):
        if isinstance(cmd.method, spec.Basic.Deliver):
            asyncio.get_running_loop().call_later(self.HELD_S, self._time_out, link, cmd.channel,
                                                  cmd.method.delivery_tag)
        return None

    def from_client(self, link, cmd):
        if isinstance(cmd.method, SETTLES):
            link.state.setdefault(("settled", cmd.channel), set()).add(cmd.method.delivery_tag)
        return None

    def _time_out(self, link, channel, tag):
        settled = link.state.get(("settled", channel), set())
        if tag not in settled and not any(t >= tag for t in settled):
            link.fake_channel_close(channel, 406, f"PRECONDITION_FAILED - delivery acknowledgement on channel "
                                                  f"{channel} timed out (turned off, yet)")


class ConsumerLimitIgnored(Mutant):
    """A consume beyond consumer_max_per_channel is answered consume-ok: the broker's
    connection.close 530 is hidden from the client. Judged only on a node the suite
    configures (CON-25): tests/mutation/test_node_mutants.py."""

    breaks = ("CON-25",)

    def from_broker(self, link, cmd):
        m = cmd.method
        if isinstance(m, spec.Connection.Close) and m.reply_code == 530 and "consumers per channel" in str(m.reply_text):
            link.to_broker(0, spec.Connection.CloseOk())
            link.to_client(cmd.channel or 1, spec.Basic.ConsumeOk(consumer_tag="amq.ctag-over-the-limit"))
            return []
        return None


class PropertyAltered(Mutant):
    """One message property changes on the way to the consumer (content type, or a header)."""

    breaks = ("CON-15",)

    def from_broker(self, link, cmd):
        if isinstance(cmd.method, (spec.Basic.Deliver, spec.Basic.GetOk)) and cmd.header is not None:
            properties = cmd.header.properties or spec.Basic.Properties()
            if properties.content_type:
                altered = changed(properties, content_type=properties.content_type + "+mutant")
            else:
                altered = changed(properties, headers={**(properties.headers or {}), "x-mutant": 1})
            return [Command(cmd.channel, cmd.method, ContentHeader(0, cmd.header.body_size, altered), cmd.bodies)]
        return None


class ContentTypeValidated(Mutant):
    """A publish whose content type names no MIME type (type/subtype) is dropped, as by a
    broker that validates the field; well-formed ones pass."""

    breaks = ("CON-15",)
    MIME = re.compile(r"^[\w.+-]+/[\w.+-]+(\s*;.*)?$")

    def from_client(self, link, cmd):
        if isinstance(cmd.method, spec.Basic.Publish) and cmd.header is not None:
            content_type = (cmd.header.properties or spec.Basic.Properties()).content_type
            if content_type and not self.MIME.match(content_type):
                return []
        return None


class GetEmptyHidden(Mutant):
    """The first get-empty on each channel is replaced by a message nobody published."""

    breaks = ("CON-16",)

    def from_broker(self, link, cmd):
        if isinstance(cmd.method, spec.Basic.GetEmpty) and not link.state.get(("phantom", cmd.channel)):
            link.state[("phantom", cmd.channel)] = True
            body = b"phantom"
            tag = link.tracker.channel(cmd.channel).max_tag + 1000
            return [Command(cmd.channel, spec.Basic.GetOk(delivery_tag=tag, redelivered=False, exchange="",
                                                          routing_key="phantom", message_count=0),
                            ContentHeader(0, len(body), spec.Basic.Properties()), [ContentBody(body)])]
        return None


class QuorumQueuesHonourExclusive(Mutant):
    """Quorum queues enforce the exclusive flag as classic queues do: a consume that
    exclusivity would forbid on a quorum queue is refused with 403 instead of accepted."""

    breaks = ("CON-05",)

    def from_client(self, link, cmd):
        m = cmd.method
        if isinstance(m, spec.Queue.Declare) and (m.arguments or {}).get("x-queue-type") == "quorum":
            link.shared.setdefault("quorum queues", {})[m.queue] = None  # queue -> "exclusive"/"shared" in use
        if isinstance(m, spec.Basic.Consume) and m.queue in link.shared.get("quorum queues", {}):
            queues = link.shared["quorum queues"]
            if queues[m.queue] == "exclusive" or (m.exclusive and queues[m.queue]):
                link.fake_channel_close(cmd.channel, 403, f"ACCESS_REFUSED - queue '{m.queue}' in exclusive use")
                return []
            queues[m.queue] = "exclusive" if m.exclusive else "shared"
        return None


class ConsumerPrioritiesIgnored(Mutant):
    """x-priority in basic.consume is ignored: every consumer has the same priority."""

    breaks = ("CON-17",)

    def from_client(self, link, cmd):
        return without_argument(cmd, spec.Basic.Consume, "x-priority")


class ExclusivityOutlivesCancel(Mutant):
    """Cancelling an exclusive consumer is answered cancel-ok but never reaches the broker:
    the consumer, and its exclusive hold on the queue, live on."""

    breaks = ("CON-19",)

    def from_client(self, link, cmd):
        m = cmd.method
        if isinstance(m, spec.Basic.Consume) and m.exclusive:
            link.state.setdefault(("exclusive consumes", cmd.channel), []).append(True)
        elif isinstance(m, spec.Basic.Consume):
            link.state.setdefault(("exclusive consumes", cmd.channel), []).append(False)
        elif isinstance(m, spec.Basic.Cancel) and m.consumer_tag in link.state.get("exclusive tags", set()):
            if not m.nowait:
                link.to_client(cmd.channel, spec.Basic.CancelOk(consumer_tag=m.consumer_tag))
            return []
        return None

    def from_broker(self, link, cmd):
        pending = link.state.get(("exclusive consumes", cmd.channel))
        if isinstance(cmd.method, spec.Basic.ConsumeOk) and pending and pending.pop(0):
            link.state.setdefault("exclusive tags", set()).add(cmd.method.consumer_tag)
        return None


class DroppedConnectionsLinger(Mutant):
    """A client connection that ends without connection.close (a TCP reset) stays open at
    the broker for another 20 s: its consumers, their exclusive hold and their unacked
    deliveries outlive the client, as on a broker that does not notice a dead peer."""

    breaks = ("CON-19", "CON-20")
    linger_s = 20.0

    def from_client(self, link, cmd):
        if isinstance(cmd.method, spec.Connection.Close):
            link.state["closing"] = True
        return None

    async def on_eof(self, link, direction):
        if direction == TO_BROKER and not link.state.get("closing"):
            await asyncio.sleep(self.linger_s)  # the broker side stays open until then


class ForgedUserIdCleared(Mutant):
    """A published message's user-id property is removed on the way to the broker, so a
    forged user-id is never checked (and the message is accepted)."""

    breaks = ("CON-22",)

    def from_client(self, link, cmd):
        if isinstance(cmd.method, spec.Basic.Publish) and cmd.header is not None and \
                cmd.header.properties is not None and cmd.header.properties.user_id:
            properties = changed(cmd.header.properties, user_id=None)
            return [Command(cmd.channel, cmd.method, ContentHeader(0, cmd.header.body_size, properties), cmd.bodies)]
        return None


class EqualConsumersStarve(Mutant):
    """Every delivery on a channel goes to the consumer that received first there: the
    proxy rewrites the consumer tag of later deliveries to it, so the channel's other
    consumers of equal priority starve."""

    breaks = ("CON-14", "CON-17", "CON-28")

    def from_broker(self, link, cmd):
        m = cmd.method
        if isinstance(m, spec.Basic.Deliver):
            favourite = link.state.setdefault(("favourite", cmd.channel), m.consumer_tag)
            if m.consumer_tag != favourite:
                return replaced(cmd, changed(m, consumer_tag=favourite))
        return None


class DeliveriesWaitForAPublish(Mutant):
    """A new consumer is served only when a message is enqueued: its deliveries are held
    from consume-ok until the next basic.publish through the proxy (any connection), as on
    a broker whose dispatch wakes on an enqueue and not on a consumer registering, so the
    messages already ready wait for a publish that may never come."""

    breaks = ("CON-33",)

    def from_broker(self, link, cmd):
        m, held = cmd.method, link.state.setdefault("held for a publish", {})
        if isinstance(m, spec.Basic.ConsumeOk):
            held[(cmd.channel, m.consumer_tag)] = []
        elif isinstance(m, spec.Basic.Deliver) and (cmd.channel, m.consumer_tag) in held:
            held[(cmd.channel, m.consumer_tag)].append(cmd)
            return []
        return None

    def from_client(self, link, cmd):
        if isinstance(cmd.method, spec.Basic.Publish):
            for other in link.proxy.links:
                for deliveries in other.state.pop("held for a publish", {}).values():
                    for delivery in deliveries:
                        other.send(TO_CLIENT, delivery, raw=True)
        return None


class EveryQueueSingleActive(Mutant):
    """Every queue is declared with single active consumer, asked for or not: of two
    consumers on a queue declared without it, the management API shows one active and the
    other waiting (the proxy cannot rewrite the API's answers, which are HTTP beside it, so
    the broker itself is made to hold the wrong flags; the suite reads the API through
    --management-url, as tests/mutation/test_mutation_score.py gives it)."""

    breaks = ("CON-30",)

    def from_client(self, link, cmd):
        m = cmd.method
        if isinstance(m, spec.Queue.Declare) and not m.passive and "x-single-active-consumer" not in (m.arguments or {}):
            return replaced(cmd, changed(m, arguments={**(m.arguments or {}), "x-single-active-consumer": True}))
        return None


class SingleActiveByPolicy(Mutant):
    """The single-active-consumer policy key is taken and applied: the queues the suite's
    policy names (CON-27's, ending in "sacpolicy" and a counter) are declared with
    x-single-active-consumer. rabbitmqctl still refuses the key (it never passes through
    the proxy); the proxy stands in for a broker that made the queue single-active anyway.
    Judged on the node the suite sets policies on (own_node): tests/mutation/test_node_mutants.py."""

    breaks = ("CON-27",)
    own_node = True
    POLICY_NAMES = re.compile(r"-sacpolicy\d+$")

    def from_client(self, link, cmd):
        m = cmd.method
        if isinstance(m, spec.Queue.Declare) and self.POLICY_NAMES.search(m.queue or ""):
            return replaced(cmd, changed(m, arguments={**(m.arguments or {}), "x-single-active-consumer": True}))
        return None


# CON-21 is unsupported on the mutation node (RabbitMQ 3.10.8 has no single-active-consumer
# priority takeover; it came in 4.0): no mutant can turn an unsupported case into a failure there.
NOT_EXPRESSIBLE = {"CON-21": ("unsupported on the mutation node, RabbitMQ 3.10.8 (priority takeover for single "
                             "active consumers arrived in 4.0): a mutant cannot make an unsupported case fail")}


MUTANTS = [
    ConsumeFromMissingQueueAccepted,
    SingleActiveByPolicy,
    CancelRequeuesUnacked,
    CancelOfUnknownTagFails,
    ConsumerTagReuseAccepted,
    ExclusiveIgnored,
    SingleActiveConsumerIgnored,
    SecondConsumerActivatedFirst,
    CancelNotificationsDropped,
    ConsumerTimeoutHidden,
    ConsumerTimeoutArgumentStripped,
    TimeoutRequeuesOnlyTheLateConsumer,
    TimeoutNeverOff,
    ConsumerLimitIgnored,
    PropertyAltered,
    ContentTypeValidated,
    GetEmptyHidden,
    QuorumQueuesHonourExclusive,
    ConsumerPrioritiesIgnored,
    ExclusivityOutlivesCancel,
    DroppedConnectionsLinger,
    ForgedUserIdCleared,
    EqualConsumersStarve,
    DeliveriesWaitForAPublish,
    EveryQueueSingleActive,
]
