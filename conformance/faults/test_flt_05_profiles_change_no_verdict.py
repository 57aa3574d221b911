"""FLT-05: latency, jitter, a bandwidth limit and frames sliced at arbitrary byte
boundaries change no verdict. The fault layer runs every ACK, QOS, PC and TX rule test
again through each profile (`[flt05-<profile>]` copies, see amqp_faults/network_profiles.py);
this module checks that each profile really takes hold on the wire and that a confirmed
publish/consume workload through it keeps its exact history: every message confirmed
once, delivered once, in order, never flagged redelivered."""

import time

import pytest

from amqp_conformance.fixtures.vocabulary import (ConfirmLedger, ConnectFailed, PROFILES, RULE_FLT_05, check,
                                                  deliveries_until_quiet, expect_none, message_ids, observe, slicer,
                                                  timeouts, violation)

RULE = RULE_FLT_05  # declared with the profiles it governs

pytestmark = pytest.mark.fault
MESSAGES = 50
# The profiles, and a finer slicer that always splits the 8-byte protocol header (too
# slow for the 500-message rule copies on this machine, fine for this workload).
LINKS = {**PROFILES, "slicer-1-7B": slicer(4, 3, 20)}


async def open_channel(faults):
    try:
        return await (await faults.connection()).channel()
    except ConnectFailed as failed:
        raise violation("the broker completes the AMQP handshake through the profile",
                        "connection.open-ok", str(failed)) from None


@pytest.mark.parametrize("profile", LINKS.values(), ids=LINKS.keys())
async def test_a_confirmed_workload_keeps_its_history_through_the_profile(broker, faults, history, profile):
    history.fault_name = profile.name
    queue = await broker.queue()
    await faults.apply(profile)  # before the first byte of either connection
    check(set(await faults.proxy.atoxic_names()) == {t.key for t in profile.toxics},
          "the profile's toxics are on the proxy", expected=[t.key for t in profile.toxics],
          actual=await faults.proxy.atoxic_names())
    publisher = await open_channel(faults)
    started = time.monotonic()
    await publisher.barrier()
    observe("round trip through the profile", f"{(time.monotonic() - started) * 1000:.0f} ms")
    await publisher.confirm_select()
    ids = message_ids("flt05", MESSAGES)
    ledger = ConfirmLedger()
    ledger.send_ids(publisher, queue, ids)
    await ledger.wait(publisher, within=timeouts.REPLY, until_cut=True)
    consumer = await open_channel(faults)
    await consumer.consume(queue, no_ack=True)
    # The reply bound for each delivery, not for all fifty: a profile slows the stream by how many
    # bytes it carries, and a broker may frame content in more, smaller frames (allowed).
    deliveries = await deliveries_until_quiet(consumer, expected=MESSAGES, quiet=0)

    verdict = history.check()
    check(verdict.confirmed == MESSAGES, "every publish is confirmed", expected=MESSAGES, actual=verdict.confirmed)
    check([d.message_id for d in deliveries] == ids, "every message is delivered once, in publish order",
          expected=f"{ids[0]} … {ids[-1]}", actual=[d.message_id for d in deliveries])
    for what in ("lost", "unexpected", "duplicated", "double_resolutions", "watermark_violations",
                 "unflagged_redeliveries"):
        expect_none(verdict, what, f"the profile {profile.name} changes nothing in the history")
    check(not any(d.redelivered for d in deliveries), "first deliveries are not flagged redelivered",
          expected="redelivered=false", actual=[d.message_id for d in deliveries if d.redelivered])
