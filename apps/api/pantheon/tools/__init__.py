"""Tools agents can call: in-process functions (``registry``, ``builtins``) and MCP servers
(``mcp``), behind the engine's ``ToolRunner`` protocol (``toolbox.ToolBox``)."""
