"""python -m amqp_conformance.reports build [PATH ...] | diff A B [--site DIR] | synthetic OUT [--runs N ...] | bench | rejudge RUN ..."""

import sys


def main() -> int:
    command, args = (sys.argv[1], sys.argv[2:]) if len(sys.argv) > 1 else ("", [])
    if command == "build":
        from .build import main as build
        return build(args)
    if command == "diff":
        from .cells import main as diff
        return diff(args)
    if command == "synthetic":
        from .synthetic import main as synthetic
        return synthetic(args)
    if command == "rejudge":
        from .rejudge import main as rejudge
        return rejudge(args)
    if command == "bench":
        from .bench import main as bench
        return bench(args)
    if command in ("-h", "--help"):
        print(__doc__.strip())
        return 0
    print(__doc__.strip(), file=sys.stderr)
    return 2


if __name__ == "__main__":
    sys.exit(main())
