"""PC-05: an ack or nack with multiple=true covers exactly the outstanding sequence
numbers up to its tag, and no later confirm carries a tag at or below the highest
multiple=true tag seen so far (the watermark)."""

from amqp_conformance.fixtures.vocabulary import (CONFIRMS, ConfirmLedger, MUST, check, not_exercised, observe, rule,
                                                  timeouts)

RULE = rule("PC-05", "multiple=true confirms cover exactly the outstanding numbers, below a rising watermark",
            strength=MUST, guide=CONFIRMS, section="publisher-confirms", requires=("confirms",),
            accepts=("any grouping of single and multiple=true confirms; with no multiple=true "
                     "confirm at all it passes and records 'not exercised'"))

MESSAGES = 500


async def test_multiple_confirms_never_reach_below_the_watermark(broker):
    queue = await broker.queue()
    ledger = ConfirmLedger()
    async with broker.channel() as channel:
        await channel.confirm_select()
        # Persistent messages to a durable queue: brokers batch their confirms behind
        # disk writes, which is what produces multiple=true acks.
        for n in range(MESSAGES):
            ledger.send(channel, b"%d" % n, routing_key=queue, persistent=True)
        await ledger.collect(channel, within=timeouts.REPLY * 3, linger=timeouts.NEGATIVE_WINDOW)

    multiples = [c for c in ledger.confirms if c.multiple]
    observe("confirm frames", len(ledger.confirms))
    observe("multiple=true frames", len(multiples))
    if not multiples:
        not_exercised("the broker sent no multiple=true confirm: the ranges and the watermark were not tested")
    check(not ledger.outstanding, "every published message is confirmed",
          expected=f"1-{MESSAGES} resolved", actual=f"never resolved: {ledger.outstanding[:20]}")
    check(not ledger.problems, "multiple ranges cover only outstanding numbers and respect the watermark",
          expected="no confirm at or below an earlier multiple=true tag, none resolved twice",
          actual=ledger.problems[:10])
