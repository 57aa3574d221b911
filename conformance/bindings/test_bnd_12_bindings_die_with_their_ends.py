"""BND-12: a binding lives no longer than its queue and its exchange: after either is
deleted and declared again under the same name, the new one has no binding, and a
publish that the old binding matched does not reach the queue.

Source: PDF 3.1.5 and the text of exchange.delete (its bindings are deleted with it). A
broker that never answers exchange.delete is unsupported for the exchange's case, with
its silence as the evidence: EX-14 and EX-15 judge the delete itself."""

import pytest

from amqp_conformance.fixtures.vocabulary import (MUST, SPEC, RoutingProbe, check, delete_exchange, expect_bound,
                                                  expect_reply, is_refusal, new_exchange, NoReply, rule, spec,
                                                  unsupported)

RULE = rule("BND-12", "Bindings die with their queue or exchange: a recreated one starts with none",
            strength=MUST, guide=SPEC, section="exchange.delete", source="PDF 3.1.5; exchange/delete",
            accepts="no copy through the old binding")

DELETED = ("exchange", "queue")


@pytest.mark.parametrize("deleted", DELETED)
async def test_recreated_end_has_no_binding(broker, deleted):
    probe, queue, key = await RoutingProbe.open(broker), await broker.queue(), broker.name("key")
    exchange = await new_exchange(broker, probe.channel, "direct")
    await expect_bound(probe.channel, queue, exchange, key)
    if deleted == "exchange":
        try:
            answer = await delete_exchange(probe.channel, exchange)
        except NoReply as silent:
            unsupported("the broker does not answer exchange.delete (EX-14 and EX-15 judge the delete)", str(silent))
        check(not is_refusal(answer), "the exchange is deleted (the rule's setup)", expected="exchange.delete-ok",
              actual=answer)
        await expect_reply(probe.channel, spec.Exchange.Declare(exchange=exchange, exchange_type="direct"),
                           spec.Exchange.DeclareOk, "the exchange is declared again (the rule's setup)")
    else:
        await expect_reply(probe.channel, spec.Queue.Delete(queue=queue), spec.Queue.DeleteOk,
                           "the queue is deleted (the rule's setup)")
        await expect_reply(probe.channel, spec.Queue.Declare(queue=queue, durable=True,
                                                             arguments=broker.queue_arguments("classic")),
                           spec.Queue.DeclareOk, "the queue is declared again (the rule's setup)")
    copies = await probe.copies(queue, exchange, key)
    check(copies == 0, f"the recreated {deleted} has no binding", expected="0 copies", actual=f"{copies}")
