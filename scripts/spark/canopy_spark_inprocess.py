#!/usr/bin/env python3
"""Runs Canopy on Spark in process (the `canopy` Python package in every
executor, no binary, no shared work folder): canopy.spark's job.

    spark-submit scripts/spark/canopy_spark_inprocess.py --out OUT CRAWL/*.warc.gz
    python3 scripts/spark/canopy_spark_inprocess.py --master 'local[2]' --out OUT CRAWL/*.warc.gz

Needs `pip install ./crates/python pyspark` (docs/python.md); the
subprocess driver beside it (canopy_spark.py) runs the binary instead.
"""

import sys

from canopy.spark import main

if __name__ == "__main__":
    sys.exit(main())
