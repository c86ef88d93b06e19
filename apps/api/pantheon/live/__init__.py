"""Running turns: registry, runner, recorder, event log, backends, journal, recovery.

Never imports ``pantheon.turns`` (a house-rule test says so).
"""
