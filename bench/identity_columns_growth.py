"""File growth of the identity columns (docs/sweeps.md).

`python bench/identity_columns_growth.py FILE.parquet` rewrites a sweep file row group by row group
with and without them (same writer options, same row groups) and prints both sizes.
"""

import os
import sys

import pyarrow.parquet as pq

from fastsnake.snake.store import IDENTITY_COLUMNS
from fastsnake.snake.store.sweepfile import WRITE_OPTIONS

src = sys.argv[1]
pf = pq.ParquetFile(src)
sizes = {}
for keep in (True, False):
    out = f"growth-{keep}.parquet"
    writer = None
    for i in range(pf.num_row_groups):
        t = pf.read_row_group(i)
        if not keep:
            t = t.drop_columns(list(IDENTITY_COLUMNS))
        if writer is None:
            writer = pq.ParquetWriter(out, t.schema, **WRITE_OPTIONS)
        writer.write_table(t)
    writer.close()
    sizes[keep] = os.path.getsize(out)
    os.unlink(out)
print(f"{src}: {pf.metadata.num_rows:,} rows in {pf.num_row_groups} row groups: with identity columns "
      f"{sizes[True]:,} bytes, without {sizes[False]:,} bytes: +{100 * (sizes[True] / sizes[False] - 1):.2f} %")
