"""Contract names renamed in a release, in one table every layer reads.

A renamed JSON key or column keeps its old name for one release (CHANGELOG.md, "Deprecated", says
which release removes each): every `--json` output that holds the new key also holds the old one
beside it with the same value (`fastsnake.cli.common`) and `compare`'s table carries the old column
beside the new (`fastsnake.snake.api`), in 0.2.x. Stored statistics written under an old name load
as the new one (`fastsnake.snake.stats`) as long as their file format is read. (A summary dict's old
key, deprecated in 0.1.0, no longer reads: removed in 0.2.0.)
"""

# {old: new}
RENAMED_KEYS = {
    "losses": "deaths",  # 0.2.0: a game that ends by collision "died" everywhere; removed in 0.3.0
    "moves_seed": "tile_moves",  # 0.2.0: puzzle solve's tile-direction list; removed in 0.3.0
}
