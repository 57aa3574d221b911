"""Mutants of the RT and CH (routing and channels) rules of the specification.

Several rewrite only what the suite's own frame dialogue sends (`from_the_dialogue`): the
suite arranges queues and messages through an aio-pika admin connection, and a broker
double that broke the admin's declares and publishes too would fail every rule alike
(the controls included), where each mutant is meant to break its own rules only."""

from __future__ import annotations

import asyncio
import functools

from pamqp import commands as spec

from tests.mutation.mutant_proxy import TO_BROKER, TO_CLIENT
from .base import Mutant, changed, replaced

# The product the suite's frame dialogue announces in connection.start-ok
# (amqp_conformance.fixtures.wire.dialogue).
DIALOGUE_PRODUCT = "amqp-conformance"
ERROR_CODES = range(300, 600)


def from_the_dialogue(link, cmd) -> bool:
    """Whether `link` is a connection of the suite's frame dialogue (learnt from its start-ok)."""
    m = cmd.method
    if isinstance(m, spec.Connection.StartOk):
        link.state["dialogue"] = (m.client_properties or {}).get("product") == DIALOGUE_PRODUCT
    return link.state.get("dialogue", False)


def is_error_close(method) -> bool:
    return isinstance(method, spec.Channel.Close) and method.reply_code in ERROR_CODES


# -- routing -------------------------------------------------------------------------------
class DefaultExchangeRoutesNothing(Mutant):
    """The default exchange has no implicit binding: a publish to exchange "" on a plain
    channel (neither confirm nor tx mode, whose rules the controls judge) reaches no queue."""

    breaks = ("RT-01",)

    def from_client(self, link, cmd):
        m = cmd.method
        if from_the_dialogue(link, cmd) and isinstance(m, spec.Basic.Publish) and m.exchange == "" \
                and link.tracker.channel(cmd.channel).mode is None:
            return []
        return None


class DirectKeysCaseInsensitive(Mutant):
    """Routing and binding keys compare without regard to case."""

    breaks = ("RT-02",)

    def from_client(self, link, cmd):
        m = cmd.method
        if isinstance(m, spec.Queue.Bind) and m.routing_key != m.routing_key.lower():
            return replaced(cmd, changed(m, routing_key=m.routing_key.lower()))
        if isinstance(m, spec.Basic.Publish) and m.exchange and m.routing_key != m.routing_key.lower():
            return replaced(cmd, changed(m, routing_key=m.routing_key.lower()))
        return None


class FanoutRoutesByKey(Mutant):
    """A fanout exchange routes like a direct one: only to queues bound with the message's key."""

    breaks = ("RT-03",)

    def from_client(self, link, cmd):
        m = cmd.method
        if isinstance(m, spec.Exchange.Declare) and m.exchange_type == "fanout" and not m.passive:
            return replaced(cmd, changed(m, exchange_type="direct"))
        return None


class TopicWildcardSwapped(Mutant):
    """Base: a topic binding's `wildcard` is read as `instead` (the binding key is rewritten)."""

    wildcard, instead = "", ""

    def from_client(self, link, cmd):
        m = cmd.method
        if isinstance(m, spec.Queue.Bind) and self.wildcard in m.routing_key:
            return replaced(cmd, changed(m, routing_key=m.routing_key.replace(self.wildcard, self.instead)))
        return None


class TopicStarTakesManyWords(TopicWildcardSwapped):
    """In a topic binding `*` matches any number of words (as `#` does)."""

    breaks = ("RT-04",)
    wildcard, instead = "*", "#"


class TopicHashNeedsAWord(TopicWildcardSwapped):
    """In a topic binding `#` matches exactly one word (as `*` does)."""

    breaks = ("RT-05",)
    wildcard, instead = "#", "*"


class HeadersMatchInverted(Mutant):
    """A headers binding matches with `any` where it says `all` (or nothing), and with `all` where it says `any`."""

    breaks = ("RT-06", "RT-07")

    def from_client(self, link, cmd):
        m = cmd.method
        if isinstance(m, spec.Queue.Bind) and m.arguments and any(not key.startswith("x-") for key in m.arguments):
            inverted = "all" if m.arguments.get("x-match") == "any" else "any"
            return replaced(cmd, changed(m, arguments={**m.arguments, "x-match": inverted}))
        return None


