"""Django database backend for the embedded server: PostgreSQL, started on first connect.

Starting the server lazily means commands that never touch the database (collectstatic)
do not start it, and every process that does connect is registered as a user of
the server, so it stops only when the last of them exits.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from django.db.backends.postgresql import base

from config import embedded_db


class DatabaseWrapper(base.DatabaseWrapper):
    def get_connection_params(self) -> dict[str, Any]:
        params: dict[str, Any] = super().get_connection_params()
        # Our private option must not reach libpq, which rejects unknown keywords.
        data_dir = params.pop("data_dir", None) or embedded_db.default_data_dir()
        server = embedded_db.attach(
            Path(data_dir), database=self.settings_dict["NAME"] or "postgres"
        )
        params.update(server.connection_params())
        return params
