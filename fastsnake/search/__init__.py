"""Search kernels shared by every problem: array-backed heaps, grid A*, BFS."""
