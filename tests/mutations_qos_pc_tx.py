"""Mutations for the QOS, PC and TX rules: each rewrites RabbitMQ's frames (through
tests/frame_rewriting_proxy.py) so that the pair looks like a broker breaking one rule,
and the runner shows that rule's tests fail. For the mutant-proxy work to fold in;
run by hand: `.venv/bin/python -m tests.mutations_qos_pc_tx [mutation ...]`."""
import sys
import tempfile
from pathlib import Path

from pamqp import commands as spec
from pamqp.body import ContentBody
from pamqp.header import ContentHeader
from fixtures.managed_brokers import RabbitMQNode
from tests.frame_rewriting_proxy import FrameRewritingProxy, shift_confirm_tags, hide_precondition_failed
from tests.suite_runs import run_suite


def content_mutation(kinds, emit):
    """Collect a content-bearing method with its header and body, then emit(method, header, body, ch)."""
    held = {}
    def mutate(channel, frame):
        if isinstance(frame, kinds):
            held[channel] = [frame]
            return []
        if channel in held and isinstance(frame, ContentHeader):
            held[channel].append(frame)
            if frame.body_size == 0:
                m, h = held.pop(channel); return emit(channel, m, h, ContentBody(b""))
            return []
        if channel in held and isinstance(frame, ContentBody):
            m, h = held.pop(channel); return emit(channel, m, h, frame)
        return None
    return mutate


def duplicate_deliveries():
    """Every basic.deliver arrives twice (the copy with a new tag): more unacked than the prefetch."""
    def emit(ch, m, h, b):
        copy = spec.Basic.Deliver(m.consumer_tag, m.delivery_tag + 100000, m.redelivered, m.exchange, m.routing_key)
        return [(ch, m), (ch, h), (ch, b), (ch, copy), (ch, h), (ch, b)]
    return content_mutation(spec.Basic.Deliver, emit)


def duplicate_released_deliveries():
    """Deliveries past the fourth on a channel (those an ack released) arrive twice: a settle releases too many."""
    def emit(ch, m, h, b):
        if m.delivery_tag <= 4:
            return [(ch, m), (ch, h), (ch, b)]
        copy = spec.Basic.Deliver(m.consumer_tag, m.delivery_tag + 100000, m.redelivered, m.exchange, m.routing_key)
        return [(ch, m), (ch, h), (ch, b), (ch, copy), (ch, h), (ch, b)]
    return content_mutation(spec.Basic.Deliver, emit)


def drop_deliveries_after_ten():
    """Only the first ten deliveries of a connection reach the client: a limit where none should be."""
    seen = {"n": 0}
    def emit(ch, m, h, b):
        seen["n"] += 1
        return [(ch, m), (ch, h), (ch, b)] if seen["n"] <= 10 else []
    return content_mutation(spec.Basic.Deliver, emit)


def get_ok_becomes_get_empty():
    """basic.get-ok (and its content) is replaced by basic.get-empty."""
    return content_mutation(spec.Basic.GetOk, lambda ch, m, h, b: [(ch, spec.Basic.GetEmpty())])


def get_empty_becomes_get_ok():
    """basic.get-empty is replaced by a get-ok with a made-up message."""
    def mutate(channel, frame):
        if isinstance(frame, spec.Basic.GetEmpty):
            return [(channel, spec.Basic.GetOk(1, False, "", "phantom", 0)),
                    (channel, ContentHeader(0, 7, spec.Basic.Properties())), (channel, ContentBody(b"phantom"))]
        return None
    return mutate


def select_ok_before_declare_ok():
    """An extra confirm.select-ok is injected before every exchange.declare-ok."""
    def mutate(channel, frame):
        if isinstance(frame, spec.Exchange.DeclareOk):
            return [(channel, spec.Confirm.SelectOk()), (channel, frame)]
        return None
    return mutate


def acks_become_nacks():
    def mutate(channel, frame):
        if isinstance(frame, spec.Basic.Ack):
            return [(channel, spec.Basic.Nack(frame.delivery_tag, frame.multiple, False))]
        return None
    return mutate


