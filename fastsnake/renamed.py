"""Contract names renamed in a release, in one table every layer reads.

A renamed JSON key, summary key or column keeps its old name for one release (CHANGELOG.md,
"Deprecated", says which release removes each): every `--json` output that holds the new key also
holds the old one beside it with the same value (`fastsnake.cli.common`), a summary dict still reads
the old key with a DeprecationWarning and stored statistics written under it load as the new one
(`fastsnake.snake.stats`), and `compare`'s table carries the old column beside the new
(`fastsnake.snake.api`).
"""

# {old: new}
RENAMED_KEYS = {
    "losses": "deaths",  # 0.2.0: a game that ends by collision "died" everywhere; removed in 0.3.0
    "moves_seed": "tile_moves",  # 0.2.0: puzzle solve's tile-direction list; removed in 0.3.0
}
