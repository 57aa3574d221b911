"""CH-09: a synchronous reply means its method has taken effect: once bind-ok has come, a
publish from another connection is routed by the binding; once purge-ok has come, a
basic.get from another connection finds the queue empty; once cancel-ok has come, no
message published afterwards is delivered to the cancelled consumer.

Source: PDF 4.6 (a synchronous request's reply is sent once the request is done). The
reader of each effect is another connection, so the channel's own ordering cannot hide a
reply sent early."""

import pytest

from amqp_conformance.fixtures.vocabulary import (MUST, SPEC, Binding, bind, check, contents, new_exchange,
                                                  deliveries_after, publish_on, purge, rule)

RULE = rule("CH-09", "A synchronous reply fences its method's effect",
            strength=MUST, guide=SPEC, section="queue.bind", source="PDF 4.6")


@pytest.mark.parametrize("method", ["bind", "purge", "cancel"])
async def test_the_effect_is_there_when_the_reply_is(broker, method):
    queue = await broker.queue(messages=[b"before the purge"] if method == "purge" else [])
    acting, reading = await (await broker.connection()).channel(), await (await broker.connection()).channel()
    if method == "bind":
        exchange = await new_exchange(broker, acting, "direct")
        await bind(acting, queue, exchange, Binding("fenced"))
        publish_on(reading, b"routed", exchange=exchange, key="fenced")
        held = await contents(reading, queue)
        check(held == [b"routed"], "after bind-ok a publish is routed by the binding", expected=[b"routed"],
              actual=held, timed=False)
    elif method == "purge":
        await purge(acting, queue)
        held = await contents(reading, queue)
        check(held == [], "after purge-ok the queue is empty", expected=[], actual=held, timed=False)
    else:
        tag = await acting.consume(queue, no_ack=True)
        await acting.cancel(tag)
        publish_on(reading, b"after the cancel", key=queue)
        held = await contents(reading, queue)
        late = [d.body for d in deliveries_after(acting, tag)]
        check(held == [b"after the cancel"] and not late, "after cancel-ok nothing more is delivered to the consumer",
              expected="the message still queued, no delivery", actual=f"queued {held}, delivered {late}",
              timed=False)