class PublishToMissingExchangeIgnored(Mutant):
    """A publish to a missing exchange is dropped in silence; the channel stays open."""

    breaks = ("RT-08",)

    def from_broker(self, link, cmd):
        m = cmd.method
        if isinstance(m, spec.Channel.Close) and m.reply_code == 404 and (m.class_id, m.method_id) == (60, 40):
            link.hide_channel_close(cmd.channel)
            return []
        return None


class MandatoryReturnsDropped(Mutant):
    """basic.return never reaches the client: an unroutable mandatory message vanishes."""

    breaks = ("RT-09",)

    def from_broker(self, link, cmd):
        return [] if isinstance(cmd.method, spec.Basic.Return) else None


class AdjacentDeliveriesSwapped(Mutant):
    """Deliveries to a consumer go out in pairs, the second of each pair first."""

    breaks = ("RT-11",)

    def from_broker(self, link, cmd):
        if not isinstance(cmd.method, spec.Basic.Deliver):
            return None
        held = link.state.setdefault("held delivery", {})
        first = held.pop(cmd.channel, None)
        if first is None:
            held[cmd.channel] = cmd
            return []
        return [cmd, first]


# -- channels ------------------------------------------------------------------------------
class SecondChannelOpenAccepted(Mutant):
    """channel.open on an open channel is answered with open-ok."""

    breaks = ("CH-01",)

    def from_client(self, link, cmd):
        m, opened = cmd.method, link.state.setdefault("open channels", set())
        if isinstance(m, spec.Channel.Open):
            if cmd.channel in opened:
                link.to_client(cmd.channel, spec.Channel.OpenOk())
                return []
            opened.add(cmd.channel)
        elif isinstance(m, (spec.Channel.Close, spec.Channel.CloseOk)):
            opened.discard(cmd.channel)
        return None

    def from_broker(self, link, cmd):
        if isinstance(cmd.method, (spec.Channel.Close, spec.Channel.CloseOk)):
            link.state.setdefault("open channels", set()).discard(cmd.channel)
        return None


class ChannelsStartPaused(Mutant):
    """A new channel starts flow-inactive: nothing is delivered to its consumers until the
    client sends channel.flow(active=true) (the deliveries before it are dropped)."""

    breaks = ("CH-02",)

    def from_client(self, link, cmd):
        flowing = link.state.setdefault("flowing", set())
        if isinstance(cmd.method, spec.Channel.Flow) and cmd.method.active:
            flowing.add(cmd.channel)
        elif isinstance(cmd.method, spec.Channel.Flow):
            flowing.discard(cmd.channel)
        return None

    def from_broker(self, link, cmd):
        if isinstance(cmd.method, spec.Basic.Deliver) and cmd.channel not in link.state.get("flowing", set()):
            return []
        return None


class ClosedChannelKeepsWorking(Mutant):
    """After closing a channel for an error the broker goes on handling its frames: the
    proxy confirms the close to the broker and opens the channel again at once, so what
    the client sends before its close-ok is handled; the client's close-ok then ends the
    reopened channel."""

    breaks = ("CH-05",)

    def from_broker(self, link, cmd):
        if is_error_close(cmd.method):
            link.hide_channel_close(cmd.channel)
            link.state.setdefault("reopened", set()).add(cmd.channel)
        return None

    def from_client(self, link, cmd):
        reopened = link.state.setdefault("reopened", set())
        if isinstance(cmd.method, spec.Channel.CloseOk) and cmd.channel in reopened:
            reopened.discard(cmd.channel)
            link.swallow(TO_CLIENT, cmd.channel, spec.Channel.CloseOk)
            return replaced(cmd, spec.Channel.Close(reply_code=200, reply_text="closed by the proxy", class_id=0,
                                                    method_id=0))
        return None


