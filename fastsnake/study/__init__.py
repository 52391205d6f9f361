"""Studies across problems: what Snake, puzzle and tour benchmarks share (the regression gate)."""
