"""The runner every problem shares: work units in chunks, on every core or a dask cluster, into a
resumable folder.

- `run(units, Job(work, spec, setup), workers=, cluster=, chunk_size=, folder=)` (`runner`): the
  results in unit order, whatever ran them;
- `RunFolder` (`folder`): finished chunks written whole, checksummed in a manifest, a rerun
  computing only the missing ones, another run's folder refused;
- `spare_cores()`, `core_share()` (`runner`): the cores a unit's work may use now (1 plus its share
  of the pool's idle workers, in a worker of the local pool; else 1);
- `check_workers`, `available_cores` (`cores`); `parse_cluster`, `connect`, `Cluster` (`cluster`,
  dask imported only there);
- `atomic_write`, `sha256_file`, `manifest_checksum`, `FolderLock` (`files`): also what Snake's
  sweep folders are written with.

It sits below the problem packages: it imports none of them (they hand it a picklable work function
and their units). Nothing heavy is imported here.
"""

from fastsnake.runs.cluster import connect, parse_cluster, probe
from fastsnake.runs.cores import available_cores, check_workers
from fastsnake.runs.folder import RunFolder, RunFolderError, is_run_folder
from fastsnake.runs.runner import Job, RunError, RunOutcome, core_share, run, spare_cores

__all__ = ["Job", "RunError", "RunFolder", "RunFolderError", "RunOutcome", "available_cores", "check_workers",
           "connect", "core_share", "is_run_folder", "parse_cluster", "probe", "run", "spare_cores"]