class CrossingCloseIsAConnectionError(Mutant):
    """A client channel.close that crosses the broker's own close ends the connection
    (504) instead of being answered with close-ok."""

    breaks = ("CH-06",)

    def from_client(self, link, cmd):
        if isinstance(cmd.method, spec.Channel.Close):
            link.state.setdefault("client closing", set()).add(cmd.channel)
        return None

    def from_broker(self, link, cmd):
        closing = link.state.setdefault("client closing", set())
        if isinstance(cmd.method, spec.Channel.CloseOk):
            closing.discard(cmd.channel)
        elif is_error_close(cmd.method) and cmd.channel in closing:
            link.escalate_to_connection_close(504, "CHANNEL_ERROR - channel.close crossed the broker's close")
            return []
        return None


class ChannelEndRequeuesSiblings(Mutant):
    """When one channel ends (closed by the client or by an exception), the unacked
    deliveries of the connection's other channels are requeued."""

    breaks = ("CH-07",)

    def _requeue_others(self, link, ending: int) -> None:
        for number, state in link.tracker.channels.items():
            if number != ending and state.outstanding:
                link.to_broker(number, spec.Basic.Nack(delivery_tag=0, multiple=True, requeue=True))

    def from_client(self, link, cmd):
        if isinstance(cmd.method, spec.Channel.Close):
            self._requeue_others(link, cmd.channel)
        return None

    def from_broker(self, link, cmd):
        if is_error_close(cmd.method):
            self._requeue_others(link, cmd.channel)
        return None


class CancelReachesAcrossChannels(Mutant):
    """basic.cancel of a tag the channel does not own cancels the consumer of another
    channel of the connection that owns it."""

    breaks = ("CH-08",)

    def from_client(self, link, cmd):
        m = cmd.method
        if not isinstance(m, spec.Basic.Cancel) or m.consumer_tag in link.tracker.channel(cmd.channel).consumers:
            return None
        owner = next((number for number, state in link.tracker.channels.items()
                      if m.consumer_tag in state.consumers), None)
        if owner is None:
            return None
        link.to_broker(owner, m)
        link.swallow(TO_CLIENT, owner, spec.Basic.CancelOk)
        link.to_client(cmd.channel, spec.Basic.CancelOk(consumer_tag=m.consumer_tag))
        return []


# A reply sent before its method has taken effect: how long the method itself is held back.
EFFECT_DELAY_S = 1.0


class RepliesBeforeEffects(Mutant):
    """bind-ok, purge-ok, cancel-ok and declare-ok go to the client at once; the method
    itself reaches the broker a second later (its real reply is dropped)."""

    breaks = ("CH-09", "CH-10")

    def from_client(self, link, cmd):
        m = cmd.method
        if not from_the_dialogue(link, cmd) or getattr(m, "nowait", False):
            return None
        if isinstance(m, spec.Queue.Bind):
            early, real = spec.Queue.BindOk(), spec.Queue.BindOk
        elif isinstance(m, spec.Queue.Purge):
            early, real = spec.Queue.PurgeOk(message_count=0), spec.Queue.PurgeOk
        elif isinstance(m, spec.Basic.Cancel):
            early, real = spec.Basic.CancelOk(consumer_tag=m.consumer_tag), spec.Basic.CancelOk
        elif isinstance(m, spec.Queue.Declare) and m.queue and not m.passive:
            early, real = spec.Queue.DeclareOk(queue=m.queue, message_count=0, consumer_count=0), spec.Queue.DeclareOk
        else:
            return None
        link.to_client(cmd.channel, early)
        link.swallow(TO_CLIENT, cmd.channel, real)
        asyncio.get_running_loop().call_later(EFFECT_DELAY_S, functools.partial(link.send, TO_BROKER, cmd, raw=True))
        return []


MUTANTS = [
    DefaultExchangeRoutesNothing,
    DirectKeysCaseInsensitive,
    FanoutRoutesByKey,
    TopicStarTakesManyWords,
    TopicHashNeedsAWord,
    HeadersMatchInverted,
    PublishToMissingExchangeIgnored,
    MandatoryReturnsDropped,
    AdjacentDeliveriesSwapped,
    SecondChannelOpenAccepted,
    ChannelsStartPaused,
    ClosedChannelKeepsWorking,
    CrossingCloseIsAConnectionError,
    ChannelEndRequeuesSiblings,
    CancelReachesAcrossChannels,
    RepliesBeforeEffects,
]
# The MUST rules of this area no proxy can break, and why.
NOT_EXPRESSIBLE: dict[str, str] = {}
