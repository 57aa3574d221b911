"""QU-13: queue.purge drops only the messages ready in the queue: purge-ok counts them,
and deliveries sent to a client but not yet acknowledged are not purged: they come back
to the queue (redelivered) when their channel closes.

Source: queue/purge [02]. The redelivered flag on what comes back is the field's SHOULD
(redelivered [implementation]): a missing flag is non-strict."""

from amqp_conformance.fixtures.vocabulary import (MUST, SPEC, check, expect_reply, message, non_strict, observe,
                                                  own_queue, publish_all, rule, spec)

RULE = rule("QU-13", "Purge drops only ready messages; unacknowledged deliveries survive it",
            strength=MUST, guide=SPEC, section="queue.purge", source="queue/purge [02]")

READY, HELD = 3, 2


async def test_purge_spares_unacked_deliveries(broker):
    connection = await broker.connection()
    purging, holding = await connection.channel(), await connection.channel()
    queue = await own_queue(broker, purging)
    await publish_all(purging, queue, [message(b"%d" % n) for n in range(READY + HELD)])
    held = [await holding.get(queue) for _ in range(HELD)]
    check(all(held), "the queue hands out the messages to hold unacked", expected=f"{HELD} get-ok",
          actual=[bool(d) for d in held])

    purged = await expect_reply(purging, spec.Queue.Purge(queue=queue), spec.Queue.PurgeOk, "queue.purge is answered")
    check(purged.message_count == READY, "purge-ok counts the ready messages it dropped, not the unacked ones",
          expected=READY, actual=purged.message_count)
    await holding.close()
    returned = await broker.take_all(queue, expected=HELD)
    observe("redelivered flags", [d.redelivered for d in returned])
    check(sorted(d.body for d in returned) == sorted(d.body for d in held),
          "the deliveries held unacked during the purge come back when their channel closes",
          expected=sorted(d.body for d in held), actual=sorted(d.body for d in returned))
    if not all(d.redelivered for d in returned):
        # The flag is the redelivered field's SHOULD (RD-01 judges it for the guides), not this rule's.
        non_strict("a delivery returned by its channel's close is not flagged redelivered",
                   expected=[True] * HELD, actual=[d.redelivered for d in returned])
