"""PC-07: a message that routes to no queue and is not mandatory is confirmed with
basic.ack (not basic.nack) once the exchange has found it routes nowhere, and is not
returned."""

from amqp_conformance.fixtures.vocabulary import CONFIRMS, MUST, Confirm, Returned, check, rule

RULE = rule("PC-07", "An unroutable non-mandatory message is acked, not nacked, and not returned",
            strength=MUST, guide=CONFIRMS, section="when-publishes-are-confirmed", requires=("confirms",))


async def test_unroutable_message_is_acked_without_return(broker):
    async with broker.channel() as channel:
        await channel.confirm_select()
        seq = channel.publish(b"to nowhere", exchange="amq.direct", routing_key=broker.name("unbound-key"))
        confirm = await channel.expect(Confirm, waiting_for="the confirm of the unroutable publish")
        # Anything the broker sends about that publish comes before its reply to this.
        await channel.barrier()
    check(confirm.ack and confirm.delivery_tag == seq, "an unroutable message is confirmed with basic.ack",
          expected=f"ack({seq})", actual=str(confirm))
    returns = [e for e in channel.arrivals if isinstance(e, Returned)]
    check(not returns, "a non-mandatory message is never returned",
          expected="no basic.return", actual=[f"{r.reply_code} {r.reply_text}" for r in returns])
