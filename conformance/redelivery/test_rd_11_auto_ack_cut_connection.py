"""RD-11: automatic ack and a cut TCP connection. A delivery is settled once the broker
has sent it, so after the cut none of those comes back and none is redelivered (those
still in flight may be lost); the messages the broker had not yet sent stay queued for
the next consumer; nothing is delivered twice. RD-08 is the clean close.

A queue of a few megabytes of messages, one automatic-ack consumer behind Toxiproxy whose
downstream is slowed to a trickle before it consumes: the broker's writes back up and most
of the queue stays in it. Once the consumer has its first deliveries the connection is cut
(the proxy taken down, or the client's TCP reset), and the queue is drained on a direct
connection once the broker shows the cut consumer gone.

Which messages were in flight at the cut (sent, not received) can be told only where the
consumer received the first messages of the queue, in publish order and without a gap:
the loss in flight then comes right after them, and everything after the last message
lost must be in what the drain finds. The guide's sentence says nothing of order, so a
broker that delivered otherwise (out of order, or in order past a message it had not
delivered) leaves that part not exercised. The drain may also hold a message from among
those in flight: they may be lost, so one the broker kept is no finding."""

import pytest

from amqp_conformance.fixtures.vocabulary import (CONFIRMS, Delivery, HEARTBEAT_S, MUST, bandwidth, check, down,
                                                  drain_queue, message_ids, not_exercised, observe,
                                                  publish_confirmed, receive, rule, timeouts)

RULE = rule("RD-11", "Automatic ack and a cut connection: nothing sent comes back, the rest stays queued, "
            "nothing twice", strength=MUST, guide=CONFIRMS, section="acknowledgement-modes",
            accepts=("a message from among those in flight still queued (in flight they may be lost); a consumer "
                     "that did not receive the queue's first messages in publish order without a gap leaves the "
                     "in-flight part not exercised (CONFIRMS, acknowledgement modes: in automatic mode a message "
                     "the broker sent is lost if the connection closes before it is delivered; of order it says "
                     "nothing)"))

pytestmark = pytest.mark.fault
MESSAGES = 3000
BODY_SIZE = 2000  # 6 MB in all: more than the socket buffers on the way hold
TRICKLE = bandwidth(64, "downstream")  # KB/s: a few dozen deliveries a second
FIRST = 10  # deliveries the consumer takes before the cut
# How long the drain may take, in reply bounds: thousands of messages on a loaded host. Read
# when used: --reply-timeout sets the bound and it grows with the harness's measured lag.
DRAIN_REPLIES = 10


async def proxy_down(faults, connection) -> None:
    await faults.apply(down())


async def client_reset(faults, connection) -> None:
    connection.abort()


@pytest.mark.parametrize("cut", [proxy_down, client_reset], ids=["proxy-down", "client-reset"])
async def test_auto_ack_deliveries_stay_settled_after_a_cut(broker, faults, history, cut):
    history.fault_name = f"{TRICKLE.name}, then {cut.__name__.replace('_', '-')}"
    ids = message_ids("rd11", MESSAGES)
    queue = await broker.queue()
    await publish_confirmed(faults, queue, ids, body_size=BODY_SIZE, persistent=False)
    consumer = await faults.connection(heartbeat=HEARTBEAT_S)
    channel = await consumer.channel()
    await faults.apply(TRICKLE)
    await channel.consume(queue, consumer_tag="cut-consumer", no_ack=True)
    first = await receive(channel, FIRST)
    check(len(first) == FIRST, "the automatic-ack consumer receives deliveries before the cut",
          expected=f"{FIRST} deliveries", actual=len(first))
    observe("ready in the queue before the cut", await broker.ready_count(queue))

    await cut(faults, consumer)
    await consumer.ended(within=timeouts.REPLY)
    gone = await broker.wait_consumers_gone(queue, within=timeouts.REPLY)
    check(gone == 0, "the broker drops the cut consumer", expected="0 consumers on the queue",
          actual=f"{gone} consumers")
    sent = [event for event in channel.arrivals if isinstance(event, Delivery)]
    drained = await drain_queue(broker, history, queue, expect=set(), within=DRAIN_REPLIES * timeouts.REPLY)

    seen, left = [d.message_id for d in sent], [d.message_id for d in drained]
    accounted = set(seen) | set(left)
    lost = [position for position, message_id in enumerate(ids) if message_id not in accounted]
    observe("received before the cut / lost in flight / queued for the next consumer",
            f"{len(seen)} / {len(lost)} / {len(left)} of {MESSAGES}")
    check(not set(seen) & set(left), "no delivery made before the cut comes back",
          expected="none of the received messages in the queue", actual=sorted(set(seen) & set(left))[:10])
    check(not [d for d in drained if d.redelivered], "what stays queued was never delivered: redelivered=false",
          expected="redelivered=false for all", actual=[d.message_id for d in drained if d.redelivered][:10])
    check(len(set(seen)) == len(seen) and len(set(left)) == len(left), "nothing is delivered twice",
          expected="every message id once", actual=f"{len(seen) - len(set(seen))} repeated before the cut, "
                                                   f"{len(left) - len(set(left))} in the drain")
    if seen != ids[:len(seen)]:
        observe("received", f"{seen[:3]}...{seen[-3:]}: not the queue's first {len(seen)} messages in order")
        not_exercised("only messages in flight are lost: the consumer did not receive the queue's first messages "
                      "in publish order without a gap, so which messages were in flight at the cut cannot be told")
    else:
        # Sent in order, so the lost ones were in flight only if every later message is
        # still queued. In flight they *may* be lost: one the broker kept is no finding.
        not_yet_sent = ids[lost[-1] + 1:] if lost else []
        check(set(not_yet_sent) <= set(left),
              "only messages in flight at the cut may be lost: every message after them stays queued",
              expected="the drain holds every message after the last one lost",
              actual=f"received {seen[:2]}...{seen[-2:]}, drained {left[:2]}...{left[-2:]}, "
                     f"lost {len(lost)} ending at {ids[lost[-1]] if lost else '-'}, "
                     f"{len(set(not_yet_sent) - set(left))} after it not queued")
        kept = [message_id for message_id in left if message_id not in set(not_yet_sent)]
        if kept and lost:
            observe("queued though later messages were lost in flight (in flight they may be lost, or kept)",
                    f"{len(kept)}: {kept[:5]}")
    if not left:
        not_exercised("the messages not yet sent stay queued: the broker had sent every message before the cut")
