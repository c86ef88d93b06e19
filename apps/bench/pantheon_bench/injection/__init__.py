"""I1: how often an agent follows instructions injected into an MCP tool's results, with
fencing (``PANTHEON_TOOLS__FENCE``) on and off (``python -m pantheon_bench.injection``)."""
