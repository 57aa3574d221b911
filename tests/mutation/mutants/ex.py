"""Mutants of the EX and BND (exchanges and bindings) rules of the specification.

They touch only what the suite names itself (names beginning "amqpc-", or "amq.amqpc-"
for EX-07's reserved ones), the pre-declared exchange a rule names, or methods no other
test sends (an empty exchange name in declare, delete, bind), so that the broker under
them still serves the rest of a run. Which exchanges and queues exist is what the proxy
saw declared, on any connection (`link.shared`)."""

from __future__ import annotations

import re

from pamqp import commands as spec

from tests.mutation.mutant_proxy import TO_CLIENT
from .base import Mutant, changed, replaced

OURS = "amqpc-"
# The exchange-name domain of the spec: its lexicon and its length.
LEXICON = re.compile(r"^[a-zA-Z0-9\-_.:]*$")


def declared(link) -> set[str]:
    """Every exchange and queue name the proxy saw declared (non-passively) or generated."""
    return link.shared.setdefault("declared names", set())


def note_declares(link, cmd) -> None:
    m = cmd.method
    if isinstance(m, (spec.Exchange.Declare, spec.Queue.Declare)) and not m.passive:
        declared(link).add(m.exchange if isinstance(m, spec.Exchange.Declare) else m.queue)
    elif isinstance(m, spec.Queue.DeclareOk):
        declared(link).add(m.queue)


def unknown(link, name: str) -> bool:
    """A name of the suite's that the proxy never saw declared: a missing queue or exchange."""
    return name.startswith(OURS) and name not in declared(link)


class RequiredTypeRefused(Mutant):
    """The broker has no direct and no fanout exchanges: a declare of either type for one
    of the suite's names is sent on as a type it does not know."""

    breaks = ("EX-01",)

    def from_client(self, link, cmd):
        m = cmd.method
        if isinstance(m, spec.Exchange.Declare) and not m.passive and m.exchange.startswith(OURS) \
                and m.exchange_type in ("direct", "fanout"):
            return replaced(cmd, changed(m, exchange_type="x-amqpc-mutant-missing"))
        return None


class PredeclaredFanoutRoutesDirect(Mutant):
    """amq.fanout routes by key, as a direct exchange does (its binds and publishes go to
    amq.direct)."""

    breaks = ("EX-03",)

    def from_client(self, link, cmd):
        m = cmd.method
        if isinstance(m, (spec.Queue.Bind, spec.Basic.Publish)) and m.exchange == "amq.fanout":
            return replaced(cmd, changed(m, exchange="amq.direct"))
        return None


class DefaultExchangeDeclarable(Mutant):
    """exchange.declare and exchange.delete of the empty name are answered with their ok."""

    breaks = ("EX-04",)

    def from_client(self, link, cmd):
        m = cmd.method
        if isinstance(m, spec.Exchange.Declare) and m.exchange == "":
            link.to_client(cmd.channel, spec.Exchange.DeclareOk())
            return []
        if isinstance(m, spec.Exchange.Delete) and m.exchange == "":
            link.to_client(cmd.channel, spec.Exchange.DeleteOk())
            return []
        return None


class ReservedNamesFree(Mutant):
    """"amq." names are not reserved: a new one is created (as the name without the
    prefix), and the delete of amq.fanout is answered delete-ok (the proxy keeps it)."""

    breaks = ("EX-07",)

    def from_client(self, link, cmd):
        m = cmd.method
        if isinstance(m, (spec.Exchange.Declare, spec.Exchange.Delete)) and m.exchange.startswith("amq." + OURS):
            return replaced(cmd, changed(m, exchange=m.exchange[len("amq."):]))
        if isinstance(m, spec.Exchange.Delete) and m.exchange == "amq.fanout":
            link.to_client(cmd.channel, spec.Exchange.DeleteOk())
            return []
        return None


class BadExchangeNameRefusedWith403(Mutant):
    """A name outside the lexicon or over 127 octets is refused, but with channel.close
    403 instead of the 406 the spec names."""

    breaks = ("EX-08",)

    def from_client(self, link, cmd):
        m = cmd.method
        if isinstance(m, spec.Exchange.Declare) and (len(m.exchange) > 127 or not LEXICON.match(m.exchange)):
            link.fake_channel_close(cmd.channel, 403, "ACCESS_REFUSED - bad name")
            return []
        return None


class RedeclareBecomesPassive(Mutant):
    """A redeclare of an existing exchange is never compared with it: it is answered as a
    passive declare would be."""

    breaks = ("EX-09", "EX-12")

    def from_client(self, link, cmd):
        m = cmd.method
        if isinstance(m, spec.Exchange.Declare) and not m.passive and m.exchange.startswith(OURS):
            if m.exchange in declared(link):
                return replaced(cmd, changed(m, passive=True))
            declared(link).add(m.exchange)
        return None


