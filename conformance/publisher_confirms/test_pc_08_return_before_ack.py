"""PC-08: for a mandatory message that routes nowhere, the broker sends basic.return
(312 NO_ROUTE) before the basic.ack that confirms it. Judged by the order the frames
arrived on the wire, not by client callbacks."""

from amqp_conformance.fixtures.vocabulary import (CONFIRMS, MUST, NO_ROUTE, Confirm, ConfirmLedger, Returned,
                                                  check, observe, rule)

RULE = rule("PC-08", "For a mandatory unroutable message basic.return arrives before its basic.ack",
            strength=MUST, guide=CONFIRMS, section="when-publishes-are-confirmed", requires=("confirms",))

MESSAGES = 3


async def test_return_arrives_before_the_ack(broker):
    ledger = ConfirmLedger()
    async with broker.channel() as channel:
        await channel.confirm_select()
        for n in range(MESSAGES):
            ledger.send(channel, b"%d" % n, exchange="amq.direct", mandatory=True,
                        routing_key=broker.name("unbound-key"))
        await ledger.collect(channel)
        await channel.barrier()  # any return still to come arrives before this reply
    arrivals = [e for e in channel.arrivals if isinstance(e, (Returned, Confirm))]
    observe("arrival order", " ".join("return" if isinstance(e, Returned) else str(e) for e in arrivals))

    returns = [e for e in arrivals if isinstance(e, Returned)]
    check(len(returns) == MESSAGES and all(r.reply_code == NO_ROUTE for r in returns),
          "each mandatory unroutable message is returned with 312 NO_ROUTE",
          expected=f"{MESSAGES} x basic.return 312", actual=[f"{r.reply_code} {r.reply_text}" for r in returns])
    check(not ledger.outstanding and all(c.ack for c in ledger.confirms), "each one is then confirmed with basic.ack",
          expected=f"acks for 1-{MESSAGES}", actual=ledger.history())
    # Publish k's return is the k-th return; every confirm covering k must come after it.
    returns_so_far, early = 0, []
    for event in arrivals:
        if isinstance(event, Returned):
            returns_so_far += 1
        elif event.delivery_tag > returns_so_far:
            early.append(f"{event} after only {returns_so_far} return(s)")
    check(not early, "basic.return comes before the basic.ack of the same message",
          expected="return k before the ack covering k", actual=early)
