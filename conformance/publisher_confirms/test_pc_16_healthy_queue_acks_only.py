"""PC-16: a routable publish that a healthy queue accepts is acked, never nacked. The guide
says a broker sends basic.nack only when the process responsible for a queue hits an
internal error; a queue without limits, on a broker without alarms, has none to report
(PC-18 is the other half: the nack when that process fails)."""

import pytest

from amqp_conformance.fixtures.vocabulary import CONFIRMS, ConfirmLedger, MUST, QUEUE_TYPES, check, rule, timeouts

RULE = rule("PC-16", "A routable publish a healthy queue accepts is acked, never nacked",
            strength=MUST, guide=CONFIRMS, section="server-sent-nacks", requires=("confirms",))

MESSAGES = 200


@pytest.mark.parametrize("persistent", [False, True], ids=["transient", "persistent"])
@pytest.mark.parametrize("queue_type", QUEUE_TYPES)
async def test_publishes_a_healthy_queue_takes_are_all_acked(broker, queue_type, persistent):
    queue = await broker.queue(queue_type)
    ledger = ConfirmLedger()
    async with broker.channel() as channel:
        await channel.confirm_select()
        for n in range(MESSAGES):
            ledger.send(channel, b"%d" % n, routing_key=queue, persistent=persistent)
        await ledger.collect(channel, within=timeouts.REPLY * 3)
    nacked = [seq for seq, kinds in ledger.resolution.items() if not kinds[0].startswith("ack")]
    check(not nacked and not ledger.outstanding, "every publish the healthy queue took is acked",
          expected=f"acks for 1-{MESSAGES}", actual=f"nacked: {nacked[:20]}, unresolved: {ledger.outstanding[:20]}")
