"""FLT-05's slicer splits the protocol header with a pause (issue 46, item 5): through the
HeaderSplitter, a server reading as fast as it can sees the header's first 4 octets in a
read of their own, then the rest of it, and the first frame after it cut inside its frame
header, each second piece at least SPLIT_PAUSE later; the server's answers come back
unchanged. No broker: a local socket server stands in for one."""

from __future__ import annotations

import socket
import threading
import time

from amqp_conformance.amqp_faults.network_profiles import (HEADER_CUT, PROTOCOL_HEADER_SIZE, SPLIT_PAUSE,
                                                           HeaderSplitter, fronted)

HEADER = b"AMQP\x00\x00\x09\x01"
START_OK = b"\x01\x00\x00\x00\x00\x00\x05hello\xce"


def test_the_header_and_the_first_frame_arrive_in_pieces_a_pause_apart():
    server = socket.create_server(("127.0.0.1", 0))
    reads: list[tuple[float, bytes]] = []

    def serve():
        conn, _ = server.accept()
        with conn:
            while len(b"".join(data for _, data in reads)) < len(HEADER + START_OK):
                data = conn.recv(65536)
                if not data:
                    break
                reads.append((time.monotonic(), data))
                if b"".join(d for _, d in reads) == HEADER:
                    conn.sendall(b"start")  # the client's next write waits for this, as start-ok does
            conn.sendall(b"bye")

    threading.Thread(target=serve, daemon=True).start()
    splitter = HeaderSplitter(*server.getsockname()[:2])
    try:
        client = socket.create_connection((splitter.host, splitter.port), timeout=10)
        client.sendall(HEADER)
        assert client.recv(5) == b"start"
        client.sendall(START_OK)
        answer = b""
        while chunk := client.recv(100):
            answer += chunk
        client.close()
    finally:
        splitter.close()
        server.close()
    pieces = [data for _, data in reads]
    assert b"".join(pieces) == HEADER + START_OK and answer == b"bye"
    assert pieces[0] == HEADER[:HEADER_CUT], pieces  # the first read holds only "AMQP"
    assert reads[1][0] - reads[0][0] >= SPLIT_PAUSE * 0.9
    frame_cut = [i for i, (_, data) in enumerate(reads) if b"".join(pieces[:i + 1]) == HEADER + START_OK[:3]]
    assert frame_cut, f"the first frame was not cut inside its header: {pieces}"
    assert reads[frame_cut[0] + 1][0] - reads[frame_cut[0]][0] >= SPLIT_PAUSE * 0.9
    assert len(HEADER) == PROTOCOL_HEADER_SIZE


def test_only_the_slicer_is_fronted():
    with fronted("latency", "127.0.0.1", 1234) as address:
        assert address == ("127.0.0.1", 1234)
    with fronted("slicer", "127.0.0.1", 1234) as address:
        assert address[1] != 1234