class UnknownTypeBecomesDirect(Mutant):
    """A declare of a type the broker lacks makes a direct exchange."""

    breaks = ("EX-10",)

    def from_client(self, link, cmd):
        m = cmd.method
        if isinstance(m, spec.Exchange.Declare) and m.exchange_type.startswith("x-amqpc-"):
            return replaced(cmd, changed(m, exchange_type="direct"))
        return None


class PassiveDeclareCreates(Mutant):
    """A passive exchange.declare is handled as a non-passive one: it creates a missing
    exchange, and its type and flags are compared with an existing one's."""

    breaks = ("EX-11",)

    def from_client(self, link, cmd):
        m = cmd.method
        if isinstance(m, spec.Exchange.Declare) and m.passive and m.exchange.startswith(OURS):
            return replaced(cmd, changed(m, passive=False))
        return None


class MissingExchangeDeleteClosesConnection(Mutant):
    """The delete of a missing exchange is refused on the connection, not the channel."""

    breaks = ("EX-14",)

    def from_client(self, link, cmd):
        note_declares(link, cmd)
        m = cmd.method
        if isinstance(m, spec.Exchange.Delete) and unknown(link, m.exchange):
            link.escalate_to_connection_close(404, f"NOT_FOUND - no exchange '{m.exchange}'")
            return []
        return None


class ExchangeIfUnusedIgnored(Mutant):
    """exchange.delete ignores if-unused: an exchange with bindings goes."""

    breaks = ("EX-15",)

    def from_client(self, link, cmd):
        m = cmd.method
        if isinstance(m, spec.Exchange.Delete) and m.if_unused:
            return replaced(cmd, changed(m, if_unused=False))
        return None


class InternalFlagIgnored(Mutant):
    """The internal flag of exchange.declare is ignored: clients publish to the exchange."""

    breaks = ("EX-16",)

    def from_client(self, link, cmd):
        m = cmd.method
        if isinstance(m, spec.Exchange.Declare) and m.internal:
            return replaced(cmd, changed(m, internal=False))
        return None


class MatchingBindingsEachRoute(Mutant):
    """A queue gets a copy of a message per binding it has to the exchange (the proxy
    sends a publish twice when the queue was bound to that exchange more than once)."""

    breaks = ("BND-01", "BND-02")

    def from_client(self, link, cmd):
        m = cmd.method
        binds = link.shared.setdefault("binds", {})
        if isinstance(m, spec.Queue.Bind):
            binds[(m.queue, m.exchange)] = binds.get((m.queue, m.exchange), 0) + 1
        elif isinstance(m, spec.Basic.Publish) and any(count > 1 for (_, exchange), count in binds.items()
                                                       if exchange == m.exchange):
            return [cmd, cmd]
        return None


class TransientExchangeUnbindable(Mutant):
    """A queue cannot be bound to a transient exchange: the bind is refused with 406."""

    breaks = ("BND-03",)

    def from_client(self, link, cmd):
        m = cmd.method
        transient = link.shared.setdefault("transient exchanges", set())
        if isinstance(m, spec.Exchange.Declare) and not m.passive and not m.durable:
            transient.add(m.exchange)
        elif isinstance(m, spec.Queue.Bind) and m.exchange in transient:
            link.fake_channel_close(cmd.channel, 406, "PRECONDITION_FAILED - transient exchange")
            return []
        return None


class BindOfMissingAccepted(Mutant):
    """queue.bind naming a queue or an exchange that does not exist is answered bind-ok."""

    breaks = ("BND-06",)

    def from_client(self, link, cmd):
        note_declares(link, cmd)
        m = cmd.method
        if isinstance(m, spec.Queue.Bind) and (unknown(link, m.queue) or unknown(link, m.exchange)):
            link.to_client(cmd.channel, spec.Queue.BindOk())
            return []
        return None

    def from_broker(self, link, cmd):
        note_declares(link, cmd)
        return None


class UnbindOfMissingRefusedWith406(Mutant):
    """queue.unbind naming a queue or an exchange that does not exist is refused, with
    channel.close 406 instead of 404."""

    breaks = ("BND-07",)

    def from_client(self, link, cmd):
        note_declares(link, cmd)
        m = cmd.method
        if isinstance(m, spec.Queue.Unbind) and (unknown(link, m.queue) or unknown(link, m.exchange)):
            link.fake_channel_close(cmd.channel, 406, "PRECONDITION_FAILED - cannot unbind")
            return []
        return None

    def from_broker(self, link, cmd):
        note_declares(link, cmd)
        return None


