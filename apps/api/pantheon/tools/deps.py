"""The app's ``ToolBox`` as a route dependency."""

from __future__ import annotations

from typing import Annotated

from fastapi import Depends, Request

from pantheon.tools.toolbox import ToolBox


def _toolbox(request: Request) -> ToolBox:
    toolbox: ToolBox = request.app.state.tools
    return toolbox


ToolBoxDep = Annotated[ToolBox, Depends(_toolbox)]
