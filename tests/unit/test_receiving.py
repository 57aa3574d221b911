"""The receiving vocabulary on scripted channels: the strict receive names what it
awaited, the lenient one returns what came before a cut or the bound, and the count
until quiet keeps what came late."""

import asyncio

import pytest

from amqp_conformance.fixtures.core import timeouts
from amqp_conformance.fixtures.vocabulary import checks
from amqp_conformance.fixtures.vocabulary.receiving import deliveries_until_quiet, expect_deliveries, receive
from amqp_conformance.fixtures.wire.dialogue import Closed, ConnectionLost, Delivery, NoReply, Reply


def delivery(body: bytes, tag: int) -> Delivery:
    return Delivery(channel=1, delivery_tag=tag, redelivered=False, exchange="", routing_key="q", body=body)


class ScriptedChannel:
    """Stands in for a WireChannel: answers expect_delivery/watch from a script of
    deliveries, then does `then` (an exception to raise; NoReply when None)."""

    def __init__(self, *deliveries, then=None):
        self.script = list(deliveries)
        self.then = then
        self.timeouts = []

    async def expect_delivery(self, timeout=None):
        self.timeouts.append(timeout)
        if self.script:
            return self.script.pop(0)
        raise self.then or NoReply("nothing came while waiting for a delivery")

    async def watch(self, *kinds, within):
        if self.script:
            return self.script.pop(0)
        if isinstance(self.then, Closed):
            return self.then.reply
        return None


def run(coro):
    checks.begin_test()
    return asyncio.run(coro)


CLOSED = Closed(Reply("channel", 406, "PRECONDITION_FAILED"))


def test_strict_receive_returns_exactly_the_count_with_the_reply_bound_for_each():
    channel = ScriptedChannel(delivery(b"a", 1), delivery(b"b", 2), delivery(b"c", 3))
    got = run(expect_deliveries(channel, 2, "first deliveries"))
    assert [d.body for d in got] == [b"a", b"b"]
    assert channel.timeouts == [None, None]  # None: expect_delivery's own timeouts.REPLY


def test_strict_receive_names_what_was_awaited_and_what_came():
    with pytest.raises(NoReply) as short:
        run(expect_deliveries(ScriptedChannel(delivery(b"a", 1)), 3, "redeliveries after basic.recover"))
    assert str(short.value) == (f"3 redeliveries after basic.recover awaited, 1 came [b'a'], then none within "
                                f"{timeouts.REPLY:.1f} s")


def test_strict_receive_lets_a_close_through():
    with pytest.raises(Closed):
        run(expect_deliveries(ScriptedChannel(then=CLOSED), 1))


@pytest.mark.parametrize("then", [None, CLOSED, ConnectionLost("reset"), ConnectionResetError()],
                         ids=["bound", "closed", "lost", "reset"])
def test_lenient_receive_returns_what_came_before_the_bound_or_the_cut(then):
    got = run(receive(ScriptedChannel(delivery(b"a", 1), then=then), 3, within=1.0))
    assert [d.body for d in got] == [b"a"]


def test_until_quiet_keeps_the_late_ones_and_records_a_close():
    channel = ScriptedChannel(delivery(b"a", 1), delivery(b"b", 2), delivery(b"late", 3), then=CLOSED)
    got = run(deliveries_until_quiet(channel, expected=2, quiet=0.1))
    assert [d.body for d in got] == [b"a", b"b", b"late"]
    assert "channel closed while counting deliveries" in checks.current().observations
