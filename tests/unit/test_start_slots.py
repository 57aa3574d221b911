"""Node starts take turns (amqp_conformance.fixtures.brokers.start_slots): a start waits
for a free slot, and after its bound it boots anyway; without a folder nothing waits."""

import contextlib
import threading

from amqp_conformance.fixtures.brokers import start_slots


def test_without_a_folder_nothing_waits():
    start_slots.use(None)
    with start_slots.start_slot(within=5) as waited:
        assert waited == 0.0


@contextlib.contextmanager
def one_slot_held(folder):
    """A folder of one slot, held by another thread's start until `release` is set."""
    (folder / "slot-0").touch()
    start_slots.use(folder)
    holding, release = threading.Event(), threading.Event()

    def first():
        with start_slots.start_slot(within=5):
            holding.set()
            release.wait(5)

    other = threading.Thread(target=first)
    other.start()
    try:
        assert holding.wait(5)
        yield release
    finally:
        release.set()
        other.join(5)
        start_slots.use(None)


def test_a_start_waits_for_the_one_slot_then_gets_it(tmp_path):
    with one_slot_held(tmp_path) as release:
        threading.Timer(0.3, release.set).start()
        with start_slots.start_slot(within=5) as waited:
            assert waited >= 0.2  # it had to wait for the first start to end


def test_past_its_bound_a_start_boots_anyway(tmp_path):
    with one_slot_held(tmp_path) as release:
        with start_slots.start_slot(within=0.3) as waited:
            assert not release.is_set()  # the first still holds the only slot
        assert waited >= 0.3
