"""PC-20: a channel that never sent confirm.select (nor tx.select) gets no basic.ack and
no basic.nack for anything it publishes: not for a plain publish, not for a persistent
one written to disk, not for a mandatory one, routed or returned. Without confirms or a
transaction a publish is not answered (BOOK); a confirm is what confirm.select asks for.
Judged on the frames as they arrive, not through a client library that may drop them."""

from amqp_conformance.fixtures.vocabulary import CONFIRMS, Confirm, MUST, Returned, check, observe, rule, timeouts

RULE = rule("PC-20", "A channel not in confirm mode gets no basic.ack or basic.nack for its publishes",
            strength=MUST, guide=CONFIRMS, section="publisher-confirms")

# body -> (routed to the queue, mandatory, persistent)
PUBLISHES = {b"plain": (True, False, False), b"persistent": (True, False, True),
             b"mandatory persistent": (True, True, True), b"mandatory unroutable": (False, True, True),
             b"unroutable": (False, False, False)}


async def test_no_confirm_reaches_a_channel_outside_confirm_mode(broker):
    queue = await broker.queue()
    async with broker.channel() as channel:
        for body, (routed, mandatory, persistent) in PUBLISHES.items():
            channel.publish(body, routing_key=queue if routed else broker.name("nowhere"), mandatory=mandatory,
                            persistent=persistent)
        await channel.barrier()  # every publish was handled: routed, returned, written
        # A persistent message's ack would follow its fsync: one negative window for it to come.
        await channel.watch(Confirm, within=timeouts.NEGATIVE_WINDOW)
    observe("acks, nacks and returns in arrival order",
            [str(event) for event in channel.arrivals if isinstance(event, (Confirm, Returned))] or "none")
    routed = [body for body, (to_queue, _, _) in PUBLISHES.items() if to_queue]
    ready = await broker.ready_count(queue)
    check(ready == len(routed), "the routed publishes reached the queue (handled, so a confirm would be due by now)",
          expected=f"{len(routed)} ready", actual=f"{ready} ready")
    confirms = [str(event) for event in channel.arrivals if isinstance(event, Confirm)]
    check(not confirms, "a channel never put in confirm mode gets no basic.ack or basic.nack",
          expected="none", actual=confirms)
