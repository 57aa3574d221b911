"""EX-15: exchange.delete with if-unused keeps an exchange that has a queue bound to it:
the channel is closed with 406 and the exchange and its binding stay (it still routes to
the queue); once the binding is gone the same delete removes it.

Source: exchange.delete, field if-unused, rule [in-use]."""

from amqp_conformance.fixtures.vocabulary import (MUST, SPEC, RoutingProbe, check, delete_exchange, exchange_exists,
                                                  expect_bound, expect_closed, forget_exchange, is_refusal,
                                                  new_exchange, rule, spec, unbind_queue)

RULE = rule("EX-15", "delete if-unused keeps an exchange with bindings (406), and removes one without",
            strength=MUST, guide=SPEC, section="exchange.delete", source="exchange/delete/if-unused [in-use]",
            accepts="channel.close 406 only, then delete-ok once unbound")


async def test_if_unused_delete_keeps_a_bound_exchange(broker):
    connection = await broker.connection()
    probe, queue, key = await RoutingProbe.open(broker, connection), await broker.queue(), broker.name("key")
    exchange = await new_exchange(broker, probe.channel, "direct")
    await expect_bound(probe.channel, queue, exchange, key)
    channel = await connection.channel()
    channel.send(spec.Exchange.Delete(exchange=exchange, if_unused=True))
    await expect_closed(channel, code=406, requirement="delete if-unused of an exchange with a binding is refused")
    check(await probe.copies(queue, exchange, key) == 1, "the exchange and its binding stay (it still routes)",
          expected="1 copy routed to the bound queue", actual="not routed (see the trace)")

    unbound = await unbind_queue(probe.channel, queue, exchange, key)
    check(not is_refusal(unbound), "the binding is removed (the rule's setup)", expected="queue.unbind-ok",
          actual=unbound)
    deleted = await delete_exchange(probe.channel, exchange, if_unused=True)
    check(not is_refusal(deleted), "delete if-unused of an exchange without bindings succeeds",
          expected="exchange.delete-ok", actual=deleted)
    forget_exchange(broker, exchange)
    gone = await exchange_exists(await connection.channel(), exchange)
    check(is_refusal(gone), "the exchange is gone after delete-ok", expected="channel.close 404 to a passive declare",
          actual=gone)
