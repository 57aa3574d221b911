"""The receiving vocabulary on scripted channels: the strict receive names what it
awaited, the lenient one returns what came before a cut or the bound, and the count
until quiet keeps what came late."""

import asyncio

import pytest

from amqp_conformance.fixtures.core import timeouts
from amqp_conformance.fixtures.checking import verifiers
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
    verifiers.begin_test()
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
    assert "channel closed while counting deliveries" in verifiers.current().observations


class RacingChannel:
    """Stands in for a WireChannel among racing consumers: one delivery arrives at a
    signal. With `slow_wake`, its waiter needs a few more loop turns to return, and a
    cancel landing meanwhile is swallowed and the delivery returned anyway, as Python
    3.11's asyncio.wait_for does when the inner result arrives with the cancel."""

    def __init__(self, body: bytes, arrived: asyncio.Event, slow_wake: bool = False):
        self.inbox, self.body, self.arrived, self.slow_wake = [], body, arrived, slow_wake
        self.is_open, self.delivered = True, False

    def take(self, kind):
        taken, self.inbox = self.inbox, []
        return taken

    async def watch(self, *kinds, within):
        if self.delivered:
            await asyncio.sleep(within)
            return None
        try:
            await self.arrived.wait()
            for _ in range(3 if self.slow_wake else 0):
                await asyncio.sleep(0)
        except asyncio.CancelledError:
            pass
        self.delivered = True
        return delivery(self.body, 1)


def test_deliveries_across_keeps_a_delivery_its_cancelled_waiter_took():
    from amqp_conformance.fixtures.vocabulary.receiving import deliveries_across

    async def race():
        arrived = asyncio.Event()
        quick, slow = RacingChannel(b"m3", arrived), RacingChannel(b"m1", arrived, slow_wake=True)
        asyncio.get_running_loop().call_later(0.01, arrived.set)
        return await deliveries_across([quick, slow], 2, within=0.5)

    seen = asyncio.run(race())
    assert sorted(d.body for _, d in seen) == [b"m1", b"m3"]
