"""PC-01: confirm.select is answered with confirm.select-ok, unless no-wait is set, in
which case the broker sends no reply (and the channel is in confirm mode all the same)."""

import pytest
from pamqp.commands import Confirm as ConfirmMethod

from amqp_conformance.fixtures.vocabulary import CONFIRMS, Confirm, MUST, check, rule, timeouts

RULE = rule("PC-01", "confirm.select is answered with select-ok, and not answered with no-wait",
            strength=MUST, guide=CONFIRMS, section="publisher-confirms", requires=("confirms",))


@pytest.mark.parametrize("nowait", [False, True], ids=["wait", "no-wait"])
async def test_select_ok_only_without_no_wait(broker, nowait):
    queue = await broker.queue()
    async with broker.channel() as channel:
        await channel.confirm_select(nowait=nowait)
        # The barrier's reply comes after any select-ok the broker sent for the select.
        await channel.barrier()
        select_oks = [e for e in channel.arrivals if isinstance(e, ConfirmMethod.SelectOk)]
        check(len(select_oks) == (0 if nowait else 1),
              "no select-ok when no-wait is set" if nowait else "confirm.select is answered with one select-ok",
              expected=f"{0 if nowait else 1} select-ok", actual=f"{len(select_oks)} select-ok")

        channel.publish(b"m", routing_key=queue)
        confirm = await channel.watch(Confirm, within=timeouts.REPLY)
    check(isinstance(confirm, Confirm) and confirm.ack and confirm.delivery_tag == 1,
          "the channel is in confirm mode either way: the first publish is acked with tag 1",
          expected="ack(1)", actual=str(confirm))
