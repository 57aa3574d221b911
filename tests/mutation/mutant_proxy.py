"""The mutant proxy: the shared frame engine (tests/frame_proxy.py) with a mutation as its
rewrite. The names the mutants and their tests use."""

from tests.frame_proxy import TO_BROKER, TO_CLIENT, Command, Link, Tracker, command
from tests.frame_proxy import FrameProxy as MutantProxy
from tests.frame_proxy import Rewrite as Identity

__all__ = ["TO_BROKER", "TO_CLIENT", "Command", "Identity", "Link", "MutantProxy", "Tracker", "command"]