def nacks_become_acks():
    def mutate(channel, frame):
        if isinstance(frame, spec.Basic.Nack):
            return [(channel, spec.Basic.Ack(frame.delivery_tag, frame.multiple))]
        return None
    return mutate


def ack_before_return():
    """basic.return (with its content) is held back until after the next basic.ack."""
    held = {}
    inner = content_mutation(spec.Basic.Return, lambda ch, m, h, b: held.setdefault(ch, []).extend([(ch, m), (ch, h), (ch, b)]) or [])
    def mutate(channel, frame):
        if isinstance(frame, spec.Basic.Ack) and held.get(channel):
            out = [(channel, frame)] + held.pop(channel)
            return out
        return inner(channel, frame)
    return mutate


def drop_confirms_after_queue_gone():
    """Once a queue.delete-ok or queue.purge-ok passed on a channel, its confirms are dropped."""
    gone = set()
    def mutate(channel, frame):
        if isinstance(frame, (spec.Queue.DeleteOk, spec.Queue.PurgeOk)):
            gone.add(channel); return None
        if isinstance(frame, (spec.Basic.Ack, spec.Basic.Nack)) and channel in gone:
            return []
        return None
    return mutate


def drop_returns():
    return content_mutation(spec.Basic.Return, lambda ch, m, h, b: [])


def get_after_recover_is_empty():
    """After basic.recover-ok, the next get-ok on that channel becomes get-empty (an undone ack looks as if it stood)."""
    recovered = set()
    inner = content_mutation(spec.Basic.GetOk, lambda ch, m, h, b: [(ch, spec.Basic.GetEmpty())] if ch in recovered and not recovered.discard(ch) else [(ch, m), (ch, h), (ch, b)])
    def mutate(channel, frame):
        if isinstance(frame, spec.Basic.RecoverOk):
            recovered.add(channel)
            return None
        if isinstance(frame, spec.Basic.GetEmpty):
            recovered.discard(channel)
        return inner(channel, frame)
    return mutate


RUNS = [
    ("get_after_recover_is_empty", get_after_recover_is_empty, "tx_05"),
    ("duplicate_deliveries", duplicate_deliveries, "qos_01 or qos_07"),
    ("duplicate_released_deliveries", duplicate_released_deliveries, "qos_07"),
    ("drop_deliveries_after_ten", drop_deliveries_after_ten, "qos_02 or qos_03"),
    ("get_ok_becomes_get_empty", get_ok_becomes_get_empty, "qos_04 or tx_05"),
    ("get_empty_becomes_get_ok", get_empty_becomes_get_ok, "tx_04 or tx_05"),
    ("select_ok_before_declare_ok", select_ok_before_declare_ok, "pc_01"),
    ("shift_confirm_tags", lambda: shift_confirm_tags, "pc_03"),
    ("acks_become_nacks", acks_become_nacks, "pc_07 or pc_08"),
    ("ack_before_return", ack_before_return, "pc_08"),
    ("nacks_become_acks", nacks_become_acks, "pc_09"),
    ("drop_confirms_after_queue_gone", drop_confirms_after_queue_gone, "pc_11"),
    ("hide_precondition_failed", lambda: hide_precondition_failed, "tx_03"),
    ("drop_returns", drop_returns, "tx_06 or pc_08"),
]

def main(only: list[str]) -> None:
    node = RabbitMQNode(); node.start()
    try:
        for name, make, selection in RUNS:
            if only and name not in only:
                continue
            with FrameRewritingProxy(node.target.host, node.target.port, make()) as proxy, tempfile.TemporaryDirectory() as tmp:
                run = run_suite(Path(tmp), "--amqp-url", node.target.with_address("127.0.0.1", proxy.port).url,
                                "-p", "no:hypothesispytest", "-k", selection, timeout=200)
            print(f"{name:32} [{selection}] {run.seconds:.0f}s")
            for case in run.cases:
                why = [l for l in (case.failure or "").splitlines() if l.startswith("E ")][:4]
                print(f"    {case.properties.get('rule')} {case.name}: {case.outcome} {' | '.join(l.strip() for l in why)[:140]}")
            sys.stdout.flush()
    finally:
        node.cleanup()


if __name__ == "__main__":
    main(sys.argv[1:])
