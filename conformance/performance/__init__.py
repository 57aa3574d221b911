"""PERF: the guides 'performance claims, measured (INFO; on demand: -m perf)."""
