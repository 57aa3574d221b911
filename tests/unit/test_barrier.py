"""The barrier's own reply: a passive exchange.declare is answered with the same kind of
reply as any exchange.declare, so the barrier waits for the declare-ok after those owed to
declares sent before it without waiting (CI's EX-04[declare] on Broker-J, which answers
a declare of the default exchange: the barrier took that answer as its own)."""

from __future__ import annotations

import asyncio

from pamqp import commands as spec

from amqp_conformance.fixtures.wire.wire_channel import WireChannel


class Broker:
    """Stands in for the connection: answers every exchange.declare with declare-ok (but
    a nowait one), a little later, in order, as a broker that accepts them all does."""

    is_open, lost, frame_max = True, False, 131072

    def __init__(self):
        self.channel: WireChannel | None = None
        self.declares = 0

    def send(self, channel: int, frame) -> None:
        if isinstance(frame, spec.Exchange.Declare) and not frame.nowait:
            self.declares += 1
            asyncio.get_running_loop().call_later(0.01 * self.declares, self.channel._deliver_event,
                                                  spec.Exchange.DeclareOk())

    def _send_raw(self, frame, channel: int) -> None:
        pass


async def a_declare_then_the_barrier() -> tuple[int, int]:
    broker = Broker()
    channel = broker.channel = WireChannel(broker, 1)
    channel.send(spec.Exchange.Declare(exchange="", exchange_type="direct"))  # answered, not awaited
    await channel.barrier(timeout=2.0)
    still_owed = sum(isinstance(event, spec.Exchange.DeclareOk) for event in channel.inbox)
    return broker.declares, still_owed


def test_the_barrier_returns_on_its_own_reply_and_leaves_the_earlier_one():
    declares, left_in_the_inbox = asyncio.run(a_declare_then_the_barrier())
    assert declares == 2 and left_in_the_inbox == 1


async def a_nowait_declare_then_the_barrier() -> int:
    broker = Broker()
    channel = broker.channel = WireChannel(broker, 1)
    channel.send(spec.Exchange.Declare(exchange="x", exchange_type="direct", nowait=True))  # owes no reply
    await channel.barrier(timeout=2.0)
    return len(channel.inbox)


def test_a_nowait_declare_owes_no_reply():
    assert asyncio.run(a_nowait_declare_then_the_barrier()) == 0
