"""File growth of the identity columns (docs/sweeps.md).

`python bench/identity_columns_growth.py FILE.parquet` rewrites a sweep file row group by row group
with them, with only the five of format /2 (policy, rows, cols, tail_rule, start_length) and without
any (same writer options, same row groups) and prints the three sizes.
"""

import os
import sys

import pyarrow.parquet as pq

from fastsnake.snake.store import IDENTITY_COLUMNS
from fastsnake.snake.store.sweepfile import IDENTITY_COLUMNS_2, WRITE_OPTIONS

src = sys.argv[1]
pf = pq.ParquetFile(src)
sizes = {}
for keep in ("all", "format 2", "none"):
    out = f"growth-{keep}.parquet"
    writer = None
    for i in range(pf.num_row_groups):
        t = pf.read_row_group(i)
        if keep != "all":
            t = t.drop_columns([c for c in IDENTITY_COLUMNS if keep == "none" or c not in IDENTITY_COLUMNS_2])
        if writer is None:
            writer = pq.ParquetWriter(out, t.schema, **WRITE_OPTIONS)
        writer.write_table(t)
    writer.close()
    sizes[keep] = os.path.getsize(out)
    os.unlink(out)
print(f"{src}: {pf.metadata.num_rows:,} rows in {pf.num_row_groups} row groups: with every identity column "
      f"{sizes['all']:,} bytes, with format 2's five {sizes['format 2']:,}, without any {sizes['none']:,}: "
      f"+{100 * (sizes['all'] / sizes['format 2'] - 1):.2f} % over format 2, "
      f"+{100 * (sizes['all'] / sizes['none'] - 1):.2f} % over none")
