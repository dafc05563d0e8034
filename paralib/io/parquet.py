"""Reading Parquet that a user may have pointed at the wrong file: one message naming the
file, what was expected and what was found, instead of Arrow's traceback."""

from __future__ import annotations

import pyarrow as pa
import pyarrow.parquet as pq

from paralib.errors import InputError


class ParquetInputError(InputError, ValueError):
    """A file that is not Parquet, or lacks the columns a stage reads."""


def read_parquet(path: str, filesystem=None, columns: list[str] | None = None,
                 expected: str = "a Parquet file") -> pa.Table:
    """``pq.read_table(path)`` (only ``columns`` when given); a file that is not Parquet or
    lacks a column raises :class:`ParquetInputError` naming ``path`` and ``expected``."""
    try:
        schema = pq.read_schema(path, filesystem=filesystem)
    except (pa.ArrowInvalid, OSError) as e:
        raise ParquetInputError(f"{path}: not a readable Parquet file ({e}); expected "
                                f"{expected}") from e
    missing = [c for c in columns or [] if c not in schema.names]
    if missing:
        raise ParquetInputError(f"{path}: no column {', '.join(map(repr, missing))} (it has "
                                f"{', '.join(schema.names) or 'none'}); expected {expected}")
    try:
        return pq.read_table(path, filesystem=filesystem, columns=columns)
    except (pa.ArrowInvalid, OSError) as e:
        raise ParquetInputError(f"{path}: a damaged Parquet file ({e}); expected "
                                f"{expected}") from e
