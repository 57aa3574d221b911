"""QU-20: one queue should take at least 16 consumers at once.

Source: basic/consume [01] (SHOULD). The consumers share one channel; how many the
broker accepted, and the consumer count its declare-ok reports, are recorded."""

from amqp_conformance.fixtures.vocabulary import (SHOULD, SPEC, Closed, NoReply, declare, non_strict, observe,
                                                  own_queue, rule)

RULE = rule("QU-20", "One queue takes at least 16 consumers",
            strength=SHOULD, guide=SPEC, section="basic.consume", source="basic/consume [01]")

CONSUMERS = 16


async def test_16_consumers_on_one_queue(broker):
    channel = await (await broker.connection()).channel()
    queue = await own_queue(broker, channel)
    accepted, stopped_by = 0, ""
    try:
        while accepted < CONSUMERS:
            await channel.consume(queue)
            accepted += 1
    except (Closed, NoReply) as stop:
        stopped_by = str(stop)
    observe("consumers accepted", accepted)
    if accepted == CONSUMERS:
        observe("declare-ok consumer count", (await declare(channel, queue, passive=True)).consumer_count)
    else:
        non_strict(f"only {accepted} of {CONSUMERS} consumers were accepted ({stopped_by})",
                   expected=f"{CONSUMERS} consume-ok", actual=f"{accepted} consume-ok, then {stopped_by}")
