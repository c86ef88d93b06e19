"""Knowledge benchmarks (K1-K4), runnable on their own: ``python -m pantheon_bench.knowledge``."""
