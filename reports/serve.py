"""`python -m amqp_conformance.reports serve [DIR]`: the built site over HTTP on this
machine, so the Allure report in its default layout (its data in files beside the page,
which a browser will not fetch for a page opened from disk) opens, and a case linked from
the matrix shows without the browser reading the whole report first.

Serves DIR (default reports/site) on 127.0.0.1 only: a stored run holds broker names and
frames, which are nobody else's business. The site is read, never written.
"""

from __future__ import annotations

import argparse
import functools
import sys
import threading
from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

HERE = Path(__file__).resolve().parent
DEFAULT_PORT = 8765


class QuietHandler(SimpleHTTPRequestHandler):
    """Files of the site, without a log line per request (a report asks for hundreds)."""

    def log_message(self, format: str, *args) -> None:  # noqa: A002 (the base class's name)
        pass


def server(site: Path, port: int = DEFAULT_PORT, host: str = "127.0.0.1") -> ThreadingHTTPServer:
    """A server of `site`, bound and listening (port 0: any free port; its address says
    which), not yet serving: call serve_forever, or `in_background`."""
    handler = functools.partial(QuietHandler, directory=str(site))
    return ThreadingHTTPServer((host, port), handler)


def in_background(httpd: ThreadingHTTPServer) -> threading.Thread:
    thread = threading.Thread(target=httpd.serve_forever, name="reports-serve", daemon=True)
    thread.start()
    return thread


def url_of(httpd: ThreadingHTTPServer) -> str:
    host, port = httpd.server_address[:2]
    return f"http://{host}:{port}/"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m amqp_conformance.reports serve",
                                     description="Serve a built site (the matrix page and the Allure report) "
                                                 "on 127.0.0.1 until Ctrl-C.")
    parser.add_argument("site", nargs="?", type=Path, default=HERE / "site", metavar="DIR",
                        help="the site `reports build` wrote (default: reports/site)")
    parser.add_argument("--port", type=int, default=DEFAULT_PORT,
                        help=f"the port to listen on; 0 picks a free one (default: {DEFAULT_PORT})")
    args = parser.parse_args(argv)
    if not (args.site / "index.html").is_file():
        print(f"[reports] no built site at {args.site} (no index.html): run "
              "`python -m amqp_conformance.reports build` first", file=sys.stderr)
        return 2
    try:
        httpd = server(args.site.resolve(), args.port)
    except OSError as refused:
        print(f"[reports] cannot listen on 127.0.0.1:{args.port}: {refused.strerror or refused}; "
              "give another --port (0 picks a free one)", file=sys.stderr)
        return 2
    url = url_of(httpd)
    print(f"[reports] serving {args.site} at {url} (the matrix), {url}allure/ (the Allure report); Ctrl-C stops",
          flush=True)
    try:
        httpd.serve_forever()
    except KeyboardInterrupt:
        pass
    finally:
        httpd.server_close()
    return 0
