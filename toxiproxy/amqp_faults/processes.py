"""Process faults: a broker node killed (kill -9) and started again on its data directory,
and one queue's own process killed on a RabbitMQ node that goes on running. The brokers
floor starts and stops nodes; what a fault does to them is said here."""

from __future__ import annotations

import asyncio


async def crash_and_restart(node) -> float:
    """kill -9 a managed broker node and start it again exactly as before (same command,
    ports, credentials and data directory: a crash and a supervisor restart); the seconds
    from the restart until it answered AMQP again."""
    return await asyncio.to_thread(node.crash_and_restart)


# A queue's own process (PC-18): Erlang run by rabbitmqctl eval on the node. The queue's process is a classic queue's pid
# or a quorum queue's local Ra server. Its message count comes from the queue itself (a
# quorum queue's from a query of its Ra state: the metrics tables lag by seconds). ARM leaves a watcher on the node that kills it
# (an untrappable exit) as soon as the queue holds `count` messages, or gives up after
# `within_ms`; rabbitmqctl takes a second or two to boot, so the kill is armed first and
# the publishes that reach the count come after, with more in flight behind them.
QUEUE_PID = (
    'QPid = fun() -> {{ok, Q}} = rabbit_amqqueue:lookup(rabbit_misc:r(<<"{vhost}">>, queue, <<"{queue}">>)), '
    'case amqqueue:get_pid(Q) of {{Name, _Node}} -> whereis(Name); Pid -> Pid end end, ')
ARM = QUEUE_PID + (
    'Count = fun() -> {{ok, Q}} = rabbit_amqqueue:lookup(rabbit_misc:r(<<"{vhost}">>, queue, <<"{queue}">>)), '
    'case amqqueue:get_pid(Q) of {{Name, _Node}} -> '
    '{{ok, {{_, M}}, _}} = ra:local_query({{Name, node()}}, fun rabbit_fifo:query_messages_total/1), M; '
    '_ -> [{{messages, M}}] = rabbit_amqqueue:info(Q, [messages]), M end end, '
    'Deadline = erlang:monotonic_time(millisecond) + {within_ms}, '
    'Watch = fun W() -> case Count() >= {count} of true -> exit(QPid(), kill); '
    'false -> case erlang:monotonic_time(millisecond) < Deadline of true -> timer:sleep(1), W(); '
    'false -> gave_up end end end, '
    'spawn(Watch), QPid().')


class QueueProcessKiller:
    """Kills the process of one queue of a managed RabbitMQ node through its rabbitmqctl;
    the node and its other queues go on."""

    def __init__(self, node) -> None:
        self.node = node

    async def arm(self, queue: str, *, at_count: int, within: float) -> str:
        """Leave a watcher on the node that kills the queue's process once it holds
        `at_count` messages (giving up after `within` seconds); the process now."""
        return await self._eval(ARM.format(vhost=self.node.target.vhost, queue=queue, count=at_count,
                                           within_ms=int(within * 1000)))

    async def process(self, queue: str) -> str:
        """The queue's process now (another one once the queue was restarted)."""
        return await self._eval(QUEUE_PID.format(vhost=self.node.target.vhost, queue=queue) + "QPid().")

    async def _eval(self, expression: str) -> str:
        return (await asyncio.to_thread(self.node.ctl, "eval", expression)).strip()
