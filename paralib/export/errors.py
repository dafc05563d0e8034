"""The error of ``paralib export``, importable without torch (the CLI catches it)."""

from paralib.errors import ConfigurationError


class ExportError(ConfigurationError, ValueError):
    """A model cannot be exported as asked (an encoder the target cannot express, a bad output
    folder): the message says what, where and what was expected."""