class FailedUnbindUnanswered(Mutant):
    """A failed unbind (naming an exchange or queue that does not exist) is never answered."""

    breaks = ("BND-08",)

    def from_client(self, link, cmd):
        note_declares(link, cmd)
        m = cmd.method
        if isinstance(m, spec.Queue.Unbind) and (unknown(link, m.queue) or unknown(link, m.exchange)):
            return []
        return None

    def from_broker(self, link, cmd):
        note_declares(link, cmd)
        return None


class DefaultExchangeBindRefusedWith406(Mutant):
    """bind and unbind with the default exchange are refused with channel.close 406
    (neither the spec's ok nor RabbitMQ's documented 403)."""

    breaks = ("BND-09",)

    def from_client(self, link, cmd):
        m = cmd.method
        if isinstance(m, (spec.Queue.Bind, spec.Queue.Unbind)) and m.exchange == "":
            link.fake_channel_close(cmd.channel, 406, "PRECONDITION_FAILED - default exchange")
            return []
        return None


class EmptyKeyNotTheQueueName(Mutant):
    """With an empty queue name, an empty routing key stays empty instead of becoming the
    last declared queue's name."""

    breaks = ("BND-10",)

    def from_client(self, link, cmd):
        m = cmd.method
        if isinstance(m, (spec.Queue.Bind, spec.Queue.Unbind)) and m.queue == "" and m.routing_key == "":
            return replaced(cmd, changed(m, routing_key="amqpc-mutant-key"))
        return None


class UnbindRemovesEveryBindingOfThePair(Mutant):
    """queue.unbind removes every binding between its queue and exchange, whatever their
    keys and arguments (the proxy unbinds the others first and hides their unbind-ok)."""

    breaks = ("BND-11",)

    def from_client(self, link, cmd):
        m = cmd.method
        binds = link.shared.setdefault("bindings", {})
        if isinstance(m, spec.Queue.Bind) and m.queue:
            binds.setdefault((m.queue, m.exchange), []).append((m.routing_key, dict(m.arguments or {})))
        elif isinstance(m, spec.Queue.Unbind) and m.queue:
            for key, arguments in binds.get((m.queue, m.exchange), []):
                if (key, arguments) != (m.routing_key, dict(m.arguments or {})):
                    link.to_broker(cmd.channel, spec.Queue.Unbind(queue=m.queue, exchange=m.exchange,
                                                                  routing_key=key, arguments=arguments))
                    link.swallow(TO_CLIENT, cmd.channel, (spec.Queue.UnbindOk, spec.Channel.Close))
        return None


class DeleteKeepsBindings(Mutant):
    """Deleting a queue or an exchange of the suite's is answered delete-ok but leaves it,
    with its bindings, in place: declared again, it still has them."""

    breaks = ("BND-12",)

    def from_client(self, link, cmd):
        m = cmd.method
        if isinstance(m, spec.Exchange.Delete) and m.exchange.startswith(OURS) and not m.if_unused:
            link.to_client(cmd.channel, spec.Exchange.DeleteOk())
            return []
        if isinstance(m, spec.Queue.Delete) and m.queue.startswith(OURS):
            link.to_client(cmd.channel, spec.Queue.DeleteOk(message_count=0))
            return []
        return None


class DurableExchangesTransient(Mutant):
    """Durable exchanges are transient: a restart drops them, and their bindings with them.
    Judged on a node the suite restarts (tests/mutation/test_node_mutants.py)."""

    breaks = ("EX-13", "BND-04")

    def from_client(self, link, cmd):
        m = cmd.method
        if isinstance(m, spec.Exchange.Declare) and m.durable and m.exchange.startswith(OURS):
            return replaced(cmd, changed(m, durable=False))
        return None


MUTANTS: tuple[type[Mutant], ...] = (
    RequiredTypeRefused, PredeclaredFanoutRoutesDirect, DefaultExchangeDeclarable, ReservedNamesFree,
    BadExchangeNameRefusedWith403, RedeclareBecomesPassive, UnknownTypeBecomesDirect, PassiveDeclareCreates,
    MissingExchangeDeleteClosesConnection, ExchangeIfUnusedIgnored, InternalFlagIgnored, MatchingBindingsEachRoute,
    TransientExchangeUnbindable, BindOfMissingAccepted, UnbindOfMissingRefusedWith406, FailedUnbindUnanswered,
    DefaultExchangeBindRefusedWith406, EmptyKeyNotTheQueueName, UnbindRemovesEveryBindingOfThePair,
    DeleteKeepsBindings, DurableExchangesTransient,
)
# The MUST rules of this area no proxy can break, and why.
NOT_EXPRESSIBLE: dict[str, str] = {
    "EX-05": "the exchange types are read from the management API over HTTP, which no AMQP frame proxy carries",
}
