"""The build as a Spark application, for spark-submit (absolute imports: spark-submit runs
this file as a script, not as part of the package):

    PYSPARK_PYTHON=.venv/bin/python .venv/bin/spark-submit --master spark://host:7077 \
        reports/submit.py [PATH ...] [--out DIR] [--data URI] [--window N|Nd] [--full]

takes the options of `python -m amqp_conformance.reports build`; the master, memory and
every other setting are spark-submit's (the build sets no master of its own).
"""

import sys

from amqp_conformance.reports.build import main

if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
