"""The core's part of the host API: the NinjaAPI object and its error format
(``root``), and the core's routers. ``config.api`` mounts every app's router."""
