"""Stand-ins for an asyncio connection's two ends, for tests that feed a reader what a
broker would send and keep what the client writes."""

from __future__ import annotations

import asyncio


class CollectingWriter:
    """A writer that keeps what the client sent."""

    def __init__(self):
        self.data = bytearray()

    def write(self, data):
        self.data += data

    def is_closing(self):
        return False

    def close(self):
        pass


def fed_reader(stream: bytes, chunk: int | None = None) -> asyncio.StreamReader:
    """A reader holding `stream`, cut into reads of `chunk` octets (whole, unless told), then its end."""
    reader = asyncio.StreamReader()
    step = chunk or max(len(stream), 1)
    for start in range(0, len(stream), step):
        reader.feed_data(stream[start:start + step])
    reader.feed_eof()
    return reader
