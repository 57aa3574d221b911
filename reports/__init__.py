"""The report layer: stored suite runs -> Parquet tables, the conformance matrix page and
the Allure 3 report (`python -m amqp_conformance.reports build`); synthetic runs and a benchmark."""
