"""The app's ``ToolBox`` as a route dependency."""

from __future__ import annotations

from typing import Annotated

from fastapi import Depends

from pantheon.deps import ServicesDep
from pantheon.tools.toolbox import ToolBox


def _toolbox(services: ServicesDep) -> ToolBox:
    return services.tools


ToolBoxDep = Annotated[ToolBox, Depends(_toolbox)]
